package handlers

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/labstack/echo/v4"
)

// ParseTrustedProxies reads HOPWISE_TRUSTED_PROXIES: addresses or CIDR ranges, comma-separated.
func ParseTrustedProxies(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("HOPWISE_TRUSTED_PROXIES: %q is neither an address nor a CIDR range such as 10.0.0.0/8", f)
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("HOPWISE_TRUSTED_PROXIES: %q is neither an address nor a CIDR range such as 10.0.0.0/8", f)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// clientIP is how a request's client address is found, for the rate limits and the logs: the connection's
// peer, unless the peer is one of the trusted proxies; then X-Forwarded-For is read from the right, past
// every trusted proxy, to the first address that is not one. Nothing else is trusted: not loopback, not
// private ranges, so without HOPWISE_TRUSTED_PROXIES a client's invented header changes nothing.
func clientIP(trusted []netip.Prefix) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range trusted {
		opts = append(opts, echo.TrustIPRange(&net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// peerTrusted reports whether the connection's peer is a trusted proxy.
func peerTrusted(r *http.Request, trusted []netip.Prefix) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// servedOverTLS reports whether the browser reached this server over TLS: its own, or a trusted proxy's
// that says so in X-Forwarded-Proto. Cookies are marked Secure then.
func (s *server) servedOverTLS(c echo.Context) bool {
	r := c.Request()
	if r.TLS != nil {
		return true
	}
	return peerTrusted(r, s.TrustedProxies) && strings.EqualFold(r.Header.Get(echo.HeaderXForwardedProto), "https")
}
