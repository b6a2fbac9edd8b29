package eval

import (
	"strings"
	"testing"
)

func TestReadSet(t *testing.T) {
	tests := []struct {
		name, in string
		wantN    int
		wantErr  string
	}{
		{"two questions and a blank line", `{"id":"F01","category":"factual","question":"Q?","answer_must_contain":[["250"]],"gold_docs":["a.md"],"answer_must_not_contain":["400","600"]}

{"id":"U01","category":"unanswerable","question":"Q2?","answer_must_contain":[],"gold_docs":[]}`, 2, ""},
		{"bad JSON", `{"id":`, 0, "line 1"},
		{"missing question", `{"id":"F01","category":"factual"}`, 0, "id and question are required"},
		{"empty", "\n\n", 0, "empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadSet(strings.NewReader(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(got) != tc.wantN {
				t.Fatalf("got %d questions, err %v; want %d", len(got), err, tc.wantN)
			}
			if got[0].AnswerMustContain[0][0] != "250" || got[0].GoldDocs[0] != "a.md" || len(got[0].AnswerMustNotContain) != 2 || got[1].Category != Unanswerable {
				t.Errorf("fields not read: %+v", got)
			}
		})
	}
}
