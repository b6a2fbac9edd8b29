package urlfetch

import (
	"errors"
	"fmt"
)

// Sentinel errors; Fetch wraps them with the address and detail, so test them with errors.Is. Their
// messages are written for the person who typed the address (see Reason).
var (
	ErrInvalidURL       = errors.New("that is not a web address Hopwise can fetch; write it like https://example.org/page")
	ErrScheme           = errors.New("only web pages (http:// or https://) can be added")
	ErrUserinfo         = errors.New("web addresses with a user name or password are not fetched")
	ErrForbiddenAddress = errors.New("that address is on a private network; Hopwise only fetches public web pages")
	ErrTooManyRedirects = errors.New("the page redirects too many times")
	ErrTooLarge         = errors.New("the page is larger than the limit")
	ErrContentType      = errors.New("the page is not HTML, plain text, Markdown or PDF")
	ErrEmpty            = errors.New("the page is empty")
	ErrTimeout          = errors.New("the web server took too long to send the page")
	ErrUnknownHost      = errors.New("no web server has that name")
	ErrUnreachable      = errors.New("the web server could not be reached")
)

// StatusError: the server answered, but not with the page (404, 500...).
type StatusError struct {
	Code   int
	Status string // "404 Not Found"
}

func (e *StatusError) Error() string { return "the web server answered " + e.Status }

var reasons = []error{
	ErrInvalidURL, ErrScheme, ErrUserinfo, ErrForbiddenAddress, ErrTooManyRedirects, ErrTooLarge,
	ErrContentType, ErrEmpty, ErrTimeout, ErrUnknownHost, ErrUnreachable,
}

// Reason is the sentence to show a person for an error returned by Fetch, without the address and the
// technical detail the wrapped error carries for logs.
func Reason(err error) string {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Error()
	}
	for _, r := range reasons {
		if errors.Is(err, r) {
			return r.Error()
		}
	}
	return "the page could not be fetched"
}

// wrap prefixes err with the operation and the address.
func wrap(rawURL string, err error) error {
	return fmt.Errorf("urlfetch: get %s: %w", rawURL, err)
}
