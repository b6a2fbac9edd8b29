package handlers

import (
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/parse"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// uploaded is what became of one file of an upload.
type uploaded struct {
	Name       string `json:"name"`
	Outcome    string `json:"outcome"` // accepted, duplicate, rejected
	DocumentID string `json:"document_id,omitempty"`
	Message    string `json:"message"`
	tooLarge   bool
}

// receiveFiles reads the whole multipart body within the request limit before any file is handed on, so
// a request refused with 413 leaves nothing behind; then each file is checked and submitted on its own, so
// one bad file (its name, size or content) never stops the others. The status is 413 when files were too
// large and none was accepted. With replacing set, a file replaces the document it names (graphrag's
// SubmitReplacing): target, else the one with the file's name.
func (s *server) receiveFiles(c echo.Context, replacing bool, target string) ([]uploaded, int, error) {
	parts, remove, err := readParts(c.Request(), s.Limits.MaxUploadBytes)
	defer remove()
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig) || errors.Is(err, multipart.ErrMessageTooLarge):
		return nil, 0, &http.MaxBytesError{Limit: s.Limits.MaxRequestBytes}
	case errors.Is(err, errSlowBody):
		return nil, 0, echo.NewHTTPError(http.StatusRequestTimeout, "The upload arrived too slowly and was stopped. Please try again on a better connection.")
	case errors.As(err, new(*echo.HTTPError)):
		return nil, 0, err
	case err != nil:
		return nil, 0, echo.NewHTTPError(http.StatusBadRequest, "The upload could not be read: it was cut off or is not a valid form.")
	case len(parts) == 0:
		return nil, 0, echo.NewHTTPError(http.StatusBadRequest, "Choose at least one file to upload.")
	}
	out := make([]uploaded, 0, len(parts))
	accepted, tooLarge := 0, 0
	for _, p := range parts {
		u := s.submitFile(c, p, replacing, target)
		if u.Outcome != "rejected" {
			accepted++
		}
		if u.tooLarge {
			tooLarge++
		}
		out = append(out, u)
	}
	status := http.StatusOK
	if tooLarge > 0 && accepted == 0 {
		status = http.StatusRequestEntityTooLarge
	}
	return out, status, nil
}

func (s *server) submitFile(c echo.Context, p partFile, replacing bool, target string) uploaded {
	name, nameErr := parse.CleanName(p.name)
	if nameErr != nil || p.badName {
		name = cmpOr(parse.DisplayName(p.name), "a file")
	}
	u := uploaded{Name: name, Outcome: "rejected"}
	switch {
	case nameErr != nil || p.badName:
		u.Message = "The name of this file holds a character that is not allowed (such as a NUL). Rename the file and upload it again."
		return u
	case p.tooLarge:
		u.Message = fmt.Sprintf("This file is larger than the limit of %s.", web.Bytes(s.Limits.MaxUploadBytes))
		u.tooLarge = true
		return u
	case !parse.Supported(name):
		u.Message = "Hopwise cannot read this kind of file. Use text, Markdown, HTML, PDF, Word (.docx), OpenDocument (.odt), Excel (.xlsx), PowerPoint (.pptx), CSV or EPUB files."
		return u
	case p.size == 0:
		u.Message = "This file is empty."
		return u
	}
	f, err := os.Open(p.path)
	if err != nil {
		s.Logger.Error("upload: open spooled file", "name", name, "err", err)
		u.Message = "This file could not be received. Please try again."
		return u
	}
	defer f.Close()
	var doc graphrag.Document
	var dup bool
	if replacing {
		doc, dup, err = s.Ingester.SubmitReplacing(c.Request().Context(), name, target, f)
	} else {
		doc, dup, err = s.Ingester.Submit(c.Request().Context(), name, f)
	}
	var ambiguous *graphrag.AmbiguousError
	switch {
	case errors.Is(err, graphrag.ErrBusy):
		u.Message = "The document this file replaces is still being read. Wait until it is done, then upload the new version again."
	case errors.As(err, &ambiguous):
		u.Message = fmt.Sprintf("%d documents are named “%s”: open the one to replace and use its Replace button.", len(ambiguous.Matches), name)
	case errors.Is(err, parse.ErrTooLarge):
		u.Message = fmt.Sprintf("This file is larger than the limit of %s.", web.Bytes(s.Limits.MaxUploadBytes))
		u.tooLarge = true
	case err != nil:
		s.Logger.Error("upload: submit", "name", name, "err", err)
		u.Message = "This file could not be stored. Please try again; if it keeps failing, check the Status page."
	case dup:
		u.Outcome, u.DocumentID = "duplicate", doc.ID
		u.Message = fmt.Sprintf("Already uploaded as “%s”, with the same content. Nothing was changed.", doc.Name)
	case doc.Replaces != "":
		auditName(c, name)
		u.Outcome, u.DocumentID = "accepted", doc.ID
		u.Message = "Received as a new version. Until it has been read, answers use the old version; then the old version is removed."
	default:
		auditName(c, name)
		u.Outcome, u.DocumentID = "accepted", doc.ID
		u.Message = "Received. It is being read now; follow its progress in the list."
	}
	return u
}

// documentsUpload takes files from the page's form, each replacing the document of its name, or from a
// document's Replace form (/documents/:id/replace), replacing that one: htmx gets the results and the
// refreshed list as fragments, a form sent without JavaScript gets the whole page.
func (s *server) documentsUpload(c echo.Context) error {
	if id := c.Param("id"); id != "" {
		if _, err := s.Store.Document(c.Request().Context(), id); err != nil {
			return err
		}
	}
	files, status, err := s.receiveFiles(c, true, c.Param("id"))
	if err != nil {
		return err
	}
	results := make([]web.UploadResult, len(files))
	for i, f := range files {
		kind := map[string]string{"accepted": "ok", "duplicate": "same", "rejected": "bad"}[f.Outcome]
		results[i] = web.UploadResult{Name: f.Name, Kind: kind, Message: f.Message}
	}
	p, err := s.documentsView(c, results)
	if err != nil {
		return err
	}
	if !isHTMX(c) {
		return render(c, status, web.DocumentsView(p))
	}
	// htmx swaps only 2xx answers into the results area; the per-file messages say what was refused.
	return render(c, http.StatusOK, web.UploadFragment(p))
}
