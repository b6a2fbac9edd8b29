package handlers

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// progressEvery is how often queued progress snapshots are sent: a burst of chunk updates becomes one row.
const progressEvery = 200 * time.Millisecond

// progressPoll is how often the store is read for the progress of jobs another process sharing it runs,
// which this one's progress events never tell of.
const progressPoll = time.Second

// documentEvents streams each document's row as it changes ("doc-ID" events; an empty row for a deleted
// document) and ends with an "idle" event, which closes the page's EventSource, once no document is left
// being processed, or when the server shuts down. It starts with every row as it is now: the page may have
// been rendered, or the stream reconnected, after some progress it would otherwise never hear of.
func (s *server) documentEvents(c echo.Context) error {
	ctx := c.Request().Context()
	progress, unsubscribe := s.Ingester.Subscribe()
	defer unsubscribe()
	sse := startSSE(c)
	sent := map[string]string{} // document ID -> the row last sent
	busy, err := s.sendAllRows(ctx, c, sse, sent)
	if err != nil || !busy {
		return sse.send("idle", "")
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	poll := time.NewTicker(progressPoll)
	defer poll.Stop()
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	pending := map[string]graphrag.Progress{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.Closing:
			return sse.send("idle", "")
		case p, ok := <-progress:
			if !ok {
				return nil
			}
			pending[p.DocID] = p
		case <-ping.C:
			if err := sse.ping(); err != nil {
				return nil
			}
		case <-poll.C:
			busy, err := s.sendAllRows(ctx, c, sse, sent)
			if err != nil {
				return nil
			}
			if !busy {
				return sse.send("idle", "")
			}
		case <-tick.C:
			if len(pending) == 0 {
				continue
			}
			finished, err := s.sendProgress(ctx, c, sse, pending, sent)
			if err != nil {
				return nil
			}
			clear(pending)
			if !finished {
				continue
			}
			if busy, err := s.anyUnfinished(ctx); err == nil && !busy {
				// A document that finished after this tick's progress was gathered (its snapshot still
				// in the channel) gets its final row before the end, or its row would stay unfinished.
				if _, err := s.sendAllRows(ctx, c, sse, sent); err != nil {
					return nil
				}
				return sse.send("idle", "")
			}
		}
	}
}

// sendProgress sends the fresh row of each document and reports whether any of them reached an end.
func (s *server) sendProgress(ctx context.Context, c echo.Context, sse *sseStream, pending map[string]graphrag.Progress, sent map[string]string) (bool, error) {
	finished := false
	for id, p := range pending {
		html := ""
		doc, err := s.Store.Document(ctx, id)
		switch {
		case errors.Is(err, graphrag.ErrNotFound):
			finished = true // deleted: the empty row removes it from the page
		case err != nil:
			s.Logger.Warn("progress: read document", "doc", id, "err", err)
			continue
		default:
			finished = finished || doc.Status.Finished()
			var buf bytes.Buffer
			if err := web.DocumentRowView(documentRow(doc, &p), csrfToken(c)).Render(ctx, &buf); err != nil {
				return false, err
			}
			html = buf.String()
		}
		if err := sse.send("doc-"+id, html); err != nil {
			return false, err
		}
		sent[id] = html
	}
	return finished, nil
}

// sendAllRows sends the row of every document of the first page and of every unfinished one that differs
// from the row sent last (sent, updated), and an empty row for each document the page showed as being
// replaced (?replaced=ID,...) that is gone by now: its replacement may have finished before the stream
// opened. It reports whether any document is unfinished. Read again every progressPoll, it shows the
// progress of jobs other processes sharing the store run.
func (s *server) sendAllRows(ctx context.Context, c echo.Context, sse *sseStream, sent map[string]string) (bool, error) {
	docs, err := s.Store.Documents(ctx)
	if err != nil {
		return false, err
	}
	stored, replaced := map[string]bool{}, map[string]bool{}
	for _, d := range docs {
		stored[d.ID], replaced[d.Replaces] = true, d.Replaces != ""
	}
	busy := false
	for i, d := range docs {
		if i >= perPage && d.Status.Finished() {
			continue
		}
		busy = busy || !d.Status.Finished()
		row := documentRow(d, nil)
		row.Replaced = replaced[d.ID]
		var buf bytes.Buffer
		if err := web.DocumentRowView(row, csrfToken(c)).Render(ctx, &buf); err != nil {
			return false, err
		}
		if html, ok := sent[d.ID]; ok && html == buf.String() {
			continue
		}
		if err := sse.send("doc-"+d.ID, buf.String()); err != nil {
			return false, err
		}
		sent[d.ID] = buf.String()
	}
	for _, id := range strings.Split(c.QueryParam("replaced"), ",") {
		if html, ok := sent[id]; id != "" && !stored[id] && (!ok || html != "") {
			if err := sse.send("doc-"+id, ""); err != nil {
				return false, err
			}
			sent[id] = ""
		}
	}
	return busy, nil
}

func (s *server) anyUnfinished(ctx context.Context) (bool, error) {
	docs, err := s.Store.Documents(ctx)
	if err != nil {
		return false, err
	}
	for _, d := range docs {
		if !d.Status.Finished() {
			return true, nil
		}
	}
	return false, nil
}
