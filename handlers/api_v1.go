package handlers

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/hopwise/hopwise/apiv1"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/labstack/echo/v4"
)

// routesV1 adds the versioned JSON API: every route is described in the OpenAPI document it serves
// (apiOperations), and a test holds the two to each other.
func (s *server) routesV1(e *echo.Echo, askLimit, uploadLimit echo.MiddlewareFunc) {
	g := e.Group("/api/v1", programAccess)
	g.GET("/openapi.json", s.openAPI)
	g.GET("/status", s.in(func(v *server, c echo.Context) error { return statusJSON(v.Status)(c) }))
	g.GET("/documents", s.in((*server).v1Documents))
	g.POST("/documents", s.in((*server).apiUpload), uploadLimit)
	g.POST("/documents/url", s.in((*server).apiAddURL), uploadLimit)
	g.GET("/documents/:id", s.in((*server).v1Document))
	g.DELETE("/documents/:id", s.in((*server).v1DocumentDelete))
	g.POST("/documents/:id/retry", s.in((*server).v1DocumentRetry))
	g.GET("/documents/:id/original", s.in((*server).v1DocumentOriginal))
	g.GET("/passages/:id", s.in((*server).v1Passage))
	g.GET("/search", s.in((*server).v1Search))
	g.GET("/graph/entities", s.in((*server).v1Entities))
	g.GET("/graph/neighbourhood", s.in((*server).v1Neighbourhood))
	g.GET("/graph/duplicates", s.in((*server).apiDuplicates))
	g.GET("/graph/edits", s.in((*server).apiEdits))
	g.POST("/graph/edits", s.in((*server).apiEditCreate))
	g.POST("/graph/edits/:id/undo", s.in((*server).apiEditUndo))
	g.POST("/ask", s.in((*server).apiAsk), askLimit)
	g.GET("/conversations", s.in((*server).v1Conversations))
	g.GET("/conversations/:id", s.in((*server).v1Conversation))
	g.GET("/conversations/:id/turns/:turn/events", s.in((*server).apiTurnEvents))
	g.DELETE("/conversations/:id", s.in((*server).v1ConversationDelete))
}

func (s *server) service() apiv1.Service {
	return apiv1.Service{Store: s.Store, Retriever: s.Retriever}
}

// intParam reads an optional whole number; anything else is a 400 that names the parameter.
func intParam(c echo.Context, name string) (int, error) {
	raw := c.QueryParam(name)
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("%s must be a whole number.", name))
	}
	return n, nil
}

func pageParams(c echo.Context) (offset, limit int, err error) {
	if offset, err = intParam(c, "offset"); err != nil {
		return 0, 0, err
	}
	limit, err = intParam(c, "limit")
	return offset, limit, err
}

func (s *server) v1Documents(c echo.Context) error {
	offset, limit, err := pageParams(c)
	if err != nil {
		return err
	}
	page, err := s.service().Documents(c.Request().Context(), offset, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
}

func (s *server) v1Document(c echo.Context) error {
	d, err := s.service().Document(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

func (s *server) v1DocumentDelete(c echo.Context) error {
	ctx := c.Request().Context()
	d, err := graphrag.FindDocument(ctx, s.Store, c.Param("id"))
	if err != nil {
		return err
	}
	if err := s.Ingester.Delete(ctx, d.ID); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// v1DocumentRetry queues again what failed in a document and answers with it (status queued): follow its
// status as after an upload.
func (s *server) v1DocumentRetry(c echo.Context) error {
	ctx := c.Request().Context()
	d, err := graphrag.FindDocument(ctx, s.Store, c.Param("id"))
	if err != nil {
		return err
	}
	if d, err = s.Ingester.Retry(ctx, d.ID); err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, apiv1.NewDocument(d))
}

// v1DocumentOriginal sends the bytes the document was uploaded with, always as a download: an uploaded
// HTML file must never run as a page of this origin.
func (s *server) v1DocumentOriginal(c echo.Context) error {
	ctx := c.Request().Context()
	d, err := graphrag.FindDocument(ctx, s.Store, c.Param("id"))
	if err != nil {
		return err
	}
	body, err := s.Store.DocumentSource(ctx, d.ID)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, mime.FormatMediaType("attachment", map[string]string{"filename": d.Name}))
	return c.Blob(http.StatusOK, echo.MIMEOctetStream, body)
}

func (s *server) v1Passage(c echo.Context) error {
	p, err := s.service().Passage(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (s *server) v1Search(c echo.Context) error {
	k, err := intParam(c, "k")
	if err != nil {
		return err
	}
	res, err := s.service().Search(c.Request().Context(), c.QueryParam("q"), k)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (s *server) v1Entities(c echo.Context) error {
	k, err := intParam(c, "k")
	if err != nil {
		return err
	}
	found, err := s.service().Entities(c.Request().Context(), c.QueryParam("q"), k)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"entities": found})
}

// v1Neighbourhood reads the relations around every ?entity= (a key or a name).
func (s *server) v1Neighbourhood(c echo.Context) error {
	ctx := c.Request().Context()
	hops, err := intParam(c, "hops")
	if err != nil {
		return err
	}
	limit, err := intParam(c, "limit")
	if err != nil {
		return err
	}
	svc := s.service()
	var keys []string
	for _, name := range c.QueryParams()["entity"] {
		e, err := svc.Entity(ctx, name)
		if err != nil {
			return err
		}
		keys = append(keys, e.Key)
	}
	n, err := svc.Neighbourhood(ctx, keys, max(hops, 1), limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, n)
}

func (s *server) v1Conversations(c echo.Context) error {
	offset, limit, err := pageParams(c)
	if err != nil {
		return err
	}
	convs, err := s.Store.Conversations(c.Request().Context(), conversationScope(c))
	if err != nil {
		return err
	}
	part, next, err := apiv1.Page(convs, offset, limit)
	if err != nil {
		return err
	}
	page := apiv1.ConversationPage{Conversations: make([]apiv1.Conversation, len(part)), Total: len(convs), Offset: offset, NextOffset: next}
	for i, conv := range part {
		page.Conversations[i] = apiv1.NewConversation(conv, nil)
	}
	return c.JSON(http.StatusOK, page)
}

func (s *server) v1Conversation(c echo.Context) error {
	conv, turns, err := s.Store.Conversation(c.Request().Context(), conversationScope(c), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apiv1.NewConversation(conv, turns))
}

func (s *server) v1ConversationDelete(c echo.Context) error {
	ctx := c.Request().Context()
	if _, _, err := s.Store.Conversation(ctx, conversationScope(c), c.Param("id")); err != nil {
		return err
	}
	if err := s.Store.DeleteConversation(ctx, conversationScope(c), c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// isProgramPath reports the routes programs call with JSON and no cookies: the JSON APIs, the
// OpenAI-compatible endpoint and MCP.
func isProgramPath(path string) bool {
	return strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/v1/") || path == "/mcp"
}
