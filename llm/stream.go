package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Stream sends req and calls onDelta with each piece of the answer as it
// arrives, then returns the whole answer. A failure before the first delta is
// retried like any call; after it, the error is returned (a retry would repeat
// text the caller already has). If no chunk arrives for
// Config.StreamIdleTimeout the stream is aborted with ErrStreamStalled. An
// error from onDelta ends the stream and is returned wrapped.
func (c *Client) Stream(ctx context.Context, req Request, onDelta func(delta string) error) (Response, error) {
	start := time.Now()
	if onDelta == nil {
		onDelta = func(string) error { return nil }
	}
	oreq, patch := c.chatRequest(req, c.cfg.Temperature, format{})
	if c.cfg.FrequencyPenalty != 0 && !reasoningModel(c.cfg.Model) {
		patch["frequency_penalty"] = json.RawMessage(strconv.FormatFloat(float64(c.cfg.FrequencyPenalty), 'g', -1, 32))
	}
	oreq.Stream = true
	oreq.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	var resp Response
	retries, err := c.call(ctx, "stream", req.Purpose, patch, func(ctx context.Context, x *exchange) error {
		resp = Response{}
		return c.streamOnce(ctx, x, oreq, &resp, onDelta)
	})
	// A stream the caller ended or that failed midway still cost its prompt and the text it sent.
	if (err == nil || resp.Content != "") && resp.PromptTokens == 0 && resp.CompletionTokens == 0 {
		resp.PromptTokens, resp.CompletionTokens = estimateTokens(req.Messages), estimate(resp.Content)
	}
	c.account(ctx, record{
		purpose: purposeLabel(req.Purpose, "stream"), stream: true, failed: err != nil, retries: retries,
		prompt: resp.PromptTokens, completion: resp.CompletionTokens, elapsed: time.Since(start),
	})
	if err != nil {
		return Response{}, opError("stream", req.Purpose, err)
	}
	return resp, nil
}

// streamOnce reads one stream to its end under an idle watchdog.
func (c *Client) streamOnce(ctx context.Context, x *exchange, oreq openai.ChatCompletionRequest, resp *Response, onDelta func(string) error) error {
	idle := c.cfg.StreamIdleTimeout
	stalled := fmt.Errorf("%w: no chunk for %s", ErrStreamStalled, idle)
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stream, err := c.api(c.chatAPI, x).CreateChatCompletionStream(sctx, oreq)
	if err != nil {
		return err
	}
	defer stream.Close()
	watchdog := time.AfterFunc(idle, func() { cancel(stalled) })
	defer watchdog.Stop()

	var text strings.Builder
	delivered := false
	fail := func(err error) error {
		if errors.Is(context.Cause(sctx), ErrStreamStalled) {
			err = stalled
		}
		if delivered {
			return permanent{err}
		}
		return err
	}
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) && sctx.Err() == nil {
			break
		}
		if err != nil {
			return fail(err)
		}
		watchdog.Reset(idle)
		if chunk.Usage != nil {
			resp.PromptTokens, resp.CompletionTokens = chunk.Usage.PromptTokens, chunk.Usage.CompletionTokens
		}
		for _, ch := range chunk.Choices {
			if ch.FinishReason != "" {
				resp.FinishReason = string(ch.FinishReason)
			}
			if ch.Index != 0 || ch.Delta.Content == "" {
				continue
			}
			text.WriteString(ch.Delta.Content)
			delivered = true
			if err := onDelta(ch.Delta.Content); err != nil {
				resp.Content = text.String() // what the stream cost is still accounted
				return permanent{err}
			}
		}
	}
	resp.Content = text.String()
	return nil
}
