// Package handlers serves Hopwise over HTTP with Echo: it parses requests, calls graphrag and agent, and
// renders web (templ) views or JSON. It holds no domain logic.
package handlers

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Deps is what the handlers need from the rest of the process.
type Deps struct {
	Logger *slog.Logger
	Status StatusFunc
}

// New returns the Echo instance with every route and middleware.
func New(d Deps) *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.Use(middleware.Recover())
	e.Use(requestLog(d.Logger))
	e.GET("/healthz", health)
	e.GET("/api/status", statusJSON(d.Status))
	return e
}

// NewHTTPServer wraps h with the timeouts that protect against slow clients (Slowloris): headers must
// arrive within 5 s; WriteTimeout stays 0 because answers stream for minutes and each stream enforces its
// own deadline.
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

func requestLog(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			logger.Info("request", "method", c.Request().Method, "path", c.Request().URL.Path,
				"status", c.Response().Status, "duration", time.Since(start).Round(time.Millisecond))
			return nil
		}
	}
}
