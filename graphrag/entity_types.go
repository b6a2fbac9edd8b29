package graphrag

import (
	"fmt"
	"strings"
)

// DefaultEntityTypes are the kinds of entity the extraction prompt asks for when a workspace names none:
// LightRAG's ENTITY_TYPES, with the policies, laws and amounts the documents Hopwise is for are full of.
var DefaultEntityTypes = []string{"person", "organization", "location", "event", "product", "policy", "law",
	"concept", "date", "amount"}

// Bounds of an entity type list: what the prompt can carry and a model can keep apart.
const (
	maxEntityTypes   = 32
	maxEntityTypeLen = 24
)

// ParseEntityTypes reads a comma-separated list of entity types ("person, organization, city"): lower
// case, spaces inside a type become underscores, repeats are dropped. An empty list is the defaults; a type
// longer than the extraction schema allows for a type, or more than 32 types, is an error.
func ParseEntityTypes(list string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for t := range strings.SplitSeq(list, ",") {
		t = strings.Join(strings.Fields(strings.ToLower(t)), "_")
		if t == "" || seen[t] {
			continue
		}
		if len(t) > maxEntityTypeLen {
			return nil, fmt.Errorf("entity type %q is longer than %d characters", t, maxEntityTypeLen)
		}
		seen[t] = true
		out = append(out, t)
	}
	if len(out) > maxEntityTypes {
		return nil, fmt.Errorf("%d entity types: name at most %d", len(out), maxEntityTypes)
	}
	if len(out) == 0 {
		return append([]string(nil), DefaultEntityTypes...), nil
	}
	return out, nil
}
