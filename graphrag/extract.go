package graphrag

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hopwise/hopwise/llm"
)

// ChunkExtractor finds the entities and relations of one chunk. It may call a model; its result is then
// written by the store in a transaction that does not.
type ChunkExtractor interface {
	Extract(ctx context.Context, c Chunk) (Extraction, error)
}

var (
	//go:embed prompts/extract_system.txt
	extractSystem string
	//go:embed prompts/extract_user.txt
	extractUser string
)

// LLMExtractor extracts with a chat model through a JSON schema.
type LLMExtractor struct {
	client *llm.Client
	types  []string
	source EntityTypeSource // the workspace's setting, read at each passage (entity_types.go); nil: types
}

// NewLLMExtractor returns an extractor that asks client for entities of DefaultEntityTypes.
func NewLLMExtractor(client *llm.Client) *LLMExtractor {
	return &LLMExtractor{client: client, types: DefaultEntityTypes}
}

// WithEntityTypes makes the prompt ask for entities of these types (ParseEntityTypes reads a setting's
// list); none keeps the defaults. It returns x.
func (x *LLMExtractor) WithEntityTypes(types []string) *LLMExtractor {
	if len(types) > 0 {
		x.types = types
	}
	return x
}

// EntityTypes are the types the prompt asks for.
func (x *LLMExtractor) EntityTypes() []string { return x.types }

// extractedGraph is the JSON the model answers with.
type extractedGraph struct {
	Entities  []extractedEntity   `json:"entities" maxItems:"16"`
	Relations []extractedRelation `json:"relations" maxItems:"16"`
}

type extractedEntity struct {
	Name        string `json:"name" maxLength:"48" minLength:"1"`
	Type        string `json:"type" maxLength:"24"`
	Description string `json:"description,omitempty" maxLength:"80"`
}

type extractedRelation struct {
	Source      string           `json:"source" maxLength:"48" minLength:"1"`
	Target      string           `json:"target" maxLength:"48" minLength:"1"`
	Type        string           `json:"type" maxLength:"24"`
	Description string           `json:"description,omitempty" maxLength:"80"`
	Values      []extractedValue `json:"values,omitempty" maxItems:"2"`
}

type extractedValue struct {
	Name  string `json:"name" maxLength:"24"`
	Value string `json:"value" maxLength:"32"`
}

// Validate rejects answers a graph cannot be built from.
func (g extractedGraph) Validate() error {
	var errs []error
	for i, e := range g.Entities {
		if strings.TrimSpace(e.Name) == "" {
			errs = append(errs, fmt.Errorf("entities[%d].name is empty", i))
		}
	}
	for i, r := range g.Relations {
		if strings.TrimSpace(r.Source) == "" || strings.TrimSpace(r.Target) == "" {
			errs = append(errs, fmt.Errorf("relations[%d] needs both source and target", i))
		}
	}
	return errors.Join(errs...)
}

// Extract asks the model once; llm.Structured repairs invalid answers up to twice. The ingester retries a
// failed chunk once more before recording it as failed.
func (x *LLMExtractor) Extract(ctx context.Context, c Chunk) (Extraction, error) {
	types, err := x.typesNow(ctx)
	if err != nil {
		return Extraction{}, err
	}
	user := x.userPrompt(c, types)
	g, err := llm.Structured[extractedGraph](ctx, x.client, llm.Request{
		Purpose:  "extract",
		Messages: []llm.Message{{Role: "system", Content: extractSystem}, {Role: "user", Content: user}},
		// A chunk's graph fits. Where the schema drives a grammar (llama.cpp), its bounds keep even a model
		// stuck repeating one relation within this (16 of each, short strings: about 1,800 tokens at most).
		MaxTokens: 2000,
	})
	if err != nil {
		return Extraction{}, err
	}
	return g.resolve(c), nil
}

// userPrompt is the extraction prompt for c. The passage goes in last, so that nothing it holds can be
// read as the prompt's own placeholders, and so that every extraction call starts with the same text: a
// local server that reuses the longest prefix it has already read (llama.cpp) then reads only the passage.
func (x *LLMExtractor) userPrompt(c Chunk, types []string) string {
	p := strings.ReplaceAll(extractUser, "{{entity_types}}", strings.Join(types, ", "))
	return strings.NewReplacer("{{title}}", c.DocTitle, "{{text}}", c.Text).Replace(p)
}

// resolve turns the model's names into entity keys and relation IDs, with the chunk as provenance.
// Relations whose ends the model did not list as entities create those entities; self-loops are dropped.
func (g extractedGraph) resolve(c Chunk) Extraction {
	x := Extraction{ChunkID: c.ID}
	index := map[string]int{}
	addEntity := func(name, typ, desc string) string {
		name = strings.TrimSpace(name)
		key := NormalizeKey(name)
		if key == "" {
			return ""
		}
		e := Entity{Key: key, Name: name, Type: strings.ToLower(strings.TrimSpace(typ)), Description: strings.TrimSpace(desc),
			ChunkIDs: []string{c.ID}, DocIDs: []string{c.DocID}}
		if i, ok := index[key]; ok {
			x.Entities[i] = MergeEntity(x.Entities[i], e)
			return key
		}
		index[key] = len(x.Entities)
		x.Entities = append(x.Entities, MergeEntity(Entity{}, e))
		return key
	}
	for _, e := range g.Entities {
		addEntity(e.Name, e.Type, e.Description)
	}
	seen := map[string]int{}
	for _, r := range g.Relations {
		src, dst := addEntity(r.Source, "", ""), addEntity(r.Target, "", "")
		if src == "" || dst == "" || src == dst {
			continue
		}
		typ := NormalizeRelationType(r.Type)
		id := RelationID(src, typ, dst)
		rel := Relation{
			ID: id, Source: src, Target: dst, Type: typ, Description: strings.TrimSpace(r.Description),
			SourceName: x.Entities[index[src]].Name, TargetName: x.Entities[index[dst]].Name,
			Values: parseValues(r.Values), ChunkIDs: []string{c.ID}, DocIDs: []string{c.DocID},
		}
		if i, ok := seen[id]; ok {
			x.Relations[i] = MergeRelation(x.Relations[i], rel)
			continue
		}
		seen[id] = len(x.Relations)
		x.Relations = append(x.Relations, MergeRelation(Relation{}, rel))
	}
	return x
}

// parseValues keeps numbers as numbers ("5,921" -> 5921) so they compare and format as values, not text.
func parseValues(vs []extractedValue) map[string]any {
	out := map[string]any{}
	for _, v := range vs {
		name := strings.ToLower(strings.Join(strings.Fields(strings.TrimSpace(v.Name)), "_"))
		val := strings.TrimSpace(v.Value)
		if name == "" || val == "" {
			continue
		}
		if f, err := strconv.ParseFloat(strings.ReplaceAll(val, ",", ""), 64); err == nil {
			out[name] = f
			continue
		}
		out[name] = val
	}
	return out
}
