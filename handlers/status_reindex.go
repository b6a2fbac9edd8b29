package handlers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// Reindexer re-embeds the store with the configured embedding model and extracts its graph again with the
// configured chat model (graphrag.Reindexer).
type Reindexer interface {
	Status(ctx context.Context) (graphrag.ReindexStatus, error)
	// Start runs a re-index in the background until it ends or ctx does; the channel closes then.
	Start(ctx context.Context, opt graphrag.ReindexOptions) (<-chan struct{}, error)
}

// reindexView is the status page's search index section, nil without a Reindexer or when its state
// cannot be read (the page's store check says why).
func (s *server) reindexView(ctx context.Context) *web.StatusReindex {
	if s.Reindex == nil {
		return nil
	}
	st, err := s.Reindex.Status(ctx)
	if err != nil {
		s.Logger.Warn("status: re-index state", "err", err)
		return nil
	}
	v := &web.StatusReindex{
		ActiveModel: st.State.Active.Model, ActiveDim: st.State.Active.Dim,
		ConfiguredModel: st.Configured.Model, ConfiguredDim: st.Configured.Dim,
		Needed: st.Needed, Running: st.Running, Error: st.Last.Error, Finished: st.Last.Finished,
		Staged: st.State.Target.Dim > 0,
		Done:   st.State.ChunksStaged + st.State.RelationsStaged, Total: st.State.Chunks + st.State.Relations,
		Step: st.Last.Step, Kept: st.Last.Kept,
		CanReextract: st.CanReextract, GraphModel: st.GraphModel, GraphStaged: st.Graph.Model != "",
		GraphDone: st.Graph.Staged, GraphTotal: st.Graph.Chunks, Elsewhere: st.Elsewhere.Holder,
	}
	if v.ActiveModel == "" {
		v.ActiveModel = "a model the store did not record"
	}
	if st.Running && st.Last.Total > 0 || st.Last.Finished {
		v.Done, v.Total = st.Last.Done, st.Last.Total // the re-index's own count, which includes what it found meanwhile
	}
	if st.Configured.Dim <= 0 {
		v.Unavailable = "A re-index needs the configured embedding model's dimension: the model did not answer at start " +
			"and EMBED_DIM is not set."
	}
	return v
}

// statusReindex starts a re-index from the status page's button: the search index section for htmx, a
// redirect to the status page for a plain form. A re-index already running, here or in another process
// sharing the store (graphrag.ReindexHeldError), is no error: the section shows it.
func (s *server) statusReindex(c echo.Context) error {
	err := s.startReindex(c)
	if err != nil && !errors.Is(err, graphrag.ErrReindexRunning) {
		return err
	}
	if !isHTMX(c) {
		return redirect(c, "/status#reindex")
	}
	return s.statusReindexProgress(c)
}

// startReindex starts a re-index that outlives the request and stops when the server shuts down.
func (s *server) startReindex(c echo.Context) error {
	if s.Reindex == nil {
		return echo.NewHTTPError(http.StatusNotFound, "This server cannot re-index.")
	}
	// The form names its step: embeddings (the default, also of a form without one) or graph.
	opt := graphrag.ReindexOptions{Embeddings: c.FormValue("embeddings") != "", Graph: c.FormValue("graph") != ""}
	if !opt.Graph {
		opt.Embeddings = true
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(c.Request().Context()))
	done, err := s.Reindex.Start(ctx, opt)
	if err != nil {
		cancel()
		return err
	}
	go func() {
		defer cancel()
		select {
		case <-s.Closing:
		case <-done:
		}
	}()
	return nil
}

// statusReindexProgress renders the status page's search index section, which polls itself while a
// re-index runs.
func (s *server) statusReindexProgress(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 5*time.Second)
	defer cancel()
	v := s.reindexView(ctx)
	if v == nil {
		return echo.NewHTTPError(http.StatusNotFound, "This server cannot re-index.")
	}
	return render(c, http.StatusOK, web.StatusReindexSection(meta(c, "Status", web.NavStatus).CSRF, *v))
}
