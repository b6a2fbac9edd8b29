package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Message is one chat message; Role is "system", "user" or "assistant".
type Message struct{ Role, Content string }

// Request is one chat call. Purpose labels it in errors, logs and accounting
// (e.g. "grade", "generate"); MaxTokens 0 means Config.MaxOutputTokens (reasoning models: the server's default);
// Temperature nil takes the client default.
type Request struct {
	Purpose     string
	Messages    []Message
	MaxTokens   int
	Temperature *float32
}

// Response is a chat answer. Token counts come from the server's usage or,
// when it reports none, are estimated as len/4.
type Response struct {
	Content                        string
	PromptTokens, CompletionTokens int
	FinishReason                   string // "stop", "length", ...
}

// Chat sends req and returns the whole answer.
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	return c.complete(ctx, "chat", req, c.cfg.Temperature, format{})
}

// format is how a call asks for structured output.
type format struct {
	rf    *openai.ChatCompletionResponseFormat // set through go-openai
	patch map[string]json.RawMessage           // set by the exchange
}

// complete is one non-streamed chat call with retries and accounting.
func (c *Client) complete(ctx context.Context, op string, req Request, temp float32, f format) (Response, error) {
	start := time.Now()
	oreq, patch := c.chatRequest(req, temp, f)
	var resp Response
	retries, err := c.call(ctx, op, req.Purpose, patch, func(ctx context.Context, x *exchange) error {
		out, err := c.api(c.chatAPI, x).CreateChatCompletion(ctx, oreq)
		if err != nil {
			return err
		}
		if len(out.Choices) == 0 {
			return permanent{fmt.Errorf("answer has no choices")}
		}
		resp = Response{
			Content:          out.Choices[0].Message.Content,
			PromptTokens:     out.Usage.PromptTokens,
			CompletionTokens: out.Usage.CompletionTokens,
			FinishReason:     string(out.Choices[0].FinishReason),
		}
		return nil
	})
	if err == nil && resp.PromptTokens == 0 && resp.CompletionTokens == 0 {
		resp.PromptTokens, resp.CompletionTokens = estimateTokens(req.Messages), estimate(resp.Content)
	}
	c.account(ctx, record{
		purpose: purposeLabel(req.Purpose, op), failed: err != nil, retries: retries,
		prompt: resp.PromptTokens, completion: resp.CompletionTokens, elapsed: time.Since(start),
	})
	if err != nil {
		return Response{}, opError(op, req.Purpose, err)
	}
	return resp, nil
}

// chatRequest builds the go-openai request and the body fields it sets
// through the exchange: the temperature, because go-openai omits 0, and
// max_tokens, which go-openai deprecates but local servers expect.
func (c *Client) chatRequest(req Request, temp float32, f format) (openai.ChatCompletionRequest, map[string]json.RawMessage) {
	if req.Temperature != nil {
		temp = *req.Temperature
	}
	oreq := openai.ChatCompletionRequest{Model: c.cfg.Model, ResponseFormat: f.rf}
	for _, m := range req.Messages {
		oreq.Messages = append(oreq.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	patch := map[string]json.RawMessage{}
	for k, v := range f.patch {
		patch[k] = v
	}
	switch {
	case reasoningModel(c.cfg.Model):
		oreq.MaxCompletionTokens = req.MaxTokens
	default:
		// max_tokens rather than max_completion_tokens: local servers know it.
		patch["max_tokens"] = json.RawMessage(strconv.Itoa(cmp.Or(req.MaxTokens, c.cfg.MaxOutputTokens)))
		patch["temperature"] = json.RawMessage(strconv.FormatFloat(float64(temp), 'g', -1, 32))
	}
	return oreq, patch
}

// reasoningModel reports OpenAI models that refuse max_tokens and a temperature.
func reasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

func opError(op, purpose string, err error) error {
	if purpose == "" {
		return fmt.Errorf("llm: %s: %w", op, err)
	}
	return fmt.Errorf("llm: %s (%s): %w", op, purpose, err)
}

func purposeLabel(purpose, op string) string { return cmp.Or(purpose, op) }

// estimate is the rough rule of four bytes per token.
func estimate(s string) int {
	if s == "" {
		return 0
	}
	return max(1, len(s)/4)
}

func estimateTokens(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	if n == 0 {
		return 0
	}
	return max(1, n/4)
}
