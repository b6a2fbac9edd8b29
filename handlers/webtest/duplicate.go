package webtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// AddDuplicate stores, in a passage of the demo that names Lufthansa, the entity "Deutsche Lufthansa AG"
// beside "Lufthansa" (each flying to Munich) and the resolver's proposal that they are one, as ingestion
// leaves a pair it is not sure of. It returns the proposal.
func AddDuplicate(t testing.TB, app *App) graphrag.Edit {
	t.Helper()
	ctx := context.Background()
	docs, err := app.Store.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var chunk graphrag.Chunk
	for _, d := range docs {
		cs, err := app.Store.DocumentChunks(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if strings.Contains(c.Text, "Lufthansa") && chunk.ID == "" {
				chunk = c
			}
		}
	}
	if chunk.ID == "" {
		t.Fatal("no demo passage names Lufthansa")
	}
	lh := graphrag.Entity{Key: "lufthansa", Name: "Lufthansa", Type: "airline", Description: "German airline", Aliases: []string{"Lufthansa"}}
	dlh := graphrag.Entity{Key: graphrag.NormalizeKey("Deutsche Lufthansa AG"), Name: "Deutsche Lufthansa AG", Type: "organization",
		Description: "German flag carrier", Aliases: []string{"Deutsche Lufthansa AG"}}
	munich := graphrag.Entity{Key: "munich", Name: "Munich", Type: "city", Aliases: []string{"Munich"}}
	rel := func(from graphrag.Entity) graphrag.Relation {
		return graphrag.Relation{ID: graphrag.RelationID(from.Key, "FLIES_TO", munich.Key), Source: from.Key, Target: munich.Key,
			SourceName: from.Name, TargetName: munich.Name, Type: "FLIES_TO"}
	}
	if err := app.Store.PutExtraction(ctx, graphrag.Extraction{ChunkID: chunk.ID, Entities: []graphrag.Entity{lh, dlh, munich},
		Relations: []graphrag.Relation{rel(lh), rel(dlh)}}); err != nil {
		t.Fatal(err)
	}
	p := graphrag.Edit{ID: graphrag.ProposalID(lh.Key, dlh.Key), Kind: graphrag.EditMerge, Status: graphrag.EditProposed,
		Keys: []string{lh.Key, dlh.Key}, Names: []string{lh.Name, dlh.Name}, By: graphrag.ByResolver, Rule: "possible short form",
		Score: 0.55, Evidence: []string{`"lufthansa" is a short form of "deutsche lufthansa"`}, CreatedAt: time.Now().UTC()}
	if err := app.Store.ApplyEdit(ctx, p, graphrag.GraphPatch{}); err != nil {
		t.Fatal(err)
	}
	return p
}
