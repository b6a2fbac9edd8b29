package graphrag

import (
	"math"
	"slices"
	"testing"
)

func TestPageRankFollowsTheSeeds(t *testing.T) {
	// seed - hub - a, hub - b; c is alone. The walk from the seed reaches the hub most, a and b alike,
	// never c; scores sum to 1.
	g := newWalkGraph()
	seed, hub, a, b, c := g.node("e:seed"), g.node("e:hub"), g.node("c:a"), g.node("c:b"), g.node("c:c")
	g.link(seed, hub, 1)
	g.link(hub, a, 1)
	g.link(hub, b, 1)
	reset := make([]float64, len(g.names))
	reset[seed] = 1
	score := g.pageRank(reset, 0.5, 100)
	sum := 0.0
	for _, s := range score {
		sum += s
	}
	if math.Abs(sum-1) > 1e-6 {
		t.Errorf("scores sum to %v, want 1", sum)
	}
	if !(score[seed] > score[hub] && score[hub] > score[a]) || math.Abs(score[a]-score[b]) > 1e-12 || score[c] != 0 {
		t.Errorf("scores seed %.3f hub %.3f a %.3f b %.3f c %.3f", score[seed], score[hub], score[a], score[b], score[c])
	}
	// A heavier edge carries more of the walk.
	g.link(hub, a, 4)
	score = g.pageRank(reset, 0.5, 100)
	if score[a] <= score[b] {
		t.Errorf("a (edge weight 5) %.4f not above b (weight 1) %.4f", score[a], score[b])
	}
	if got := g.pageRank(make([]float64, len(g.names)), 0.5, 10); slices.Max(got) != 0 {
		t.Errorf("no seed: scores %v, want all 0", got)
	}
}

func TestKeywordQueryDropsPossessives(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Who was Barry Wesson's father?", "Who was Barry Wesson father?"},
		{"the Beatles' first album", "the Beatles first album"},
		{"Munich’s airport, please.", "Munich airport, please."},
		{"it's", "it"},
		{"glass TRV-117 s", "glass TRV-117 s"},
	}
	for _, tt := range tests {
		if got := KeywordQuery(tt.in); got != tt.want {
			t.Errorf("KeywordQuery(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKeyVariantsAndSingular(t *testing.T) {
	for in, want := range map[string][]string{
		"Wesson":       {"wesson"},
		"cities":       {"cities", "city"},
		"films":        {"films", "film"},
		"glass":        {"glass"},
		"bus":          {"bus"},
		"Aschenbrödel": {"aschenbrodel"},
	} {
		if got := keyVariants(in); !slices.Equal(got, want) {
			t.Errorf("keyVariants(%q) = %v, want %v", in, got, want)
		}
	}
	if got := queryWords("Barry Wesson's son, Ibsen’s play"); !slices.Equal(got, []string{"Barry", "Wesson", "son", "Ibsen", "play"}) {
		t.Errorf("queryWords = %v", got)
	}
}

func TestConfidenceOfNames(t *testing.T) {
	if c := phraseConfidence([]string{"Midway"}, false); c != 1 {
		t.Errorf("a capitalised name: %v, want 1", c)
	}
	if c := phraseConfidence([]string{"country"}, false); c != commonNounConf {
		t.Errorf("a common noun: %v, want %v", c, commonNounConf)
	}
	if c := phraseConfidence([]string{"Who"}, true); c != commonNounConf {
		t.Errorf("the capital of a sentence's first word: %v, want %v", c, commonNounConf)
	}
	if c := nameConfidence(Entity{Name: "KAGH-FM"}); c != 1 {
		t.Errorf("entity KAGH-FM: %v", c)
	}
	if c := nameConfidence(Entity{Name: "author"}); c != commonNounConf {
		t.Errorf("entity author: %v", c)
	}
}

func TestFuseScoresScalesEachList(t *testing.T) {
	a := []ScoredChunk{{Chunk: Chunk{ID: "x"}, Score: 0.9}, {Chunk: Chunk{ID: "y"}, Score: 0.5}, {Chunk: Chunk{ID: "z"}, Score: 0.1}}
	b := []ScoredChunk{{Chunk: Chunk{ID: "z"}, Score: 30}, {Chunk: Chunk{ID: "y"}, Score: 20}}
	// x: 0.8*1; y: 0.8*0.5 + 0.2*0; z: 0.8*0 + 0.2*1.
	got := FuseScores([][]ScoredChunk{a, b}, []float64{0.8, 0.2}, 3)
	want := []struct {
		id    string
		score float64
	}{{"x", 0.8}, {"y", 0.4}, {"z", 0.2}}
	for i, w := range want {
		if got[i].ID != w.id || math.Abs(got[i].Score-w.score) > 1e-9 || got[i].Rank != i+1 {
			t.Errorf("result %d = %s %.3f rank %d, want %s %.3f", i, got[i].ID, got[i].Score, got[i].Rank, w.id, w.score)
		}
	}
}

func TestRerankByWalkAddsNoPassage(t *testing.T) {
	hybrid := sc("a", "b", "c", "d")
	walk := sc("w", "d", "c") // w is not among search's candidates
	got := rerankByWalk(hybrid, walk, 1, 4)
	var ids []string
	for _, c := range got {
		ids = append(ids, c.ID)
	}
	if !slices.Equal(ids, []string{"d", "c", "a", "b"}) {
		t.Errorf("reranked = %v, want d c a b (the walk's order lifts d and c, w stays out)", ids)
	}
}

func TestIdentifiersAndCodes(t *testing.T) {
	for q, want := range map[string]bool{"TRV-117": true, "flight LH2473": true, "EU261 rules": true, "IATA code AY": true,
		"Who founded Nexa AI?": true, "how far is Delhi": false} {
		if got := exactTerms(q); got != want {
			t.Errorf("exactTerms(%q) = %v, want %v", q, got, want)
		}
	}
	if HasIdentifier("Who founded Nexa AI?") {
		t.Error("an acronym is no identifier for HyDE")
	}
}

func TestBridgeQueriesFollowTheFactsToNewEntities(t *testing.T) {
	fact := func(src, srcName, typ, dst, dstName string) Fact {
		return Fact{Relation: Relation{Source: src, SourceName: srcName, Type: typ, Target: dst, TargetName: dstName}}
	}
	facts := []Fact{
		fact("green", "Green", "PERFORMED_BY", "steve hillage", "Steve Hillage"),
		fact("steve hillage", "Steve Hillage", "MEMBER_OF", "gong", "Gong"),      // Hillage already followed: Gong
		fact("green", "Green", "RELEASED_IN", "1978", "1978"),                    // a new end again
		fact("green", "Green", "GENRE", "rock", "rock"),                          // past bridgeFacts
		fact("x", "", "REL", "y", ""),                                            // no names: never a query
		fact("green", "Green", "PERFORMED_BY", "steve hillage", "Steve Hillage"), // no end left
	}
	linked := []LinkedEntity{{Entity: Entity{Key: "green", Name: "Green"}, Confidence: 1}}
	q := "Who is the spouse of the Green performer?"
	got := bridgeQueries([]Query{{Text: q}, {Text: "a sub-question"}}, facts, linked)
	want := []Query{
		{Text: "Steve Hillage", EmbedText: q + " Steve Hillage"},
		{Text: "Gong", EmbedText: q + " Gong"},
		{Text: "1978", EmbedText: q + " 1978"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("bridgeQueries = %q, want %q", got, want)
	}
	if got := bridgeQueries(nil, facts, linked); got != nil {
		t.Errorf("no query: %q, want none", got)
	}
	if got := bridgeQueries([]Query{{Text: q}}, facts[4:5], nil); got != nil {
		t.Errorf("facts without names: %q, want none", got)
	}
}
