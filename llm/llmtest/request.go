package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Message is one chat message as the server received it.
type Message struct {
	Role    string
	Content string
}

// Request is one recorded chat or embeddings request.
type Request struct {
	Path           string // URL path, e.g. /v1/chat/completions
	Model          string
	Messages       []Message // chat only
	Stream         bool
	IncludeUsage   bool            // stream_options.include_usage
	ResponseFormat json.RawMessage // nil when the request had none
	Temperature    *float64        // nil when the request had none
	MaxTokens      int             // max_tokens or max_completion_tokens
	Input          []string        // embeddings only
	Body           json.RawMessage // the raw request body
	Header         http.Header
	At             time.Time // arrival time
}

// IsEmbed reports whether the request was sent to the embeddings endpoint.
func (r Request) IsEmbed() bool { return strings.HasSuffix(r.Path, "/embeddings") }

// System returns the contents of the system messages joined by newlines.
func (r Request) System() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == "system" || m.Role == "developer" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// LastUser returns the content of the last user message, or "".
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Contains reports whether any message or embedding input contains s.
func (r Request) Contains(s string) bool {
	for _, m := range r.Messages {
		if strings.Contains(m.Content, s) {
			return true
		}
	}
	for _, in := range r.Input {
		if strings.Contains(in, s) {
			return true
		}
	}
	return false
}

// prompt is the concatenated text the token estimate is based on.
func (r Request) prompt() string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content)
	}
	for _, in := range r.Input {
		b.WriteString(in)
	}
	return b.String()
}

type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat      json.RawMessage `json:"response_format"`
	Temperature         *float64        `json:"temperature"`
	MaxTokens           int             `json:"max_tokens"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
	Input               json.RawMessage `json:"input"`
	EncodingFormat      string          `json:"encoding_format"`
}

// parseRequest decodes a chat or embeddings body; it fails on malformed JSON
// so that a client bug shows up as a 400 rather than as a silent default.
func parseRequest(r *http.Request, body []byte, at time.Time) (Request, error) {
	req := Request{Path: r.URL.Path, Body: body, Header: r.Header.Clone(), At: at}
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return req, fmt.Errorf("decode body: %w", err)
	}
	if w.EncodingFormat != "" && w.EncodingFormat != "float" {
		return req, fmt.Errorf("encoding_format %q not supported", w.EncodingFormat)
	}
	req.Model, req.Stream, req.Temperature = w.Model, w.Stream, w.Temperature
	req.IncludeUsage = w.StreamOptions != nil && w.StreamOptions.IncludeUsage
	if len(w.ResponseFormat) > 0 && string(w.ResponseFormat) != "null" {
		req.ResponseFormat = w.ResponseFormat
	}
	req.MaxTokens = max(w.MaxTokens, w.MaxCompletionTokens)
	for _, m := range w.Messages {
		text, err := messageText(m.Content)
		if err != nil {
			return req, fmt.Errorf("message content: %w", err)
		}
		req.Messages = append(req.Messages, Message{Role: m.Role, Content: text})
	}
	in, err := inputTexts(w.Input)
	if err != nil {
		return req, fmt.Errorf("input: %w", err)
	}
	req.Input = in
	return req, nil
}

// messageText accepts a plain string or an array of content parts.
func messageText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// inputTexts accepts a string or an array of strings.
func inputTexts(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return []string{s}, nil
	}
	var ss []string
	if err := json.Unmarshal(raw, &ss); err != nil {
		return nil, fmt.Errorf("want a string or an array of strings: %w", err)
	}
	return ss, nil
}
