package handlers

import (
	"net/http"

	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// documentDelete deletes a document once confirmed. htmx asks with a dialog and sends confirmed=yes; a form
// sent without JavaScript first gets a page that asks.
func (s *server) documentDelete(c echo.Context) error {
	ctx := c.Request().Context()
	doc, err := s.Store.Document(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	if c.FormValue("confirmed") != "yes" {
		p := web.DeleteConfirmPage{Meta: meta(c, "Delete "+doc.Name, web.NavDocuments), Doc: documentRow(doc, nil)}
		return render(c, http.StatusOK, web.DeleteConfirmView(p))
	}
	if err := s.Ingester.Delete(ctx, doc.ID); err != nil {
		return err
	}
	if isHTMX(c) {
		return render(c, http.StatusOK, web.Deleted(doc.Name))
	}
	return redirect(c, "/documents")
}
