package eval

import (
	"strings"
	"testing"

	"github.com/hopwise/hopwise/agent"
)

func TestParsePipelines(t *testing.T) {
	base := agent.DefaultTechniques()
	base.HyDE = true
	tests := []struct {
		name    string
		list    string
		want    []string
		wantErr string
	}{
		{"default", "naive,advanced", []string{"naive", "advanced"}, ""},
		{"spaces, case and repeats", " Naive , advanced,naive,", []string{"naive", "advanced"}, ""},
		{"all", "all", PipelineNames(), ""},
		{"all after one", "no-audit,all", append([]string{"no-audit", "naive", "advanced"}, without(PipelineNames()[2:], "no-audit")...), ""},
		{"unknown", "naive,fancy", nil, `unknown pipeline "fancy"`},
		{"empty", " , ", nil, "no pipeline named"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePipelines(tc.list, base)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range got {
				names = append(names, p.Name)
			}
			if strings.Join(names, ",") != strings.Join(tc.want, ",") {
				t.Errorf("pipelines %v, want %v", names, tc.want)
			}
		})
	}
}

func without(list []string, drop string) []string {
	var out []string
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}

// TestAblationsSwitchOneTechnique checks that each ablation differs from advanced in exactly its technique.
func TestAblationsSwitchOneTechnique(t *testing.T) {
	base := agent.Techniques{Decide: true, MultiQuery: true, HyDE: true, Graph: true, Grading: true, Audit: true, WebFallback: true, Rerank: true}
	ps, err := ParsePipelines("all", base)
	if err != nil {
		t.Fatal(err)
	}
	off := map[string]func(agent.Techniques) bool{
		"no-decide":     func(x agent.Techniques) bool { return !x.Decide },
		"no-graph":      func(x agent.Techniques) bool { return !x.Graph },
		"no-multiquery": func(x agent.Techniques) bool { return !x.MultiQuery },
		"no-hyde":       func(x agent.Techniques) bool { return !x.HyDE },
		"no-grading":    func(x agent.Techniques) bool { return !x.Grading },
		"no-audit":      func(x agent.Techniques) bool { return !x.Audit },
		"no-web":        func(x agent.Techniques) bool { return !x.WebFallback },
		"no-rerank":     func(x agent.Techniques) bool { return !x.Rerank },
	}
	for _, p := range ps {
		switch p.Name {
		case Naive:
			if !p.Naive {
				t.Errorf("naive is not the baseline")
			}
		case Advanced:
			if p.Techniques != base || p.Naive {
				t.Errorf("advanced = %+v, want the base techniques", p)
			}
		default:
			check, ok := off[p.Name]
			if !ok {
				t.Fatalf("unexpected pipeline %s", p.Name)
			}
			if !check(p.Techniques) {
				t.Errorf("%s keeps its technique on: %+v", p.Name, p.Techniques)
			}
			if countOn(p.Techniques) != countOn(base)-1 {
				t.Errorf("%s switches off more than one technique: %+v", p.Name, p.Techniques)
			}
		}
	}
}

func countOn(x agent.Techniques) int {
	n := 0
	for _, b := range []bool{x.Decide, x.MultiQuery, x.HyDE, x.Graph, x.Grading, x.Audit, x.WebFallback, x.Rerank} {
		if b {
			n++
		}
	}
	return n
}
