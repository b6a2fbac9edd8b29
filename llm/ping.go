package llm

import (
	"context"
	"errors"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// pingTimeout bounds health checks, which status pages make while a person waits.
const pingTimeout = 10 * time.Second

// Models lists the model ids the chat endpoint serves (GET /models).
// It bypasses the concurrency limit and retries, and is not metered.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, min(c.cfg.Timeout, pingTimeout))
	defer cancel()
	list, err := c.api(c.chatAPI, &exchange{hc: c.hc}).ListModels(ctx)
	if err != nil {
		return nil, opError("models", "", apiError(err))
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// Ping checks that the chat endpoint answers: GET /models, or a one-token
// chat when the server has no /models. Like Models it is neither limited,
// retried nor metered.
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.Models(ctx)
	if ae, ok := errors.AsType[*APIError](err); !ok || ae.Status != http.StatusNotFound {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, min(c.cfg.Timeout, pingTimeout))
	defer cancel()
	oreq, patch := c.chatRequest(Request{Messages: []Message{{Role: "user", Content: "ping"}}, MaxTokens: 1}, 0, format{})
	_, err = c.api(c.chatAPI, &exchange{hc: c.hc, patch: patch}).CreateChatCompletion(ctx, oreq)
	if err != nil {
		return opError("ping", "", apiError(err))
	}
	return nil
}

// PingEmbed checks that the embeddings endpoint answers by embedding one word.
func (c *Client) PingEmbed(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, min(c.cfg.Timeout, pingTimeout))
	defer cancel()
	_, err := c.api(c.embedAPI, &exchange{hc: c.hc}).CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{
		Input: []string{"ping"}, Model: openai.EmbeddingModel(c.cfg.EmbedModel),
	})
	if err != nil {
		return opError("ping embed", "", apiError(err))
	}
	return nil
}
