package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// request carries the documents under both names in use: Cohere, Jina and Infinity read "documents", TEI
// reads "texts"; each ignores the other.
type request struct {
	Model     string   `json:"model,omitempty"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	Texts     []string `json:"texts"`
	TopN      int      `json:"top_n"`
}

// result is one scored document: Cohere-style answers name the score relevance_score, TEI's score.
type result struct {
	Index          int      `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"`
	Score          *float64 `json:"score"`
}

// Rerank scores docs against query. No documents means no call.
func (c *Client) Rerank(ctx context.Context, query string, docs []string) ([]Score, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(request{Model: c.model, Query: query, Documents: docs, Texts: docs, TopN: len(docs)})
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("rerank: read response: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("rerank: status %d: %s", resp.StatusCode, excerpt(raw))
	}
	if len(raw) > maxBody {
		return nil, fmt.Errorf("rerank: response larger than %d bytes", maxBody)
	}
	results, err := decode(raw)
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	return scores(results, len(docs))
}

// decode accepts a Cohere-style {"results": [...]} or TEI's bare array.
func decode(raw []byte) ([]result, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var out []result
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, fmt.Errorf("decode response: %w", err)
		}
		return out, nil
	}
	var out struct {
		Results []result `json:"results"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("decode response: %w", err)
	}
	return out.Results, nil
}

// scores checks the indexes, keeps each document once and sorts best first (ties by index).
func scores(results []result, n int) ([]Score, error) {
	seen := map[int]bool{}
	out := make([]Score, 0, len(results))
	for _, r := range results {
		if r.Index < 0 || r.Index >= n {
			return nil, fmt.Errorf("response names document %d of %d", r.Index, n)
		}
		if seen[r.Index] {
			continue
		}
		seen[r.Index] = true
		var s float64
		switch {
		case r.RelevanceScore != nil:
			s = *r.RelevanceScore
		case r.Score != nil:
			s = *r.Score
		default:
			return nil, errors.New("response has a result without a score")
		}
		out = append(out, Score{Index: r.Index, Score: s})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Index < out[j].Index
	})
	return out, nil
}

func excerpt(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
