package agent

import "testing"

// A marker naming a source the answer does not have is dropped, so the page shows no link to nothing; the
// other numbers of a marker stay.
func TestDropUnknownMarkers(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"You can receive 600 EUR [2].", "You can receive 600 EUR [2]."},
		{"You can receive 600 EUR [5].", "You can receive 600 EUR."},
		{"600 EUR [1, 5] and 5,921 km [3; 4]", "600 EUR [1] and 5,921 km [3; 4]"},
		{"both [2][6]", "both [2]"},
		{"none [0]", "none"},
		{"as shown [9](http://evil.example/nine).", "as shown [9](http://evil.example/nine)."}, // a link's text, not a marker
	} {
		if got := dropUnknownMarkers(tc.in, 4); got != tc.want {
			t.Errorf("dropUnknownMarkers(%q, 4) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
