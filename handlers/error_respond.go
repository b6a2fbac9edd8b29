package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hopwise/hopwise/apiv1"
	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// respondError is the one place errors become responses: it logs server faults once, with the request,
// and answers in the form the client wants (JSON for the API, an alert fragment for htmx, a page otherwise).
func (s *server) respondError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, message := s.classify(err)
	if status >= 500 {
		s.Logger.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path,
			"client", c.RealIP(), "status", status, "err", err)
	}
	if status == http.StatusTooManyRequests {
		c.Response().Header().Set("Retry-After", "60")
	}
	var werr error
	switch {
	case c.Request().Method == http.MethodHead:
		werr = c.NoContent(status)
	case strings.HasPrefix(c.Request().URL.Path, "/v1/"):
		werr = c.JSON(status, newOpenAIError(status, message))
	case isProgramPath(c.Request().URL.Path):
		werr = c.JSON(status, map[string]string{"error": message})
	case isHTMX(c):
		c.Response().Header().Set("HX-Retarget", "#flash")
		c.Response().Header().Set("HX-Reswap", "innerHTML")
		werr = render(c, status, web.Flash("bad", message))
	default:
		werr = render(c, status, web.ErrorPage(meta(c, "Error", ""), status, message))
	}
	if werr != nil {
		s.Logger.Debug("write error response", "path", c.Request().URL.Path, "err", werr)
	}
}

// classify turns an error into a status and a message people can act on.
func (s *server) classify(err error) (int, string) {
	var he *echo.HTTPError
	var tooBig *http.MaxBytesError
	var ambiguous *graphrag.AmbiguousError
	switch {
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("The upload is larger than the limit of %s for one request.", web.Bytes(tooBig.Limit))
	case errors.As(err, &he):
		if m, ok := he.Message.(string); ok {
			return he.Code, m
		}
		return he.Code, http.StatusText(he.Code)
	case errors.Is(err, apiv1.ErrBadInput):
		return http.StatusBadRequest, inputProblem(err)
	case errors.As(err, &ambiguous):
		return http.StatusConflict, ambiguousProblem(ambiguous)
	case errors.Is(err, graphrag.ErrUploadAgain):
		return http.StatusConflict, "This file failed before it was read, and its copy was not kept: upload it again to try once more."
	case errors.Is(err, graphrag.ErrNothingToRetry):
		return http.StatusConflict, "Nothing in this document failed, or it is still being read: there is nothing to try again."
	case errors.Is(err, auth.ErrForbidden):
		return http.StatusForbidden, "Your role does not allow this. An admin can change your role."
	case errors.Is(err, auth.ErrNotFound):
		return http.StatusNotFound, "That account or token was not found."
	case errors.Is(err, graphrag.ErrNotFound):
		return http.StatusNotFound, "That was not found. It may have been deleted."
	case errors.Is(err, graphrag.ErrUnavailable):
		return http.StatusServiceUnavailable, "The knowledge store cannot be reached right now. Please try again in a moment."
	case errors.Is(err, context.Canceled):
		return 499, "The request was cancelled."
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, "This took too long. Please try again."
	default:
		return http.StatusInternalServerError, "Something went wrong on our side. Please try again; if it keeps happening, check the Status page."
	}
}
