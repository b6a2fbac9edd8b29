package graphrag

import (
	"errors"
	"reflect"
	"testing"
)

func TestMergeEntity(t *testing.T) {
	stored := Entity{Key: "munchen", Name: "München", Type: "city", Description: "慕尼黑是巴伐利亚州首府",
		Aliases: []string{"München"}, ChunkIDs: []string{"c1"}, DocIDs: []string{"d1"}}
	tests := []struct {
		name          string
		stored, e     Entity
		want          Entity
		wantUnchanged bool
	}{
		{
			name: "new entity takes its name, key as name when it has none",
			e:    Entity{Key: "delhi", Type: "city", Description: "capital", ChunkIDs: []string{"c2"}},
			want: Entity{Key: "delhi", Name: "delhi", Type: "city", Description: "capital", Aliases: []string{"delhi"}, ChunkIDs: []string{"c2"}},
		},
		{
			name:   "more characters win though fewer bytes",
			stored: stored,
			e:      Entity{Key: "munchen", Name: "Munich", Type: "place", Description: "capital of Bavaria, Germany", ChunkIDs: []string{"c2", "c1"}, DocIDs: []string{"d2"}},
			want: Entity{Key: "munchen", Name: "München", Type: "city", Description: "capital of Bavaria, Germany",
				Aliases: []string{"Munich", "München"}, ChunkIDs: []string{"c1", "c2"}, DocIDs: []string{"d1", "d2"}},
		},
		{
			name:   "fewer characters lose though more bytes",
			stored: stored,
			e:      Entity{Key: "munchen", Name: "München", Description: "ミュンヘン"},
			want:   stored, wantUnchanged: true,
		},
		{
			name:   "a tie keeps the stored description",
			stored: Entity{Key: "k", Name: "K", Description: "abc", Aliases: []string{"K"}},
			e:      Entity{Key: "k", Name: "K", Description: "äbc"},
			want:   Entity{Key: "k", Name: "K", Description: "abc", Aliases: []string{"K"}}, wantUnchanged: true,
		},
		{
			name:   "an empty stored type is filled",
			stored: Entity{Key: "k", Name: "K", Aliases: []string{"K"}},
			e:      Entity{Key: "k", Name: "k", Type: "org", Aliases: []string{"K Corp", ""}},
			want:   Entity{Key: "k", Name: "K", Type: "org", Aliases: []string{"K", "K Corp", "k"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := MergeEntity(tc.stored, tc.e)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("MergeEntity =\n %+v, want\n %+v", got, tc.want)
			}
			if same := SameEntity(tc.stored, got); same != tc.wantUnchanged {
				t.Errorf("SameEntity(stored, merged) = %v, want %v", same, tc.wantUnchanged)
			}
			if again := MergeEntity(got, tc.e); !reflect.DeepEqual(again, got) {
				t.Errorf("merging the same entity again changed it: %+v", again)
			}
		})
	}
}

func TestMergeRelation(t *testing.T) {
	stored := Relation{ID: "r1", Source: "munchen", Target: "zurich", SourceName: "München", TargetName: "Zürich",
		Type: "DISTANCE_TO", Description: "慕尼黑到苏黎世", Values: map[string]any{"distance_km": 242.0, "mode": "road"},
		ChunkIDs: []string{"c1"}, DocIDs: []string{"d1"}, Embedding: []float32{1, 0}}
	tests := []struct {
		name      string
		stored, r Relation
		want      Relation
	}{
		{
			name: "new relation without a type is RELATED_TO",
			r:    Relation{ID: "r2", Source: "a", Target: "b", Description: "a to b", ChunkIDs: []string{"c1"}},
			want: Relation{ID: "r2", Source: "a", Target: "b", Type: "RELATED_TO", Description: "a to b", Values: map[string]any{}, ChunkIDs: []string{"c1"}},
		},
		{
			name:   "ends and type stay, values overlaid, more characters win, stored vector kept",
			stored: stored,
			r: Relation{ID: "r1", Source: "x", Target: "y", Type: "NEAR", Description: "Munich to Zurich by road",
				Values: map[string]any{"mode": "rail"}, ChunkIDs: []string{"c2"}, DocIDs: []string{"d1"}},
			want: Relation{ID: "r1", Source: "munchen", Target: "zurich", SourceName: "München", TargetName: "Zürich",
				Type: "DISTANCE_TO", Description: "Munich to Zurich by road", Values: map[string]any{"distance_km": 242.0, "mode": "rail"},
				ChunkIDs: []string{"c1", "c2"}, DocIDs: []string{"d1"}, Embedding: []float32{1, 0}},
		},
		{
			name:   "a new vector replaces the stored one; fewer characters lose though more bytes",
			stored: stored,
			r:      Relation{ID: "r1", Description: "ミュンヘン", Embedding: []float32{0, 1}},
			want: Relation{ID: "r1", Source: "munchen", Target: "zurich", SourceName: "München", TargetName: "Zürich",
				Type: "DISTANCE_TO", Description: "慕尼黑到苏黎世", Values: map[string]any{"distance_km": 242.0, "mode": "road"},
				ChunkIDs: []string{"c1"}, DocIDs: []string{"d1"}, Embedding: []float32{0, 1}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := MergeRelation(tc.stored, tc.r); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("MergeRelation =\n %+v, want\n %+v", got, tc.want)
			}
		})
	}
	if stored.Values["mode"] != "road" {
		t.Error("MergeRelation changed the stored relation's values")
	}
}

func TestPlanExtraction(t *testing.T) {
	r := Relation{ID: "r1", Source: "delhi", Target: "munchen", SourceName: "Delhi", TargetName: "München", Type: "DISTANCE_FROM",
		Description: "far", Values: map[string]any{"km": 5921.0}, ChunkIDs: []string{"c9"}}
	x := Extraction{ChunkID: "c1",
		Entities: []Entity{
			{Key: "munchen", Name: "München", Description: "city"},
			{Key: "munchen", Name: "Munich", Type: "city", Description: "Bavarian capital"},
		},
		Relations: []Relation{r, {ID: "r1", Source: "delhi", Target: "munchen", Values: map[string]any{"unit": "km"}}},
	}
	got, err := PlanExtraction(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := ExtractionPlan{ChunkID: "c1",
		Entities: []PlannedEntity{
			{Entity: Entity{Key: "delhi", Name: "Delhi", Aliases: []string{"Delhi"}, ChunkIDs: []string{"c1", "c9"}}, EndOnly: true},
			{Entity: Entity{Key: "munchen", Name: "München", Type: "city", Description: "Bavarian capital",
				Aliases: []string{"Munich", "München"}, ChunkIDs: []string{"c1", "c9"}}},
		},
		Relations: []Relation{{ID: "r1", Source: "delhi", Target: "munchen", SourceName: "Delhi", TargetName: "München",
			Type: "DISTANCE_FROM", Description: "far", Values: map[string]any{"km": 5921.0, "unit": "km"}, ChunkIDs: []string{"c1", "c9"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PlanExtraction =\n %+v, want\n %+v", got, want)
	}

	for _, bad := range []Extraction{
		{ChunkID: "c1", Entities: []Entity{{Name: "Munich"}}},
		{ChunkID: "c1", Relations: []Relation{{Source: "a", Target: "b"}}},
		{ChunkID: "c1", Relations: []Relation{{ID: "r", Source: "a"}}},
	} {
		if _, err := PlanExtraction(bad, 2); !errors.Is(err, ErrUnresolved) {
			t.Errorf("PlanExtraction(%+v) err = %v, want ErrUnresolved", bad, err)
		}
	}
	r.Embedding = []float32{1, 0, 0}
	if _, err := PlanExtraction(Extraction{ChunkID: "c1", Relations: []Relation{r}}, 2); !errors.Is(err, ErrDimension) {
		t.Errorf("a vector of 3 dimensions into a store of 2: err = %v, want ErrDimension", err)
	}
}
