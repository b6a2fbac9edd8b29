package sqlite

import "testing"

func TestFTSQuery(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"only punctuation", `" ( ) * - ^ : ;`, ""},
		{"plain words", "Meal limit", `"meal" OR "limit"`},
		{"identifier becomes a phrase", "TRV-117", `"trv 117"`},
		{"long identifier", "FIN-EXP-2024-07", `"fin exp 2024 07"`},
		{"question with identifier", "What is POL-HR-0042?", `"pol hr 0042"`},
		{"operators are words", "x AND y OR NOT z NEAR", `"x" OR "y" OR "not" OR "z" OR "near"`},
		{"stop words dropped", "How much can I receive for denied boarding?", `"much" OR "receive" OR "denied" OR "boarding"`},
		{"only stop words kept", "The Who", `"the" OR "who"`},
		{"stop word inside an identifier kept", "A-1", `"a 1"`},
		{"quotes and column filters", `"meals" text:hotel`, `"meals" OR "text hotel"`},
		{"prefix and negation", "trv* -x", `"trv" OR "x"`},
		{"repeats once", "munich Munich MUNICH", `"munich"`},
		{"injection", `'; DROP TABLE chunks; --`, `"drop" OR "table" OR "chunks"`},
		{"upper case folded before the stop list", "WHAT IS TRV", `"trv"`},
		{"diacritics kept for the tokenizer", "München", `"münchen"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ftsQuery(tc.in); got != tc.want {
				t.Errorf("ftsQuery(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestFTSQueryCapsTerms(t *testing.T) {
	in := ""
	for i := range 100 {
		in += string(rune('a'+i%26)) + string(rune('a'+i/26)) + " "
	}
	got := ftsQuery(in)
	terms := 1
	for i := 0; i+4 <= len(got); i++ {
		if got[i:i+4] == " OR " {
			terms++
		}
	}
	if terms != maxQueryTerms {
		t.Errorf("ftsQuery of 100 words has %d terms, want %d", terms, maxQueryTerms)
	}
}
