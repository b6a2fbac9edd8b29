package neo4j

import "testing"

func TestLuceneQuery(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "plain words", in: "denied boarding", want: "denied boarding"},
		{name: "operators are words", in: "cats AND dogs OR NOT birds", want: "cats and dogs or not birds"},
		{name: "identifier is a phrase", in: "TRV-117", want: `"trv-117"`},
		{name: "every special character escaped", in: `a+b (c) [d] {e} f^2 "g" h~ i* j? k:l m\n o/p q&&r s||t !u`,
			want: `"a+b" \(c\) \[d\] \{e\} "f^2" \"g\" h\~ i\* j\? "k:l" "m\\n" "o/p" "q&&r" "s||t" \!u`},
		{name: "only special characters", in: `+-&& || !(){}[]^"~*?:\/`, want: ""},
		{name: "empty", in: "   ", want: ""},
		{name: "quote inside a compound word", in: `ab"cd`, want: `"ab\"cd"`},
		{name: "unicode letters", in: "Müller's café", want: `"müller's" café`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := luceneQuery(tt.in); got != tt.want {
				t.Errorf("luceneQuery(%q)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestLuceneQueryBoundsClauses(t *testing.T) {
	in := ""
	for range 2 * maxQueryWords {
		in += "word "
	}
	got := luceneQuery(in)
	if n := len(got) / len("word "); n > maxQueryWords {
		t.Errorf("query of %d words kept about %d clauses, want at most %d", 2*maxQueryWords, n, maxQueryWords)
	}
}
