package urlfetch

import (
	"errors"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func TestPublicAddr(t *testing.T) {
	tests := []struct {
		name   string
		addr   string
		public bool
	}{
		{"loopback", "127.0.0.1", false},
		{"loopback elsewhere in 127/8", "127.42.0.9", false},
		{"IPv6 loopback", "::1", false},
		{"RFC 1918 10/8", "10.0.0.1", false},
		{"RFC 1918 172.16/12", "172.31.255.254", false},
		{"RFC 1918 192.168/16", "192.168.1.1", false},
		{"unique local fc00::/7", "fd12:3456::1", false},
		{"cloud metadata", "169.254.169.254", false},
		{"IPv6 link-local", "fe80::1", false},
		{"IPv6 link-local with zone", "fe80::1%eth0", false},
		{"unspecified", "0.0.0.0", false},
		{"IPv6 unspecified", "::", false},
		{"this network 0/8", "0.1.2.3", false},
		{"CGNAT", "100.64.0.1", false},
		{"CGNAT upper end", "100.127.255.254", false},
		{"multicast", "224.0.0.1", false},
		{"IPv6 multicast", "ff02::1", false},
		{"broadcast", "255.255.255.255", false},
		{"IPv4-mapped loopback", "::ffff:127.0.0.1", false},
		{"IPv4-mapped metadata", "::ffff:169.254.169.254", false},
		{"IPv4-compatible loopback", "::127.0.0.1", false},
		{"NAT64 of loopback", "64:ff9b::7f00:1", false},
		{"6to4 of 10.0.0.1", "2002:a00:1::1", false},
		{"public IPv4", "93.184.215.14", true},
		{"public IPv4 next to CGNAT", "100.128.0.1", true},
		{"public IPv6", "2606:4700::1111", true},
		{"IPv4-mapped public", "::ffff:93.184.215.14", true},
		{"NAT64 of a public address", "64:ff9b::5db8:d70e", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := publicAddr(netip.MustParseAddr(tt.addr)); got != tt.public {
				t.Errorf("publicAddr(%s) = %v, want %v", tt.addr, got, tt.public)
			}
		})
	}
}

func TestGuardAllowsOnlyListedPrefixes(t *testing.T) {
	g := guard{allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}
	tests := []struct {
		address string
		network string
		want    error
	}{
		{"127.0.0.2:8080", "tcp4", nil},
		{"[::ffff:127.0.0.2]:8080", "tcp6", nil},
		{"127.0.0.1:8080", "tcp4", ErrForbiddenAddress},
		{"[::1]:8080", "tcp6", ErrForbiddenAddress},
		{"93.184.215.14:443", "tcp4", nil},
		{"93.184.215.14:53", "udp4", ErrForbiddenAddress},
		{"not an address", "tcp4", ErrForbiddenAddress},
	}
	for _, tt := range tests {
		if err := g.control(tt.network, tt.address, nil); !errors.Is(err, tt.want) {
			t.Errorf("control(%s, %s) = %v, want %v", tt.network, tt.address, err, tt.want)
		}
	}
}

func TestNumericHosts(t *testing.T) {
	tests := []struct {
		host string
		want error
	}{
		{"example.org", nil},
		{"93.184.215.14", nil}, // canonical: judged when dialled
		{"127.0.0.1", nil},     // canonical: judged when dialled
		{"2130706433", ErrForbiddenAddress},
		{"0177.0.0.1", ErrForbiddenAddress},
		{"0x7f.0.0.1", ErrForbiddenAddress},
		{"0x7f000001", ErrForbiddenAddress},
		{"127.1", ErrForbiddenAddress},
		{"127.0.0.1.", ErrForbiddenAddress},
		{"0", ErrForbiddenAddress},
		{"10.1", ErrForbiddenAddress},
		{"0251.0376.0251.0376", ErrForbiddenAddress}, // 169.254.169.254
		{"1572395790", ErrInvalidURL},                // 93.184.215.14 written as one number
		{"1.2.3.4.5", ErrInvalidURL},
		{"08.0.0.1", ErrInvalidURL},
		{"256.0.0.1", ErrInvalidURL},
		{"4294967296", ErrInvalidURL},
	}
	for _, tt := range tests {
		if err := (guard{}).checkNumericHost(tt.host); !errors.Is(err, tt.want) {
			t.Errorf("checkNumericHost(%q) = %v, want %v", tt.host, err, tt.want)
		}
	}
}

func TestPageName(t *testing.T) {
	tests := []struct{ url, ext, want string }{
		{"https://example.org/", ".html", "example.org.html"},
		{"https://example.org", ".html", "example.org.html"},
		{"https://example.org/wiki/Graph_theory.php?x=1", ".html", "example.org-Graph_theory.html"},
		{"https://example.org/papers/a%20b%2Fc.pdf", ".pdf", "example.org-a-b-c.pdf"},
		{"https://example.org/notes/", ".md", "example.org-notes.md"},
		{"http://[2606:4700::1111]:8080/x", ".txt", "2606-4700-1111-x.txt"},
		{"https://example.org/../../etc/passwd", ".txt", "example.org-passwd.txt"},
		{"https://example.org/" + strings.Repeat("a", 300), ".html", "example.org-" + strings.Repeat("a", 88) + ".html"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := pageName(u, tt.ext); got != tt.want {
			t.Errorf("pageName(%s) = %q, want %q", tt.url, got, tt.want)
		}
	}
}
