package handlers

import (
	"net/http"

	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// documentRetry queues again what failed in a document: htmx gets a note and the refreshed list, which
// follows the job's progress as after an upload; a form sent without JavaScript returns to the list.
func (s *server) documentRetry(c echo.Context) error {
	ctx := c.Request().Context()
	doc, err := s.Store.Document(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	if _, err := s.Ingester.Retry(ctx, doc.ID); err != nil {
		return err
	}
	if !isHTMX(c) {
		return redirect(c, "/documents")
	}
	results := []web.UploadResult{{Name: doc.Name, Kind: "ok", Message: "Trying again what failed; follow its progress in the list."}}
	p, err := s.documentsView(c, results)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.UploadFragment(p))
}
