package handlers

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// sseStream writes server-sent events: "event:" and one "data:" line per line of the payload, flushed at
// once. Writes fail when the client went away; callers stop then.
type sseStream struct {
	res *echo.Response
}

// keepAlive is how often an idle stream sends a comment, so proxies keep it open and a gone client is noticed.
const keepAlive = 15 * time.Second

func startSSE(c echo.Context) *sseStream {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	c.Response().WriteHeader(http.StatusOK)
	c.Response().Flush()
	return &sseStream{res: c.Response()}
}

func (s *sseStream) send(event, data string) error { return s.sendID(event, "", data) }

// sendID sends an event with an id (none when empty), which a reconnecting EventSource sends back as
// Last-Event-ID.
func (s *sseStream) sendID(event, id, data string) error {
	var b strings.Builder
	b.WriteString("event: ")
	b.WriteString(event)
	b.WriteString("\n")
	if id != "" {
		b.WriteString("id: ")
		b.WriteString(id)
		b.WriteString("\n")
	}
	data = strings.ReplaceAll(strings.ReplaceAll(data, "\r\n", "\n"), "\r", "\n")
	for _, line := range strings.Split(data, "\n") {
		b.WriteString("data: ")
		b.WriteString(line)
		b.WriteString("\n")
	}
	b.WriteString("\n")
	if _, err := s.res.Write([]byte(b.String())); err != nil {
		return fmt.Errorf("sse: write %s: %w", event, err)
	}
	s.res.Flush()
	return nil
}

func (s *sseStream) ping() error {
	if _, err := s.res.Write([]byte(": ping\n\n")); err != nil {
		return fmt.Errorf("sse: ping: %w", err)
	}
	s.res.Flush()
	return nil
}
