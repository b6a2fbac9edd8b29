package eval

import (
	"fmt"
	"slices"
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

// ablations switch one technique off each: "no-" and the technique's name.
var ablations = func() []string {
	out := make([]string, len(agent.TechniqueNames))
	for i, name := range agent.TechniqueNames {
		out[i] = "no-" + name
	}
	return out
}()

// PipelineNames lists every pipeline name ParsePipelines accepts besides "all".
func PipelineNames() []string {
	out := []string{Naive, Advanced}
	return append(out, ablations...)
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
	if slices.Contains(ablations, name) {
		t := base
		if err := t.Set(strings.TrimPrefix(name, "no-"), false); err != nil {
			return Pipeline{}, err
		}
		return Pipeline{Name: name, Techniques: t}, nil
	}
	return Pipeline{}, fmt.Errorf("eval: unknown pipeline %q; choose from %s or all", name, strings.Join(PipelineNames(), ", "))
}
