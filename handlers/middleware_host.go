package handlers

import (
	"net"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// hostAllowList answers 421 Misdirected Request to a request whose Host header is neither a loopback
// name (localhost, *.localhost, 127.0.0.0/8, ::1) nor one of the configured public names. This defeats
// DNS rebinding: a hostile page whose name was made to resolve to 127.0.0.1 is served nothing, so it can
// neither read a token nor change anything. /healthz answers any name (a load balancer's probe may use
// an address) and holds nothing.
func hostAllowList(public []string) echo.MiddlewareFunc {
	allowed := map[string]bool{}
	for _, h := range public {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			allowed[h] = true
		}
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if c.Request().URL.Path == "/healthz" || hostAllowed(c.Request().Host, allowed) {
				return next(c)
			}
			return c.String(http.StatusMisdirectedRequest, "This Hopwise does not answer to this name. "+
				"If you run it under this name, add it to HOPWISE_PUBLIC_HOST.\n")
		}
	}
}

// hostAllowed reports whether a Host header (name, optionally with a port) is a loopback name or one of
// allowed, which holds names with or without a port.
func hostAllowed(hostport string, allowed map[string]bool) bool {
	hostport = strings.ToLower(hostport)
	if allowed[hostport] {
		return true
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return false
	}
	if allowed[host] || host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
