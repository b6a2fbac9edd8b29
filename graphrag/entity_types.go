package graphrag

import (
	"context"
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

// EntityTypeSource gives the entity types a workspace's extraction asks for, read when each passage is
// extracted, so a change of the setting applies from the next passage on without a restart; none (nil) is
// the extractor's own types (the server's ENTITY_TYPES, else DefaultEntityTypes). auth.EntityTypeSource
// reads a workspace's setting.
type EntityTypeSource func(ctx context.Context) ([]string, error)

// WithEntityTypeSource makes the prompt ask for the types source gives at each passage, those of
// WithEntityTypes when it gives none. It returns x.
func (x *LLMExtractor) WithEntityTypeSource(source EntityTypeSource) *LLMExtractor {
	x.source = source
	return x
}

// typesNow are the types the prompt of a passage extracted now asks for. A setting that cannot be read
// fails the passage (the ingester retries it) rather than extracting it with types the workspace did not
// choose.
func (x *LLMExtractor) typesNow(ctx context.Context) ([]string, error) {
	if x.source == nil {
		return x.types, nil
	}
	types, err := x.source(ctx)
	if err != nil {
		return nil, fmt.Errorf("extract: the workspace's entity types: %w", err)
	}
	if len(types) == 0 {
		return x.types, nil
	}
	return types, nil
}
