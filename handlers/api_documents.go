package handlers

import (
	"net/http"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/labstack/echo/v4"
)

// documentJSON is a document as the API shows it.
type documentJSON struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Title        string    `json:"title"`
	Status       string    `json:"status"`
	Error        string    `json:"error,omitempty"`
	Size         int64     `json:"size"`
	Chunks       int       `json:"chunks"`
	Entities     int       `json:"entities"`
	Relations    int       `json:"relations"`
	FailedChunks int       `json:"failed_chunks"`
	CreatedAt    time.Time `json:"created_at"`
}

func toDocumentJSON(d graphrag.Document) documentJSON {
	return documentJSON{ID: d.ID, Name: d.Name, Title: d.Title, Status: string(d.Status), Error: d.Error, Size: d.Size,
		Chunks: d.Chunks, Entities: d.Entities, Relations: d.Relations, FailedChunks: d.FailedChunks, CreatedAt: d.CreatedAt}
}

func (s *server) apiDocuments(c echo.Context) error {
	docs, err := s.Store.Documents(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]documentJSON, len(docs))
	for i, d := range docs {
		out[i] = toDocumentJSON(d)
	}
	return c.JSON(http.StatusOK, map[string]any{"documents": out})
}

func (s *server) apiDocument(c echo.Context) error {
	d, err := s.Store.Document(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toDocumentJSON(d))
}

func (s *server) apiUpload(c echo.Context) error {
	files, status, err := s.receiveFiles(c)
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
