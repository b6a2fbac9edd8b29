package handlers

import (
	"regexp"
	"strings"
)

// rawError is an error chain as Go prints it: a package prefix ("agent: ", "llm: "), an address, a dial.
var rawError = regexp.MustCompile(`(^|: )[a-z][a-z0-9_/]*: |://|dial tcp|\bPost "|\bGet "`)

// httpStatus finds the status of the model server's answer in a chain ("...: 429 rate limited: ...").
var httpStatus = regexp.MustCompile(`(?:^|: )([45]\d\d) `)

// problemText is how "How I found this" states a problem. The agent's own messages are sentences and
// are shown as they are; an error chain (with the model's address, hosts and ports) becomes a plain
// sentence of what went wrong, while the chain itself is in the server log (chat: run failed).
func problemText(msg string) string {
	prefix := ""
	if p, rest, ok := strings.Cut(msg, "the web search failed: "); ok && p == "" {
		prefix, msg = "The web search failed: ", rest
	}
	if !rawError.MatchString(msg) {
		return prefix + msg
	}
	lower := strings.ToLower(msg)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
	status := ""
	if m := httpStatus.FindStringSubmatch(msg); m != nil {
		status = m[1]
	}
	var plain string
	switch {
	case has("context canceled", "run stopped"):
		plain = "the question was stopped before the answer was finished."
	case has("insufficient quota", "insufficient_quota"):
		plain = "the model's account has no credit left."
	case status == "401" || status == "403" || has("invalid_api_key"):
		plain = "the model refused the API key; check the model settings on the Status page."
	case status == "429" || has("rate limit"):
		plain = "the model is refusing requests for now (too many at once); please try again later."
	case has("stream stalled"):
		plain = "the model stopped writing in the middle of its answer."
	case has("deadline exceeded", "timed out", "timeout"):
		plain = "the model did not answer in time."
	case has("connection refused", "no such host", "dial tcp", "connection reset", "eof", "network is unreachable"):
		plain = "the model could not be reached; the Status page shows whether it answers."
	case has("invalid structured output"):
		plain = "the model's answer could not be read."
	case strings.HasPrefix(status, "5"):
		plain = "the model's server reported an error."
	default:
		plain = "a step failed on the server (the details are in its log)."
	}
	if prefix != "" {
		plain = strings.ReplaceAll(strings.ReplaceAll(plain, "the model's", "the search service's"), "the model", "the search service")
		return prefix + plain
	}
	return strings.ToUpper(plain[:1]) + plain[1:]
}
