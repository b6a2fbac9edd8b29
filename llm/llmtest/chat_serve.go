package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	req, finish, ok := s.receive(w, r)
	if !ok {
		return
	}
	defer finish()
	rp, _ := s.script(req)
	if !s.wait(r, rp.Delay) {
		return
	}
	if answerError(w, rp, finish) {
		return
	}
	if req.Stream {
		s.streamChat(w, r, req, rp, finish)
		return
	}
	finish()
	writeJSON(w, http.StatusOK, map[string]any{
		"id":      "chatcmpl-llmtest",
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   s.model(req),
		"choices": []map[string]any{{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": rp.text()},
			"finish_reason": rp.finishReason(),
		}},
		"usage": rp.wireUsage(req),
	})
}

// streamChat writes the reply as server-sent events: a role chunk, content
// chunks, a finish chunk, the usage chunk when asked for, then [DONE].
func (s *Server) streamChat(w http.ResponseWriter, r *http.Request, req Request, rp Reply, finish func()) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	created := time.Now().Unix()
	send := func(choices []map[string]any, usage *wireUsage) bool {
		chunk := map[string]any{
			"id": "chatcmpl-llmtest", "object": "chat.completion.chunk",
			"created": created, "model": s.model(req), "choices": choices,
		}
		if req.IncludeUsage && !rp.OmitUsage {
			chunk["usage"] = usage
		}
		b, _ := json.Marshal(chunk)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	delta := func(d map[string]any, finish any) []map[string]any {
		return []map[string]any{{"index": 0, "delta": d, "finish_reason": finish}}
	}
	if rp.StallAfter < 0 {
		s.hang(r)
		return
	}
	if !send(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil) {
		return
	}
	for i, c := range rp.chunks() {
		if rp.StallAfter > 0 && i == rp.StallAfter {
			s.hang(r)
			return
		}
		if !s.wait(r, rp.ChunkDelay) || !send(delta(map[string]any{"content": c}, nil), nil) {
			return
		}
	}
	if rp.StallAfter > 0 && len(rp.chunks()) <= rp.StallAfter {
		s.hang(r)
		return
	}
	if !send(delta(map[string]any{}, rp.finishReason()), nil) {
		return
	}
	if req.IncludeUsage && !rp.OmitUsage {
		u := rp.usage(req)
		if !send([]map[string]any{}, &u) {
			return
		}
	}
	finish()
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}
