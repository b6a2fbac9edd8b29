package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/graphrag"
)

func (c *cli) searchCommand() *cobra.Command {
	var (
		asJSON bool
		k      int
	)
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "hybrid search (BM25 + vectors) and graph facts for a query, without the agent",
		Long: `Search the ingested documents for a query without the agent: the chunks hybrid search (BM25 and
vectors, fused by reciprocal rank) ranks first, then the graph facts around the entities the query names.
It embeds the query, so the embedding model must answer; the chat model is not called.`,
		Example: "  hopwise search TRV-117\n  hopwise search Delhi Munich distance --json -k 3",
		Args:    cobra.MinimumNArgs(1),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().IntVarP(&k, "k", "k", 5, "chunks to show")
	cfg := c.settings(cmd, storeFlags, modelFlags)
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, args []string) error {
		query := strings.TrimSpace(strings.Join(args, " "))
		if query == "" {
			return usageError(errors.New("the query is empty"))
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
		if asJSON {
			return json.NewEncoder(c.e.stdout).Encode(searchResult(res.Chunks, res.Facts))
		}
		printSearch(c.e.stdout, res.Chunks, res.Facts)
		return nil
	})
	return cmd
}

func printSearch(w io.Writer, chunks []graphrag.ScoredChunk, facts []graphrag.Fact) {
	for _, c := range chunks {
		fmt.Fprintf(w, "%d. [%.4f] %s (%s)\n   %s\n", c.Rank, c.Score, c.DocName, c.ID, oneLine(c.Text, 200))
	}
	if len(facts) > 0 {
		fmt.Fprintln(w, "\nGraph facts:")
	}
	for _, f := range facts {
		var src []string
		for _, s := range f.Sources {
			src = append(src, s.DocName+" "+s.ID)
		}
		fmt.Fprintf(w, "- %s  [hop %d; from %s]\n", f.Sentence, f.Hop, strings.Join(src, ", "))
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
