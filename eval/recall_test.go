package eval

import (
	"strings"
	"testing"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
)

func TestPassDocuments(t *testing.T) {
	docs := func(names ...string) []agent.DocVerdict {
		var out []agent.DocVerdict
		for _, n := range names {
			out = append(out, agent.DocVerdict{DocName: n, Web: strings.HasPrefix(n, "http")})
		}
		return out
	}
	trace := []agent.Event{
		{Type: agent.EventDocuments, Docs: docs("a.md", "http://web", "a.md", "b.md", "c.md", "d.md", "late.md")},
		{Type: agent.EventFacts, Facts: []agent.FactRef{{ID: "f1"}, {ID: "f2"}}},
		{Type: agent.EventDocuments, Docs: docs("e.md", "b.md")},
		{Type: agent.EventFacts, Facts: []agent.FactRef{{ID: "f3"}}},
	}
	got := passDocuments(trace)
	if want := "a.md b.md c.md d.md e.md"; strings.Join(got, " ") != want {
		t.Errorf("passDocuments = %v, want %s (web pages skipped, 5 passages a pass)", got, want)
	}
	if n := factsUsed(trace); n != 3 {
		t.Errorf("factsUsed = %d, want 3", n)
	}
}

func TestRecall(t *testing.T) {
	tests := []struct {
		name       string
		gold, docs []string
		want       float64
		ok         bool
	}{
		{"all", []string{"a.md", "b.md"}, []string{"b.md", "x.md", "a.md"}, 1, true},
		{"half", []string{"a.md", "b.md"}, []string{"a.md"}, 0.5, true},
		{"by file name", []string{"a.md"}, []string{"/data/corpus/a.md"}, 1, true},
		{"none", []string{"a.md"}, nil, 0, true},
		{"no gold", nil, []string{"a.md"}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := recall(tc.gold, tc.docs)
			if got != tc.want || ok != tc.ok {
				t.Errorf("recall = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestChunkDocuments(t *testing.T) {
	chunk := func(id, doc string) graphrag.ScoredChunk {
		return graphrag.ScoredChunk{Chunk: graphrag.Chunk{ID: id, DocName: doc}}
	}
	list := []graphrag.ScoredChunk{chunk("c1", "a.md"), chunk("c2", "a.md"), chunk("c3", "dir/b.md"), chunk("c4", "c.md")}
	if got := chunkDocuments(list, 3); strings.Join(got, " ") != "a.md b.md" {
		t.Errorf("chunkDocuments(k=2) = %v", got)
	}
}
