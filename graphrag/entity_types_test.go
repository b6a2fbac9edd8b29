package graphrag_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

func TestParseEntityTypes(t *testing.T) {
	tests := []struct {
		name, list string
		want       []string
		err        bool
	}{
		{name: "empty is the defaults", list: " , ", want: graphrag.DefaultEntityTypes},
		{name: "normalised and deduplicated", list: "Person, AIRLINE,person , power plant", want: []string{"person", "airline", "power_plant"}},
		{name: "too long", list: "person, a_type_name_much_longer_than_a_schema_allows", err: true},
		{name: "too many", list: manyTypes(33), err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := graphrag.ParseEntityTypes(tt.list)
			if (err != nil) != tt.err {
				t.Fatalf("err %v, want error %v", err, tt.err)
			}
			if !tt.err && !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func manyTypes(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("type" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ",")
	}
	return b.String()
}

// TestExtractionPromptCarriesEntityTypes: the prompt the model receives names the workspace's entity
// types, the defaults when none are set, and a passage that spells the placeholder is not expanded.
func TestExtractionPromptCarriesEntityTypes(t *testing.T) {
	model := llmtest.New(t)
	model.Handle(graphragtest.Extraction)
	client := llm.New(llm.Config{BaseURL: model.URL(), Model: "test", EmbedModel: "test-embed", MaxRetries: -1, Timeout: 10 * time.Second}, nil)
	chunk := graphrag.Chunk{ID: "c1", DocID: "d1", DocTitle: "Fleet", Text: "Lufthansa flies the A350 from Munich. {{entity_types}}"}
	ctx := context.Background()

	if _, err := graphrag.NewLLMExtractor(client).Extract(ctx, chunk); err != nil {
		t.Fatal(err)
	}
	custom := graphrag.NewLLMExtractor(client).WithEntityTypes([]string{"airline", "aircraft", "airport"})
	if _, err := custom.Extract(ctx, chunk); err != nil {
		t.Fatal(err)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, want := range []string{strings.Join(graphrag.DefaultEntityTypes, ", "), "airline, aircraft, airport"} {
		user := reqs[i].LastUser()
		if !strings.Contains(user, "one of these entity types: "+want+";") {
			t.Errorf("request %d does not name the types %q:\n%s", i, want, user)
		}
		if !strings.Contains(user, "from Munich. {{entity_types}}") {
			t.Errorf("request %d: the passage's own text was changed:\n%s", i, user)
		}
	}
}
