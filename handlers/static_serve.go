package handlers

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"

	"github.com/hopwise/hopwise/static"
	"github.com/labstack/echo/v4"
)

// serveStatic serves the embedded stylesheet, scripts and vendored libraries. Each file carries an ETag of
// its content, so browsers revalidate cheaply and never run a stale script after an upgrade.
func serveStatic() echo.HandlerFunc {
	etags := map[string]string{}
	_ = fs.WalkDir(static.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := fs.ReadFile(static.FS, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		etags[p] = `"` + hex.EncodeToString(sum[:8]) + `"`
		return nil
	})
	files := http.FileServerFS(static.FS)
	return func(c echo.Context) error {
		name := strings.TrimPrefix(c.Param("*"), "/")
		etag, ok := etags[name]
		if !ok {
			return echo.NewHTTPError(http.StatusNotFound, "No such file.")
		}
		h := c.Response().Header()
		h.Set("ETag", etag)
		h.Set("Cache-Control", "no-cache")
		r := c.Request().Clone(c.Request().Context())
		r.URL.Path = "/" + name
		files.ServeHTTP(c.Response(), r)
		return nil
	}
}
