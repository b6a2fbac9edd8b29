package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// exchange is the HTTP doer of one attempt. It sets body fields go-openai
// cannot express (an explicit temperature 0, llama-cpp-python's
// {"type":"json_object","schema":...}) and keeps the Retry-After header of an
// error response, which go-openai's errors drop.
type exchange struct {
	hc         *http.Client
	patch      map[string]json.RawMessage // top-level body fields to set; nil value deletes
	retryAfter string
}

// Do implements go-openai's HTTPDoer.
func (x *exchange) Do(req *http.Request) (*http.Response, error) {
	if len(x.patch) > 0 && req.Body != nil {
		patched, err := x.patchBody(req)
		if err != nil {
			return nil, err
		}
		req = patched
	}
	resp, err := x.hc.Do(req)
	if err == nil && resp.StatusCode >= 400 {
		x.retryAfter = resp.Header.Get("Retry-After")
	}
	return resp, err
}

func (x *exchange) patchBody(req *http.Request) (*http.Request, error) {
	raw, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("patch request body: %w", err)
	}
	for k, v := range x.patch {
		if v == nil {
			delete(body, k)
			continue
		}
		body[k] = v
	}
	out, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("patch request body: %w", err)
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(out))
	r.ContentLength = int64(len(out))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	return r, nil
}
