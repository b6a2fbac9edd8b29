package handlers

import (
	"bytes"
	"net/http"

	"github.com/hopwise/hopwise/samples"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// documentsSamples ingests the sample documents (package samples) through the same path as an upload, from
// the button on the empty documents page: htmx gets the results and the list, whose rows then follow each
// document's progress; a form sent without JavaScript gets the whole page.
func (s *server) documentsSamples(c echo.Context) error {
	ctx := c.Request().Context()
	var results []web.UploadResult
	for _, d := range samples.List() {
		r := web.UploadResult{Name: d.Name, Kind: "ok", Message: "Received. It is being read now; follow its progress in the list."}
		doc, dup, err := s.Ingester.Submit(ctx, d.Name, bytes.NewReader(d.Body))
		switch {
		case err != nil:
			s.Logger.Error("samples: submit", "name", d.Name, "err", err)
			r.Kind, r.Message = "bad", "This sample could not be stored. Please try again; if it keeps failing, check the Status page."
		case dup:
			r.Kind, r.Message = "same", "Already added as “"+doc.Name+"”. Nothing was changed."
		default:
			auditName(c, d.Name)
		}
		results = append(results, r)
	}
	p, err := s.documentsView(c, results)
	if err != nil {
		return err
	}
	if !isHTMX(c) {
		return render(c, http.StatusOK, web.DocumentsView(p))
	}
	return render(c, http.StatusOK, web.UploadFragment(p))
}
