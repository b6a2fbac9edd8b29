package llm

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Sentinel errors. They are always returned wrapped with the operation, as in
// "llm: stream (generate): stream stalled: no chunk for 30s".
var (
	// ErrQuota means the account has no quota left (insufficient_quota); never retried.
	ErrQuota = errors.New("insufficient quota")
	// ErrStreamStalled means a stream sent no chunk for Config.StreamIdleTimeout.
	ErrStreamStalled = errors.New("stream stalled")
	// ErrInvalidOutput means a structured answer was still invalid after the
	// repairs; the last validation error is wrapped with it.
	ErrInvalidOutput = errors.New("invalid structured output")
	// ErrTimeout means an attempt passed Config.Timeout (the caller's context was still live).
	ErrTimeout = errors.New("timed out")
)

// APIError is an HTTP error answered by the model server.
type APIError struct {
	Status  int    // HTTP status; 0 for an error event inside a stream
	Type    string // error.type, e.g. "rate_limit_error"
	Code    string // error.code, e.g. "insufficient_quota"
	Message string
}

// Error reads like "429 rate limited: Rate limit reached".
func (e *APIError) Error() string {
	what := statusPhrase(e.Status)
	if e.IsQuota() {
		what = "insufficient quota"
	}
	var b strings.Builder
	if e.Status > 0 {
		fmt.Fprintf(&b, "%d ", e.Status)
	}
	b.WriteString(what)
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// IsQuota reports whether the server said the account is out of quota.
func (e *APIError) IsQuota() bool {
	return e.Type == "insufficient_quota" || e.Code == "insufficient_quota"
}

// Is makes errors.Is(err, ErrQuota) true for out-of-quota errors.
func (e *APIError) Is(target error) bool { return target == ErrQuota && e.IsQuota() }

// Retryable reports whether the same request may succeed later: 408, 409,
// 429 (unless out of quota) and 5xx.
func (e *APIError) Retryable() bool {
	switch {
	case e.IsQuota():
		return false
	case e.Status == http.StatusRequestTimeout, e.Status == http.StatusConflict, e.Status == http.StatusTooManyRequests:
		return true
	default:
		return e.Status >= 500
	}
}

func statusPhrase(status int) string {
	switch {
	case status == 0:
		return "error"
	case status == http.StatusTooManyRequests:
		return "rate limited"
	case status == http.StatusUnauthorized:
		return "unauthorized (check the API key)"
	case status >= 500 && http.StatusText(status) == "":
		return "server error"
	case http.StatusText(status) != "":
		return strings.ToLower(http.StatusText(status))
	default:
		return "error"
	}
}

// apiError converts go-openai's HTTP errors into *APIError; other errors are
// returned unchanged.
func apiError(err error) error {
	var oe *openai.APIError
	if errors.As(err, &oe) {
		return &APIError{Status: oe.HTTPStatusCode, Type: oe.Type, Code: codeString(oe.Code), Message: oe.Message}
	}
	var re *openai.RequestError
	if errors.As(err, &re) {
		msg := strings.TrimSpace(string(re.Body))
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		return &APIError{Status: re.HTTPStatusCode, Message: msg}
	}
	return err
}

func codeString(code any) string {
	switch c := code.(type) {
	case nil:
		return ""
	case string:
		return c
	default:
		return fmt.Sprint(c)
	}
}

// permanent marks an error the retry loop must return at once.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }
