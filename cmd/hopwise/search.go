package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/graphrag"
)

func searchCommand() command {
	var (
		asJSON bool
		k      int
	)
	return command{
		name:    "search",
		summary: "hybrid search (BM25 + vectors) and graph facts for a query, without the agent",
		args:    "QUERY",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&asJSON, "json", false, "print JSON")
			fs.IntVar(&k, "k", 5, "chunks to show")
		},
		exec: func(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger, args []string) error {
			query := strings.TrimSpace(strings.Join(args, " "))
			if query == "" {
				return errUsage
			}
			a, err := openApp(ctx, cfg, logger)
			if err != nil {
				return err
			}
			defer a.Close()
			res, err := a.retriever.Retrieve(ctx, []graphrag.Query{{Text: query}}, graphrag.RetrieveOptions{K: k, Graph: true, Facts: 8})
			if err != nil {
				return err
			}
			chunks, facts := res.Chunks, res.Facts
			if asJSON {
				return json.NewEncoder(e.stdout).Encode(searchResult(chunks, facts))
			}
			for _, c := range chunks {
				fmt.Fprintf(e.stdout, "%d. [%.4f] %s (%s)\n   %s\n", c.Rank, c.Score, c.DocName, c.ID, oneLine(c.Text, 200))
			}
			if len(facts) > 0 {
				fmt.Fprintln(e.stdout, "\nGraph facts:")
			}
			for _, f := range facts {
				var src []string
				for _, s := range f.Sources {
					src = append(src, s.DocName+" "+s.ID)
				}
				fmt.Fprintf(e.stdout, "- %s  [hop %d; from %s]\n", f.Sentence, f.Hop, strings.Join(src, ", "))
			}
			return nil
		},
	}
}

type jsonChunk struct {
	ID    string  `json:"id"`
	Doc   string  `json:"document"`
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
	Text  string  `json:"text"`
}

type jsonFact struct {
	ID       string         `json:"id"`
	Sentence string         `json:"sentence"`
	Type     string         `json:"type"`
	Source   string         `json:"source"`
	Target   string         `json:"target"`
	Values   map[string]any `json:"values,omitempty"`
	Hop      int            `json:"hop"`
	Chunks   []string       `json:"chunks"`
}

func searchResult(chunks []graphrag.ScoredChunk, facts []graphrag.Fact) map[string]any {
	jc := make([]jsonChunk, len(chunks))
	for i, c := range chunks {
		jc[i] = jsonChunk{ID: c.ID, Doc: c.DocName, Rank: c.Rank, Score: c.Score, Text: c.Text}
	}
	jf := make([]jsonFact, len(facts))
	for i, f := range facts {
		jf[i] = jsonFact{ID: f.ID, Sentence: f.Sentence, Type: f.Relation.Type, Source: f.Relation.SourceName,
			Target: f.Relation.TargetName, Values: f.Relation.Values, Hop: f.Hop, Chunks: f.Relation.ChunkIDs}
	}
	return map[string]any{"chunks": jc, "facts": jf}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
