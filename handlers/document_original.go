package handlers

import (
	"bytes"
	"mime"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// documentOriginal serves the file a document was uploaded as, so a citation can open it (at its page:
// the link adds #page=N for a PDF). Only a PDF and plain text are shown in the browser; anything else
// (an HTML page above all, which must never run as a page of this origin) is a download.
func (s *server) documentOriginal(c echo.Context) error {
	ctx := c.Request().Context()
	doc, err := s.Store.Document(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	body, err := s.Store.DocumentSource(ctx, doc.ID)
	if err != nil {
		return err
	}
	ctype, disposition := originalType(doc.Name, body)
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, mime.FormatMediaType(disposition, map[string]string{"filename": doc.Name}))
	h.Set(echo.HeaderXContentTypeOptions, "nosniff")
	if ctype != "application/pdf" {
		h.Set("Content-Security-Policy", "sandbox") // browsers' PDF viewers refuse to run sandboxed
	}
	return c.Blob(http.StatusOK, ctype, body)
}

// originalType is the content type and disposition an original is served with: a file named .pdf that
// starts like one is application/pdf inline; text formats are text/plain inline; the rest are downloads.
func originalType(name string, body []byte) (ctype, disposition string) {
	switch strings.ToLower(path.Ext(name)) {
	case ".pdf":
		if bytes.HasPrefix(body, []byte("%PDF-")) {
			return "application/pdf", "inline"
		}
	case ".txt", ".text", ".md", ".markdown", ".csv", ".tsv":
		if utf8.Valid(body) {
			return "text/plain; charset=utf-8", "inline"
		}
		return "text/plain", "inline"
	}
	return echo.MIMEOctetStream, "attachment"
}
