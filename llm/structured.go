package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// maxRepairs bounds the follow-up calls that show the model its invalid answer.
const maxRepairs = 2

// Structured asks for an answer shaped as T and decodes it with DecodeJSON's
// rules. The schema of T is generated once per type and sent in the
// client's StructuredMode dialect. An invalid answer is shown back to the model
// with the validation error, at most twice; an answer cut off at the token limit
// is not shown back, the question is asked again for a shorter answer, once. If
// the answer is still invalid the error wraps ErrInvalidOutput and the last
// validation error. The temperature
// is 0 unless req sets one.
func Structured[T any](ctx context.Context, c *Client, req Request) (T, error) {
	var zero T
	s := schemaFor[T]()
	if s.err != nil {
		return zero, opError("structured", req.Purpose, s.err)
	}
	msgs := slices.Clone(req.Messages)
	var lastErr error
	cutOff := false
	repair := 0
	for ; repair <= maxRepairs; repair++ {
		r := req
		r.Messages = msgs
		resp, err := c.structuredCall(ctx, r, s)
		if err != nil {
			return zero, err
		}
		v, err := decodeAnswer[T](resp.Content, s)
		if err == nil {
			return v, nil
		}
		c.log.Info("llm: invalid structured answer", "purpose", req.Purpose, "repair", repair, "err", err,
			"finish_reason", resp.FinishReason)
		if resp.FinishReason != string(openai.FinishReasonLength) {
			lastErr = err
			msgs = append(msgs,
				Message{Role: "assistant", Content: resp.Content},
				Message{Role: "user", Content: fmt.Sprintf("your answer was invalid: %v; reply with only the corrected JSON", err)})
			continue
		}
		// Cut off at the token limit: showing the model its long answer only makes the next prompt
		// longer; it is asked again for a shorter one, once. A second cut-off means it cannot fit.
		lastErr = fmt.Errorf("%w (the answer was cut off at the token limit)", err)
		if cutOff {
			break
		}
		cutOff = true
		msgs = append(slices.Clone(req.Messages), Message{Role: "user", Content: "Your previous answer was cut off at the " +
			"token limit because it was too long. Answer again with a shorter JSON value: fewer items, short strings."})
	}
	return zero, opError("structured", req.Purpose, fmt.Errorf("%w after %d repairs: %w", ErrInvalidOutput, min(repair, maxRepairs), lastErr))
}

// structuredCall sends one structured request in the current dialect; in auto
// mode a 400 rejecting json_schema switches the client to json_object and
// the request is sent again.
func (c *Client) structuredCall(ctx context.Context, req Request, s *schema) (Response, error) {
	mode := c.structuredMode()
	resp, err := c.complete(ctx, "structured", schemaPrompt(req, s, mode), 0, c.schemaFormat(s, mode))
	if err == nil || c.cfg.StructuredMode != ModeAuto || mode != ModeJSONSchema || !rejectsFormat(err) {
		return resp, err
	}
	if c.noJSONSchema.CompareAndSwap(false, true) {
		c.log.Info("llm: server rejected json_schema; using json_object from now on", "err", err)
	}
	return c.complete(ctx, "structured", schemaPrompt(req, s, ModeJSONObject), 0, c.schemaFormat(s, ModeJSONObject))
}

// structuredMode is the dialect of the next structured call.
func (c *Client) structuredMode() string {
	if c.cfg.StructuredMode != ModeAuto {
		return c.cfg.StructuredMode
	}
	if c.noJSONSchema.Load() {
		return ModeJSONObject
	}
	return ModeJSONSchema
}

// schemaFormat is how mode asks the server for output conforming to s.
func (c *Client) schemaFormat(s *schema, mode string) format {
	switch mode {
	case ModeJSONSchema:
		return format{rf: &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: s.name, Schema: s.raw, Strict: s.strict},
		}}
	case ModeJSONObjectSchema:
		rf, _ := json.Marshal(map[string]any{"type": "json_object", "schema": s.grammar(c.cfg.CompactSchema)})
		return format{patch: map[string]json.RawMessage{"response_format": rf}}
	case ModeJSONObject:
		return format{rf: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}}
	default:
		return format{}
	}
}

// schemaPrompt adds the schema to the system prompt in the dialects where the
// server does not receive it.
func schemaPrompt(req Request, s *schema, mode string) Request {
	if mode != ModeJSONObject && mode != ModeNone {
		return req
	}
	instruction := "Reply with only a JSON value, without code fences or any other text, that conforms to this JSON schema:\n" + string(s.raw)
	msgs := slices.Clone(req.Messages)
	if len(msgs) > 0 && msgs[0].Role == "system" {
		msgs[0].Content = strings.TrimRight(msgs[0].Content, "\n") + "\n\n" + instruction
	} else {
		msgs = slices.Insert(msgs, 0, Message{Role: "system", Content: instruction})
	}
	req.Messages = msgs
	return req
}

// rejectsFormat reports a 400 (or 422) that complains about response_format.
func rejectsFormat(err error) bool {
	ae, ok := errors.AsType[*APIError](err)
	if !ok || ae.Status != http.StatusBadRequest && ae.Status != http.StatusUnprocessableEntity {
		return false
	}
	msg := strings.ToLower(ae.Message)
	for _, hint := range []string{"response_format", "response format", "json_schema", "schema"} {
		if strings.Contains(msg, hint) {
			return true
		}
	}
	return false
}
