package eval

import (
	"fmt"
	"strings"

	"github.com/hopwise/hopwise/agent"
)

// Pipeline is one way of answering: the naive baseline, or the research loop with a set of techniques.
type Pipeline struct {
	Name       string
	Naive      bool
	Techniques agent.Techniques // for the loop
}

// Pipeline names.
const (
	Naive    = "naive"
	Advanced = "advanced"
)

// ablations switch one technique off each.
var ablations = []struct {
	name string
	off  func(*agent.Techniques)
}{
	{"no-graph", func(t *agent.Techniques) { t.Graph = false }},
	{"no-multiquery", func(t *agent.Techniques) { t.MultiQuery = false }},
	{"no-hyde", func(t *agent.Techniques) { t.HyDE = false }},
	{"no-grading", func(t *agent.Techniques) { t.Grading = false }},
	{"no-audit", func(t *agent.Techniques) { t.Audit = false }},
	{"no-web", func(t *agent.Techniques) { t.WebFallback = false }},
	{"no-rerank", func(t *agent.Techniques) { t.Rerank = false }},
}

// PipelineNames lists every pipeline name ParsePipelines accepts besides "all".
func PipelineNames() []string {
	out := []string{Naive, Advanced}
	for _, a := range ablations {
		out = append(out, a.name)
	}
	return out
}

// ParsePipelines reads a comma-separated list of pipeline names ("all" means every one); base is the
// advanced pipeline's techniques, which the ablations switch off one at a time.
func ParsePipelines(list string, base agent.Techniques) ([]Pipeline, error) {
	var out []Pipeline
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" || seen[name] {
			continue
		}
		if name == "all" {
			rest, _ := ParsePipelines(strings.Join(PipelineNames(), ","), base)
			for _, p := range rest {
				if !seen[p.Name] {
					seen[p.Name] = true
					out = append(out, p)
				}
			}
			continue
		}
		p, err := pipeline(name, base)
		if err != nil {
			return nil, err
		}
		seen[name] = true
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("eval: no pipeline named; choose from %s or all", strings.Join(PipelineNames(), ", "))
	}
	return out, nil
}

func pipeline(name string, base agent.Techniques) (Pipeline, error) {
	switch name {
	case Naive:
		return Pipeline{Name: Naive, Naive: true, Techniques: base}, nil
	case Advanced:
		return Pipeline{Name: Advanced, Techniques: base}, nil
	}
	for _, a := range ablations {
		if a.name == name {
			t := base
			a.off(&t)
			return Pipeline{Name: name, Techniques: t}, nil
		}
	}
	return Pipeline{}, fmt.Errorf("eval: unknown pipeline %q; choose from %s or all", name, strings.Join(PipelineNames(), ", "))
}
