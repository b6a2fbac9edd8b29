package llmtest

import (
	"net/http"
)

func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
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
	data := make([]map[string]any, len(req.Input))
	for i, text := range req.Input {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Vector(text, s.embedDim)}
	}
	tokens := estimateTokens(req.prompt())
	finish()
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data":   data,
		"model":  s.model(req),
		"usage":  map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}
