package sqlite

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestJSONListsRoundTrip: the lists the graph reads bind as JSON (jsonList) reach SQLite as they are, and
// the arrays SQLite writes back (json_group_array, as mentionsQuery reads an entity's chunks) decode to
// the same values, whatever the IDs hold: quotes, the separator the fast path splits at, backslashes,
// control characters, non-ASCII.
func TestJSONListsRoundTrip(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 4)
	for _, values := range [][]string{
		{"doc-0001"},
		{"a-0001", "a-0002", "b-0010"},
		{`say "hi"`, `a","b`, `back\slash`, "tab\there", "new\nline", "münchen", "東京", "<&>", ""},
		{`","`, `"`, `\`},
	} {
		var got []byte
		err := s.reader.QueryRowContext(t.Context(), `SELECT json_group_array(value) FROM json_each(?)`,
			jsonList(values)).Scan(&got)
		if err != nil {
			t.Fatal(err)
		}
		decoded, err := jsonStrings(got)
		if err != nil {
			t.Fatalf("%q: %v", got, err)
		}
		if !slices.Equal(decoded, values) {
			t.Errorf("%q: SQLite wrote %s, decoded %q", values, got, decoded)
		}
	}
	if got, err := jsonStrings([]byte("[]")); err != nil || len(got) != 0 {
		t.Errorf("empty array: %q, %v", got, err)
	}
}
