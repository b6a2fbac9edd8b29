package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"
)

// contentSecurityPolicy allows nothing but this origin: no inline scripts or styles, no outside images,
// no framing. Every script and style of the pages is a static file.
const contentSecurityPolicy = "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		return next(c)
	}
}

// smallBody is the limit of every request body but uploads.
const smallBody = 256 << 10

// limitBodies refuses a body over its limit with 413 before anything reads it: at once when the declared
// Content-Length is over, and when the bytes actually read pass it otherwise (chunked or lying bodies).
// Uploads may be up to uploadLimit; every other request up to smallBody.
func limitBodies(uploadLimit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			limit := int64(smallBody)
			if isUpload(c) {
				limit = uploadLimit
			}
			if r.ContentLength > limit {
				return &http.MaxBytesError{Limit: limit}
			}
			r.Body = http.MaxBytesReader(c.Response(), r.Body, limit)
			return next(c)
		}
	}
}

func isUpload(c echo.Context) bool {
	return c.Request().Method == http.MethodPost && (c.Path() == "/documents" || c.Path() == "/api/documents" || c.Path() == "/api/v1/documents")
}

// rateLimit allows perMinute requests per client address and minute, with bursts of that size; more get 429.
func rateLimit(perMinute int, message string) echo.MiddlewareFunc {
	return rateLimitWith(newRateStore(perMinute), message)
}

// newRateStore counts requests per client: perMinute a minute, in bursts of that size.
func newRateStore(perMinute int) middleware.RateLimiterStore {
	return middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
		Rate: rate.Limit(float64(perMinute) / 60), Burst: perMinute, ExpiresIn: 3 * time.Minute,
	})
}

// rateLimitWith answers 429 with message to a client the store refuses; routes sharing a store share the budget.
func rateLimitWith(store middleware.RateLimiterStore, message string) echo.MiddlewareFunc {
	return middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
		Store:               store,
		IdentifierExtractor: func(c echo.Context) (string, error) { return c.RealIP(), nil },
		DenyHandler: func(c echo.Context, _ string, _ error) error {
			return echo.NewHTTPError(http.StatusTooManyRequests, message)
		},
	})
}
