package evaltest

import (
	"strings"
	"testing"
)

func TestPassages(t *testing.T) {
	text := "Company history > Acquisition\n\n" +
		"In 2025 Acme bought Bolt. Its team consisted of:\n\n- Ann, engineer\n- Bo, designer\n\n" +
		"## Offices\n\n| city | distance from Munich |\n| --- | --- |\n| Lisbon | 1,964 km |\n\nMore prose follows."
	got := passages(text)
	want := []passage{
		{"In 2025 Acme bought Bolt.", "Company history > Acquisition"},
		{"Its team consisted of: Ann, engineer; Bo, designer", "Company history > Acquisition"},
		{"city: Lisbon; distance from Munich: 1,964 km", "Company history > Acquisition Offices"},
		{"More prose follows.", "Company history > Acquisition Offices"},
	}
	if len(got) != len(want) {
		t.Fatalf("passages:\n%q\nwant\n%q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("passage %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		name, text      string
		names, contents []string
	}{
		{"question", "How far is Tokyo from Munich?", []string{"Tokyo", "Munich"}, []string{"far"}},
		{"identifiers and possessives", "What does TRV-117 say about Lena Vogt's flights?", []string{"TRV-117", "Lena", "Vogt"}, []string{"say", "flights"}},
		{"query of names", "Lufthansa Delhi Munich", []string{"Lufthansa", "Delhi", "Munich"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, c := split(terms(tc.text))
			if strings.Join(texts(n), ",") != strings.Join(tc.names, ",") || strings.Join(texts(c), ",") != strings.Join(tc.contents, ",") {
				t.Errorf("names %v content %v, want %v and %v", texts(n), texts(c), tc.names, tc.contents)
			}
		})
	}
	// in prose a capitalised word is a name only when it is not an ordinary word there
	n, _ := split(passageTerms("Flights are booked in economy. Acme flights leave Lisbon."))
	if strings.Join(texts(n), ",") != "Acme,Lisbon" {
		t.Errorf("passage names %v, want Acme, Lisbon", texts(n))
	}
}

func TestStemsAndSynonyms(t *testing.T) {
	have := stems("Engineering teams; business class is permitted for distances over 5,000 km")
	for _, w := range []string{"engineers", "team", "allowed", "far", "5000"} {
		if !have[key(strings.ToLower(w))] {
			t.Errorf("%q not matched in %v", w, have)
		}
	}
}
