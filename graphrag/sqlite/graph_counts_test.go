package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// checkGraphCounts fails t unless every relation's support and every entity's mention and relation
// counts, which triggers keep (migrations 16 and 17), equal a fresh count of relation_chunks, mentions and
// relations.
func checkGraphCounts(t *testing.T, s *Store) {
	t.Helper()
	for _, c := range []struct{ what, query string }{
		{"relation support", `SELECT r.id, r.support, (SELECT count(*) FROM relation_chunks rc WHERE rc.relation_id = r.id) AS n
			FROM relations r WHERE r.support <> n ORDER BY r.id LIMIT 10`},
		{"entity mention count", `SELECT e.key, e.mention_count, (SELECT count(*) FROM mentions m WHERE m.entity_key = e.key) AS n
			FROM entities e WHERE e.mention_count <> n ORDER BY e.key LIMIT 10`},
		{"entity relation count", `SELECT e.key, e.relation_count, (SELECT count(*) FROM relations r WHERE r.source = e.key) +
			(SELECT count(*) FROM relations r WHERE r.target = e.key) AS n
			FROM entities e WHERE e.relation_count <> n ORDER BY e.key LIMIT 10`},
	} {
		rows, err := s.reader.QueryContext(context.Background(), c.query) // t.Context() is done in a cleanup
		if err != nil {
			t.Errorf("%s: %v", c.what, err)
			continue
		}
		var wrong []string
		for rows.Next() {
			var id string
			var kept, counted int
			if err := rows.Scan(&id, &kept, &counted); err != nil {
				t.Errorf("%s: %v", c.what, err)
				break
			}
			wrong = append(wrong, fmt.Sprintf("%s: %d, counted %d", id, kept, counted))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Errorf("%s: %v", c.what, err)
		}
		if len(wrong) > 0 {
			t.Errorf("%s kept by the triggers differs from a fresh count: %s", c.what, wrong)
		}
	}
}

// TestGraphCountsFollowWrites: the counts a walk ranks and weighs by follow extractions that add support and
// mentions, extractions repeated, a second document and its deletion, a relation of an entity with itself (TestStoreContract checks them after
// every contract case as well: replaces, merges, splits, edits, undo, re-extraction).
func TestGraphCountsFollowWrites(t *testing.T) {
	ctx := t.Context()
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 4)
	rel := graphrag.RelationID("delhi", "DISTANCE_FROM", "munich")
	want := func(step string, support, munich, delhi int) {
		t.Helper()
		checkGraphCounts(t, s)
		var gotSupport, gotMunich, gotDelhi int
		err := s.reader.QueryRowContext(ctx, `SELECT coalesce((SELECT support FROM relations WHERE id = ?), 0),
			coalesce((SELECT mention_count FROM entities WHERE key = 'munich'), 0),
			coalesce((SELECT mention_count FROM entities WHERE key = 'delhi'), 0)`, rel).Scan(&gotSupport, &gotMunich, &gotDelhi)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if gotSupport != support || gotMunich != munich || gotDelhi != delhi {
			t.Errorf("%s: support %d, munich mentioned %d, delhi %d; want %d, %d, %d", step, gotSupport, gotMunich, gotDelhi,
				support, munich, delhi)
		}
	}
	a := fill(t, s, "a.txt")
	want("one document", 1, 1, 1)
	second := graphrag.Extraction{ChunkID: a[1], Entities: []graphrag.Entity{{Key: "munich", Name: "Munich"}, {Key: "delhi", Name: "Delhi"}},
		Relations: []graphrag.Relation{{ID: rel, Source: "delhi", Target: "munich", Type: "DISTANCE_FROM"}}}
	for _, step := range []string{"a second chunk supports it", "the same extraction again"} {
		if err := s.PutExtraction(ctx, second); err != nil {
			t.Fatal(err)
		}
		want(step, 2, 2, 2)
	}
	b := fill(t, s, "b.txt")
	want("a second document", 3, 3, 3)
	chunks, err := s.Chunks(ctx, b[:1])
	if err != nil || len(chunks) != 1 {
		t.Fatalf("Chunks(%v) = %v, %v", b[:1], chunks, err)
	}
	if err := s.DeleteDocument(ctx, chunks[0].DocID); err != nil {
		t.Fatal(err)
	}
	want("the second document deleted", 2, 2, 2)
	// an entity related to itself counts the relation as source and as target (migration 17)
	self := graphrag.Extraction{ChunkID: a[1], Entities: []graphrag.Entity{{Key: "munich", Name: "Munich"}},
		Relations: []graphrag.Relation{{ID: graphrag.RelationID("munich", "TWINNED_WITH", "munich"), Source: "munich",
			Target: "munich", Type: "TWINNED_WITH"}}}
	if err := s.PutExtraction(ctx, self); err != nil {
		t.Fatal(err)
	}
	checkGraphCounts(t, s)
	var munichRelations int
	if err := s.reader.QueryRowContext(ctx, `SELECT relation_count FROM entities WHERE key = 'munich'`).Scan(&munichRelations); err != nil || munichRelations != 3 {
		t.Errorf("munich's relation count with a relation to itself: %d, %v; want 3", munichRelations, err)
	}
}
