package websearch

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// clean keeps the first n results that link to an http or https page, with white space collapsed and
// fields cut to their limits: provider output is shown to people and to the model.
func clean(in []Result, n int) []Result {
	n = min(max(n, 1), maxResults)
	var out []Result
	for _, r := range in {
		if len(out) == n {
			break
		}
		u, err := url.Parse(strings.TrimSpace(r.URL))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		out = append(out, Result{
			Title:   cut(oneLine(r.Title), maxTitle),
			URL:     u.String(),
			Snippet: cut(oneLine(r.Snippet), maxSnippet),
		})
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut shortens s to at most n bytes without splitting a character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
