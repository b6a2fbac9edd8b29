package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Reply scripts one answer of the server.
//
// A Reply with Status >= 400 is an HTTP error with an OpenAI-style error body;
// RawBody, when set, is written verbatim instead of any generated body (to
// imitate proxies that answer with HTML). Otherwise it is a chat answer, streamed
// as server-sent events when the request asks to stream. For embeddings requests
// only the error fields, RawBody and Delay apply; the vectors are always Vector.
type Reply struct {
	Content string   // chat answer (also streamed when the request asks to stream)
	Chunks  []string // explicit stream chunks; else Content is split into ~4-character chunks

	Status       int    // HTTP status; 0 means 200
	ErrorType    string // error.type and error.code, e.g. "insufficient_quota"
	ErrorMessage string
	RetryAfter   string // Retry-After header, e.g. "2" or an HTTP date
	RawBody      string // written verbatim with Status when set

	Delay      time.Duration // wait before answering (ends early when the client goes away)
	ChunkDelay time.Duration // stream: wait before each content chunk
	StallAfter int           // stream: send this many chunks then hang until the client goes away; < 0 hangs before the first chunk

	PromptTokens, CompletionTokens int    // usage; 0 means estimated as len/4
	OmitUsage                      bool   // send no usage at all, like some local servers
	FinishReason                   string // default "stop"
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func (rp Reply) usage(req Request) wireUsage {
	u := wireUsage{PromptTokens: rp.PromptTokens, CompletionTokens: rp.CompletionTokens}
	if u.PromptTokens == 0 {
		u.PromptTokens = estimateTokens(req.prompt())
	}
	if u.CompletionTokens == 0 {
		u.CompletionTokens = estimateTokens(rp.text())
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// wireUsage is the usage field of a whole answer: nil when omitted.
func (rp Reply) wireUsage(req Request) *wireUsage {
	if rp.OmitUsage {
		return nil
	}
	u := rp.usage(req)
	return &u
}

func (rp Reply) text() string {
	if len(rp.Chunks) == 0 {
		return rp.Content
	}
	var s string
	for _, c := range rp.Chunks {
		s += c
	}
	return s
}

func (rp Reply) chunks() []string {
	if len(rp.Chunks) > 0 {
		return rp.Chunks
	}
	runes := []rune(rp.Content)
	var out []string
	for len(runes) > 0 {
		n := min(4, len(runes))
		out = append(out, string(runes[:n]))
		runes = runes[n:]
	}
	return out
}

func (rp Reply) finishReason() string {
	if rp.FinishReason == "" {
		return "stop"
	}
	return rp.FinishReason
}

// estimateTokens is the usual rough rule of about four bytes per token.
func estimateTokens(s string) int {
	if s == "" {
		return 0
	}
	return max(1, len(s)/4)
}

// writeError answers with an OpenAI-style error body, or RawBody when set.
func writeError(w http.ResponseWriter, rp Reply) {
	if rp.RetryAfter != "" {
		w.Header().Set("Retry-After", rp.RetryAfter)
	}
	if rp.RawBody != "" {
		w.WriteHeader(rp.Status)
		fmt.Fprint(w, rp.RawBody)
		return
	}
	body := map[string]any{"error": map[string]any{
		"message": rp.ErrorMessage,
		"type":    rp.ErrorType,
		"code":    rp.ErrorType,
		"param":   nil,
	}}
	writeJSON(w, rp.Status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
