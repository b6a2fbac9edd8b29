package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"

	"github.com/hopwise/hopwise/graphrag/parse"
	"github.com/hopwise/hopwise/urlfetch"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// fetchedPage is what became of one web page added by its address.
type fetchedPage struct {
	URL        string `json:"url"`
	Name       string `json:"name,omitempty"`
	Outcome    string `json:"outcome"` // accepted, duplicate, rejected
	DocumentID string `json:"document_id,omitempty"`
	Message    string `json:"message"`
	status     int
}

// addPage fetches a page through the SSRF guard and submits it to the ingester like an uploaded file.
func (s *server) addPage(c echo.Context, rawURL string) (fetchedPage, error) {
	rawURL = strings.TrimSpace(rawURL)
	if rawURL == "" {
		return fetchedPage{}, echo.NewHTTPError(http.StatusBadRequest, "Enter the address of a web page, starting with https://.")
	}
	ctx := c.Request().Context()
	f := fetchedPage{URL: rawURL, Outcome: "rejected"}
	page, err := urlfetch.Fetch(ctx, rawURL, s.URLFetch)
	if err != nil {
		f.status, f.Message = fetchStatus(err), sentence(urlfetch.Reason(err))
		if errors.Is(err, urlfetch.ErrTooLarge) {
			f.Message = fmt.Sprintf("The page is larger than the limit of %s.", web.Bytes(s.URLFetch.MaxBytes))
		}
		s.Logger.Info("add page: not fetched", "client", c.RealIP(), "err", err)
		return f, nil
	}
	f.URL, f.Name = page.URL, page.Name
	doc, dup, err := s.Ingester.Submit(ctx, page.Name, bytes.NewReader(page.Body))
	switch {
	case errors.Is(err, parse.ErrTooLarge):
		f.status, f.Message = http.StatusRequestEntityTooLarge, fmt.Sprintf("The page is larger than the limit of %s.", web.Bytes(s.Limits.MaxUploadBytes))
	case err != nil:
		s.Logger.Error("add page: submit", "url", page.URL, "err", err)
		f.status, f.Message = http.StatusInternalServerError, "This page could not be stored. Please try again; if it keeps failing, check the Status page."
	case dup:
		f.Outcome, f.DocumentID, f.status = "duplicate", doc.ID, http.StatusOK
		f.Message = fmt.Sprintf("Already added as “%s”, with the same content. Nothing was changed.", doc.Name)
	default:
		auditName(c, page.Name)
		f.Outcome, f.DocumentID, f.status = "accepted", doc.ID, http.StatusOK
		f.Message = "Fetched. It is being read now; follow its progress in the list."
	}
	return f, nil
}

// fetchStatus is the API status of a page that could not be fetched: the address was refused (422), the
// page was too large (413), or the other server failed (502) or was too slow (504).
func fetchStatus(err error) int {
	var se *urlfetch.StatusError
	switch {
	case errors.Is(err, urlfetch.ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, urlfetch.ErrTimeout):
		return http.StatusGatewayTimeout
	case errors.As(err, &se), errors.Is(err, urlfetch.ErrUnknownHost), errors.Is(err, urlfetch.ErrUnreachable):
		return http.StatusBadGateway
	default:
		return http.StatusUnprocessableEntity
	}
}

// sentence capitalises a reason and ends it with a full stop.
func sentence(reason string) string {
	r := []rune(reason)
	if len(r) == 0 {
		return reason
	}
	r[0] = unicode.ToUpper(r[0])
	return string(r) + "."
}

// documentsAddURL takes a page address from the documents page: htmx gets the result and the refreshed
// list as fragments, a form sent without JavaScript gets the whole page.
func (s *server) documentsAddURL(c echo.Context) error {
	f, err := s.addPage(c, c.FormValue("url"))
	if err != nil {
		return err
	}
	kind := map[string]string{"accepted": "ok", "duplicate": "same", "rejected": "bad"}[f.Outcome]
	p, err := s.documentsView(c, []web.UploadResult{{Name: f.URL, Kind: kind, Message: f.Message}})
	if err != nil {
		return err
	}
	if !isHTMX(c) {
		return render(c, f.status, web.DocumentsView(p))
	}
	// htmx swaps only 2xx answers into the results area; the message says what was refused.
	return render(c, http.StatusOK, web.UploadFragment(p))
}

type addURLRequest struct {
	URL string `json:"url"`
}

// apiAddURL takes {"url": "..."} and answers with the fetchedPage, its status saying what happened.
func (s *server) apiAddURL(c echo.Context) error {
	var req addURLRequest
	if err := json.NewDecoder(c.Request().Body).Decode(&req); err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, `Send JSON: {"url": "https://example.org/page"}.`)
	}
	f, err := s.addPage(c, req.URL)
	if err != nil {
		return err
	}
	return c.JSON(f.status, f)
}
