package handlers

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/labstack/echo/v4"
)

// errSlowBody is a body that arrived slower than the minimum rate.
var errSlowBody = errors.New("handlers: request body sent too slowly")

// slowBodyGuard closes a request whose body trickles in: after grace, the body must keep an average of
// minRate bytes a second, or the next read hits the connection's read deadline. A client sending a byte a
// second holds its connection for about grace, not for the server's five-minute ReadTimeout.
func slowBodyGuard(minRate int64, grace time.Duration) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
				return next(c)
			}
			body := &rateReader{ReadCloser: r.Body, rc: http.NewResponseController(c.Response()),
				start: time.Now(), minRate: minRate, grace: grace}
			r.Body = body
			err := next(c)
			if !body.eof {
				// The server reads what the handler left to reuse the connection: at the same pace or not at all.
				_ = body.rc.SetReadDeadline(body.deadline())
			}
			return err
		}
	}
}

type rateReader struct {
	io.ReadCloser
	rc      *http.ResponseController
	start   time.Time
	n       int64
	minRate int64
	grace   time.Duration
	eof     bool
}

func (r *rateReader) deadline() time.Time {
	return r.start.Add(r.grace + time.Duration(r.n*int64(time.Second)/r.minRate))
}

func (r *rateReader) Read(p []byte) (int, error) {
	if r.eof {
		return r.ReadCloser.Read(p)
	}
	_ = r.rc.SetReadDeadline(r.deadline()) // unsupported (a test recorder): the server's ReadTimeout still holds
	n, err := r.ReadCloser.Read(p)
	r.n += int64(n)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return n, errSlowBody
	case err == io.EOF:
		// The whole body is in. No deadline from now on: the server's background read of a finished body
		// would cancel the request (an answer streaming for minutes) when one passed.
		r.eof = true
		_ = r.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}
