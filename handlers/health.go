package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// Check is the state of one dependency as shown on the status page.
type Check struct {
	Name       string `json:"name"`
	Configured string `json:"configured"`
	OK         bool   `json:"ok"`
	Detail     string `json:"detail,omitempty"`
}

// Status is what /status and /api/status show.
type Status struct {
	Checks   []Check           `json:"checks"`
	Settings map[string]string `json:"settings"`
}

// StatusFunc gathers the status; it must return within ctx's deadline.
type StatusFunc func(ctx context.Context) Status

func health(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

func statusJSON(f StatusFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 5*time.Second)
		defer cancel()
		return c.JSON(http.StatusOK, f(ctx))
	}
}
