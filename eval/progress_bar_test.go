package eval

import (
	"strings"
	"testing"
)

func TestBar(t *testing.T) {
	tests := []struct {
		name  string
		tty   bool
		wants []string
	}{
		{"terminal: one line redrawn, ended when done", true, []string{"\r\033[K[###############...............] 1/2 naive F01 ok eta", "\r\033[K[##############################] 2/2 advanced F01 error", " in "}},
		{"file: a plain line per outcome", false, []string{"eval 1/2 naive F01 ok (1 calls, 0.2s) eta", "eval 2/2 advanced F01 error (3 calls, 1.5s)\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			bar := NewBar(&b, tc.tty)
			bar.Update(Progress{Done: 1, Total: 2, Outcome: Outcome{Pipeline: "naive", ID: "F01", Verdict: Verdict{Correct: true}, Calls: 1, Seconds: 0.2}})
			bar.Update(Progress{Done: 2, Total: 2, Outcome: Outcome{Pipeline: "advanced", ID: "F01", Calls: 3, Seconds: 1.5, Error: "boom"}})
			out := b.String()
			for _, w := range tc.wants {
				if !strings.Contains(out, w) {
					t.Errorf("output %q lacks %q", out, w)
				}
			}
			if tc.tty && strings.Count(out, "\n") != 1 {
				t.Errorf("terminal output %q: want one newline, at the end", out)
			}
		})
	}
}
