package handlers

import (
	"net/http"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// acceptedTypes is the file input's accept list: the formats graphrag/parse reads.
const acceptedTypes = ".txt,.text,.md,.markdown,.html,.htm,.pdf,.docx,.xlsx,.pptx,.csv,.tsv,.epub,.odt"

func (s *server) documentsPage(c echo.Context) error {
	p, err := s.documentsView(c, nil)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.DocumentsView(p))
}

// documentsView is one page of the list (?page=N, newest first; an upload shows the first).
func (s *server) documentsView(c echo.Context, results []web.UploadResult) (web.DocumentsPage, error) {
	docs, err := s.Store.Documents(c.Request().Context())
	if err != nil {
		return web.DocumentsPage{}, err
	}
	page := 1
	if c.Request().Method == http.MethodGet {
		page = pageNumber(c.QueryParam("page"))
	}
	replaced := map[string]bool{}
	for _, d := range docs {
		replaced[d.Replaces] = d.Replaces != ""
	}
	docs, pager := pageOf(docs, page, c.QueryParams(), "/documents", "page", "Documents")
	rows := make([]web.DocumentRow, len(docs))
	live := false
	for i, d := range docs {
		rows[i] = documentRow(d, nil)
		rows[i].Replaced = replaced[d.ID]
		live = live || !d.Status.Finished()
	}
	return web.DocumentsPage{
		Meta: meta(c, "Documents", web.NavDocuments), Docs: rows, Pager: pager, Live: live, Results: results,
		MaxFile: web.Bytes(s.Limits.MaxUploadBytes), Accept: acceptedTypes,
	}, nil
}

func (s *server) documentPage(c echo.Context) error {
	ctx := c.Request().Context()
	doc, err := s.Store.Document(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	chunks, err := s.Store.DocumentChunks(ctx, doc.ID)
	if err != nil {
		return err
	}
	row := documentRow(doc, nil)
	p := web.DocumentPage{Meta: meta(c, row.Title, web.NavDocuments), Doc: row}
	for _, ch := range chunks {
		v := web.ChunkView{ID: ch.ID, Ordinal: ch.Ordinal, Section: strings.Join(ch.Section, " › "), Text: ch.Text,
			Page: web.PageLabel(doc.Name, ch.Page), PageURL: web.OriginalURL(doc.ID, doc.Name, ch.Page)}
		if ch.Status == graphrag.ChunkFailed {
			v.Failed = "Names and facts could not be found in this passage; its text is still searched."
		}
		p.Chunks = append(p.Chunks, v)
	}
	return render(c, http.StatusOK, web.DocumentView(p))
}
