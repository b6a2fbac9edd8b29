package handlers

import (
	"context"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// graphEntity is the detail panel of an entity: description, aliases, documents and source passages.
func (s *server) graphEntity(c echo.Context) error {
	ctx := c.Request().Context()
	key := graphrag.NormalizeKey(c.QueryParam("key"))
	found, err := s.Store.Entities(ctx, []string{key})
	if err != nil {
		return err
	}
	if len(found) == 0 {
		return echo.NewHTTPError(http.StatusNotFound, "This name is no longer in the graph.")
	}
	v := entityView(found[0])
	if v.Sources, v.Docs, err = s.sources(ctx, found[0].ChunkIDs); err != nil {
		return err
	}
	return render(c, http.StatusOK, web.EntityDetail(v))
}

// graphRelation is the detail panel of a relation, found among the relations of its source entity.
func (s *server) graphRelation(c echo.Context) error {
	ctx := c.Request().Context()
	id, source := c.QueryParam("id"), graphrag.NormalizeKey(c.QueryParam("source"))
	edges, err := s.Store.Neighborhood(ctx, []string{source}, 1, factEdgesSearch)
	if err != nil {
		return err
	}
	for _, e := range edges {
		if e.ID != id {
			continue
		}
		v := edgeView(e.Relation)
		if v.Sources, v.Docs, err = s.sources(ctx, e.ChunkIDs); err != nil {
			return err
		}
		return render(c, http.StatusOK, web.RelationDetail(v))
	}
	return echo.NewHTTPError(http.StatusNotFound, "This fact is no longer in the graph.")
}

// sources reads the first passages of chunkIDs and the documents they belong to.
func (s *server) sources(ctx context.Context, chunkIDs []string) ([]web.SourceView, []web.DocLink, error) {
	chunks, err := s.Store.Chunks(ctx, chunkIDs[:min(detailSources, len(chunkIDs))])
	if err != nil {
		return nil, nil, err
	}
	var srcs []web.SourceView
	var docs []web.DocLink
	seen := map[string]bool{}
	for _, ch := range chunks {
		srcs = append(srcs, web.SourceView{DocID: ch.DocID, DocName: ch.DocName, ChunkID: ch.ID, Text: passageExcerpt(ch.Text, passageChars)})
		if !seen[ch.DocID] {
			seen[ch.DocID] = true
			docs = append(docs, web.DocLink{ID: ch.DocID, Name: ch.DocName})
		}
	}
	return srcs, docs, nil
}

// passageChars bounds a passage shown under "Where it was found": most passages fit whole.
const passageChars = 1500

// passageExcerpt shortens a passage's Markdown to about n bytes at a line boundary, so that a table keeps
// whole rows (with its header, still a table) and a paragraph ends where a line does; a single long line
// is cut at a word.
func passageExcerpt(text string, n int) string {
	if len(text) <= n {
		return text
	}
	if cut := strings.LastIndexByte(text[:n], '\n'); cut > n/2 {
		return strings.TrimRight(text[:cut], "\n") + "\n\n…"
	}
	return snippet(text, n)
}

// snippet shortens text to about n bytes at a word boundary.
func snippet(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := n
	for cut > n/2 && text[cut] != ' ' {
		cut--
	}
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + " …"
}
