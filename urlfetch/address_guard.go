package urlfetch

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
)

// blocked are the networks, beyond what netip's predicates name, that are not the public internet.
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"; 0.0.0.0 reaches the local host
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and the broadcast address
	netip.MustParsePrefix("::/96"),           // deprecated IPv4-compatible IPv6 (::127.0.0.1)
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2001::/32"),       // Teredo, which tunnels to an embedded IPv4 address
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
}

var (
	nat64   = netip.MustParsePrefix("64:ff9b::/96") // well-known NAT64: the last 4 bytes are an IPv4 address
	sixTo4  = netip.MustParsePrefix("2002::/16")    // 6to4: bytes 2-5 are an IPv4 address
	anyAddr = netip.IPv4Unspecified()
)

// publicAddr reports whether a is an address of the public internet. IPv4-mapped IPv6 addresses and the
// IPv4 addresses embedded in NAT64 and 6to4 addresses are judged as the IPv4 address they reach.
func publicAddr(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() || a == anyAddr {
		return false
	}
	for _, p := range blocked {
		if p.Contains(a) {
			return false
		}
	}
	b := a.As16()
	switch {
	case nat64.Contains(a):
		return publicAddr(netip.AddrFrom4([4]byte(b[12:16])))
	case sixTo4.Contains(a):
		return publicAddr(netip.AddrFrom4([4]byte(b[2:6])))
	}
	return true
}

// guard decides which addresses may be dialled: public ones, and those inside an allowed prefix.
type guard struct{ allow []netip.Prefix }

func (g guard) permits(a netip.Addr) bool {
	for _, p := range g.allow {
		if p.Contains(a) || p.Contains(a.Unmap()) {
			return true
		}
	}
	return publicAddr(a)
}

// control runs in net.Dialer.Control, after name resolution and before connect(2), for every address
// tried: so the check covers the addresses DNS really returned (also when it changes its answer between
// two lookups) and the host of every redirect.
func (g guard) control(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("%w: network %s", ErrForbiddenAddress, network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unreadable address %q", ErrForbiddenAddress, address)
	}
	if !g.permits(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, ap.Addr())
	}
	return nil
}

// checkNumericHost refuses hosts written as a number in a form other than the dotted quad: resolvers
// built on inet_aton read "2130706433", "0x7f.1" and "0177.0.0.1" as 127.0.0.1, and Go's resolver would
// send them to DNS. As in the WHATWG URL standard, a host whose last label is a number is an IPv4 address.
func (g guard) checkNumericHost(host string) error {
	h := strings.TrimSuffix(host, ".")
	labels := strings.Split(h, ".")
	if !numericLabel(labels[len(labels)-1]) {
		return nil
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil // canonical: the dialer's check applies
	}
	a, ok := legacyIPv4(labels)
	switch {
	case !ok:
		return fmt.Errorf("%w: %q is neither a name nor an IPv4 address", ErrInvalidURL, host)
	case !g.permits(a):
		return fmt.Errorf("%w: %q is %s", ErrForbiddenAddress, host, a)
	default:
		return fmt.Errorf("%w: write the address %q as %s", ErrInvalidURL, host, a)
	}
}

func numericLabel(s string) bool {
	_, ok := parseLegacyPart(s)
	return ok || strings.HasPrefix(strings.ToLower(s), "0x") || (s != "" && strings.Trim(s, "0123456789") == "")
}

// legacyIPv4 parses the 1 to 4 parts of an inet_aton address: each decimal, octal (leading 0) or hex
// (0x); the last part fills the bytes the others left.
func legacyIPv4(labels []string) (netip.Addr, bool) {
	if len(labels) > 4 {
		return netip.Addr{}, false
	}
	var out uint64
	for i, l := range labels {
		v, ok := parseLegacyPart(l)
		if !ok {
			return netip.Addr{}, false
		}
		last := i == len(labels)-1
		if !last {
			if v > 255 {
				return netip.Addr{}, false
			}
			out |= v << (8 * (3 - i))
			continue
		}
		if v >= 1<<(8*(4-i)) {
			return netip.Addr{}, false
		}
		out |= v
	}
	return netip.AddrFrom4([4]byte{byte(out >> 24), byte(out >> 16), byte(out >> 8), byte(out)}), true
}

func parseLegacyPart(s string) (uint64, bool) {
	base := 10
	switch {
	case len(s) > 1 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
		if s == "" {
			return 0, true
		}
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	if s == "" || strings.ContainsAny(s, "+-_") {
		return 0, false
	}
	v, err := strconv.ParseUint(s, base, 32)
	return v, err == nil
}
