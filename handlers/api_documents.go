package handlers

import (
	"net/http"

	"github.com/hopwise/hopwise/apiv1"
	"github.com/labstack/echo/v4"
)

func (s *server) apiDocuments(c echo.Context) error {
	docs, err := s.Store.Documents(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]apiv1.Document, len(docs))
	for i, d := range docs {
		out[i] = apiv1.NewDocument(d)
	}
	return c.JSON(http.StatusOK, map[string]any{"documents": out})
}

func (s *server) apiDocument(c echo.Context) error {
	d, err := s.Store.Document(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apiv1.NewDocument(d))
}

func (s *server) apiUpload(c echo.Context) error {
	files, status, err := s.receiveFiles(c, c.QueryParam("replace") == "true", "")
	if err != nil {
		return err
	}
	return c.JSON(status, map[string]any{"files": files})
}

func (s *server) apiDocumentDelete(c echo.Context) error {
	ctx := c.Request().Context()
	d, err := s.Store.Document(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	if err := s.Ingester.Delete(ctx, d.ID); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
