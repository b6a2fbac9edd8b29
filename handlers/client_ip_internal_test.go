package handlers

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

func TestParseTrustedProxies(t *testing.T) {
	got, err := ParseTrustedProxies(" 10.0.0.0/8, 192.168.1.7 ,fd00::/8,, 172.18.0.1/16")
	want := []string{"10.0.0.0/8", "192.168.1.7/32", "fd00::/8", "172.18.0.0/16"}
	if err != nil || len(got) != len(want) {
		t.Fatalf("ParseTrustedProxies = %v, %v; want %v", got, err, want)
	}
	for i, p := range got {
		if p.String() != want[i] {
			t.Errorf("prefix %d = %s, want %s", i, p, want[i])
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.example", "10.0.0"} {
		if _, err := ParseTrustedProxies(bad); err == nil || !strings.Contains(err.Error(), "HOPWISE_TRUSTED_PROXIES") {
			t.Errorf("ParseTrustedProxies(%q) = %v, want an error naming the setting", bad, err)
		}
	}
}

// The client address behind proxies: X-Forwarded-For is read from the right past every trusted proxy, so
// what a client wrote to the left of its own address changes nothing; an untrusted peer's header is
// ignored.
func TestClientIPBehindTrustedProxies(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, tc := range []struct{ peer, xff, want string }{
		{"10.0.0.2:4000", "203.0.113.9", "203.0.113.9"},
		{"10.0.0.2:4000", "198.51.100.1, 203.0.113.9, 10.0.0.3", "203.0.113.9"},
		{"192.0.2.50:4000", "203.0.113.9", "192.0.2.50"},
		{"10.0.0.2:4000", "", "10.0.0.2"},
		{"[::1]:4000", "203.0.113.9", "::1"},
	} {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tc.peer
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := clientIP(trusted)(r); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: client %s, want %s", tc.peer, tc.xff, got, tc.want)
		}
	}
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "10.0.0.2:4000"
	r.Header.Set("X-Forwarded-For", "203.0.113.9")
	if got := clientIP(nil)(r); got != "10.0.0.2" {
		t.Errorf("without trusted proxies the client is %s, want the peer", got)
	}
}
