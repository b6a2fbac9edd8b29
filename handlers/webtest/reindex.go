package webtest

import (
	"log/slog"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/llm"
)

// reindexWith is the app's embedder of questions and passages (the model of the store's vectors, as
// `hopwise serve` has it) and the status page's Reindexer, which moves the store to opt.ReindexTo's
// new-embed, or embeds again with client's model.
func reindexWith(store *sqlite.Store, client *llm.Client, opt Options, logger *slog.Logger) (graphrag.Embedder, *graphrag.Reindexer) {
	space := graphrag.EmbeddingSpace{Model: storeOptions.EmbedModel, Dim: storeOptions.EmbedDim}
	if opt.ReindexTo == nil {
		return client, graphrag.NewReindexer(store, client, space, logger)
	}
	next := llm.New(llm.Config{BaseURL: opt.ReindexTo.URL(), APIKey: "test", Model: "test-model", EmbedModel: "new-embed",
		MaxRetries: -1, Timeout: 20 * time.Second}, logger)
	target := graphrag.EmbeddingSpace{Model: "new-embed", Dim: opt.ReindexDim}
	embed := graphrag.NewSpaceEmbedder(store, next, target, func(model string) graphrag.Embedder {
		if model == space.Model {
			return client
		}
		return next
	})
	return embed, graphrag.NewReindexer(store, next, target, logger)
}

// withReextraction lets the status page's Reindexer extract the graph again with second-model, the chat
// model of opt.ReextractWith, embedding facts with embed (the app's embedder).
func withReextraction(r *graphrag.Reindexer, embed graphrag.Embedder, opt Options, logger *slog.Logger) {
	if opt.ReextractWith == nil {
		return
	}
	second := llm.New(llm.Config{BaseURL: opt.ReextractWith.URL(), APIKey: "test", Model: "second-model", EmbedModel: "test-embed",
		MaxRetries: -1, Timeout: 20 * time.Second}, logger)
	r.WithGraph(graphrag.GraphReindex{Extractor: graphrag.NewLLMExtractor(second), Embed: embed, Model: "second-model"})
}
