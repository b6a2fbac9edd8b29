package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Embed returns one vector per text, in the order of texts, all of the same
// dimension. Texts are sent in batches of Config.EmbedBatch, concurrently
// within the client's concurrency limit; if a batch fails the others are
// cancelled and the error names the batch. No texts means no call.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	start := time.Now()
	size := c.cfg.EmbedBatch
	batches := (len(texts) + size - 1) / size
	out := make([][]float32, len(texts))
	errs := make([]error, batches)
	tokens, retries := make([]int, batches), make([]int, batches)
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for b := range batches {
		lo, hi := b*size, min((b+1)*size, len(texts))
		wg.Go(func() {
			tokens[b], retries[b], errs[b] = c.embedBatch(bctx, texts[lo:hi], out[lo:hi])
			if errs[b] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	err := firstCause(ctx, errs, batches)
	if err == nil {
		err = sameDimension(out)
	}
	r := record{purpose: "embed", embed: true, requests: batches, inputs: len(texts), failed: err != nil, elapsed: time.Since(start)}
	for b := range batches {
		r.embT += tokens[b]
		r.retries += retries[b]
	}
	c.account(ctx, r)
	if err != nil {
		return nil, opError("embed", "", err)
	}
	return out, nil
}

// embedBatch fills dst with the vectors of texts.
func (c *Client) embedBatch(ctx context.Context, texts []string, dst [][]float32) (tokens, retries int, err error) {
	retries, err = c.call(ctx, "embed", "embed", nil, func(ctx context.Context, x *exchange) error {
		res, err := c.api(c.embedAPI, x).CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{
			Input: texts, Model: openai.EmbeddingModel(c.cfg.EmbedModel),
		})
		if err != nil {
			return err
		}
		if len(res.Data) != len(texts) {
			return permanent{fmt.Errorf("sent %d texts, got %d vectors", len(texts), len(res.Data))}
		}
		clear(dst)
		for _, e := range res.Data {
			if e.Index < 0 || e.Index >= len(dst) || dst[e.Index] != nil {
				return permanent{fmt.Errorf("vector index %d out of range or repeated", e.Index)}
			}
			dst[e.Index] = e.Embedding
		}
		tokens = res.Usage.PromptTokens
		return nil
	})
	return tokens, retries, err
}

// firstCause picks the error that made Embed fail, not the cancellations it caused.
func firstCause(ctx context.Context, errs []error, batches int) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var cancelled error
	for b, err := range errs {
		if err == nil {
			continue
		}
		err = fmt.Errorf("batch %d of %d: %w", b+1, batches, err)
		if !errors.Is(err, context.Canceled) {
			return err
		}
		if cancelled == nil {
			cancelled = err
		}
	}
	return cancelled
}

func sameDimension(vecs [][]float32) error {
	for i, v := range vecs {
		if len(v) == 0 {
			return fmt.Errorf("empty vector for text %d", i)
		}
		if len(v) != len(vecs[0]) {
			return fmt.Errorf("vectors of different dimensions (%d and %d)", len(vecs[0]), len(v))
		}
	}
	return nil
}
