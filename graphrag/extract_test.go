package graphrag

import "testing"

func TestResolveExtraction(t *testing.T) {
	g := extractedGraph{
		Entities: []extractedEntity{
			{Name: "Munich", Type: "City", Description: "capital of Bavaria"},
			{Name: "munich", Type: "city", Description: "a city in Germany, capital of Bavaria"},
			{Name: "Delhi", Type: "city"},
		},
		Relations: []extractedRelation{
			{Source: "Munich", Target: "Delhi", Type: "distance from", Values: []extractedValue{{Name: "distance km", Value: "5,921"}}},
			{Source: "Munich", Target: "Munich", Type: "same"},
			{Source: "Lufthansa AG", Target: "Germany", Type: "licensed in"},
		},
	}
	x := g.resolve(Chunk{ID: "c1", DocID: "d1"})
	if x.ChunkID != "c1" {
		t.Fatalf("chunk id %q", x.ChunkID)
	}
	keys := map[string]Entity{}
	for _, e := range x.Entities {
		keys[e.Key] = e
	}
	if len(keys) != 4 || len(x.Entities) != 4 {
		t.Fatalf("entities %v, want munich, delhi, lufthansa, germany", keys)
	}
	m := keys["munich"]
	if m.Description != "a city in Germany, capital of Bavaria" || len(m.Aliases) != 2 || m.Type != "city" {
		t.Errorf("munich merged wrong: %+v", m)
	}
	if len(x.Relations) != 2 {
		t.Fatalf("relations %+v, want 2 (self-loop dropped)", x.Relations)
	}
	r := x.Relations[0]
	if r.Type != "DISTANCE_FROM" || r.Values["distance_km"] != 5921.0 || r.ID != RelationID("munich", "DISTANCE_FROM", "delhi") {
		t.Errorf("distance relation wrong: %+v", r)
	}
	if r.ChunkIDs[0] != "c1" || r.DocIDs[0] != "d1" {
		t.Errorf("provenance missing: %+v", r)
	}
	if x.Relations[1].Source != "lufthansa" {
		t.Errorf("relation end not resolved to key: %+v", x.Relations[1])
	}
}

func TestExtractedGraphValidate(t *testing.T) {
	bad := extractedGraph{Entities: []extractedEntity{{Name: " "}}, Relations: []extractedRelation{{Source: "a"}}}
	if err := bad.Validate(); err == nil {
		t.Fatal("want errors for empty name and missing target")
	}
	if err := (extractedGraph{}).Validate(); err != nil {
		t.Fatalf("empty graph is valid: %v", err)
	}
}
