package urlfetch_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopwise/hopwise/urlfetch"
)

// countingListener accepts connections on addr and counts them; nothing in these tests may reach it.
func countingListener(t *testing.T, addr string) (port string, accepted func() int64) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("listen %s: %v", addr, err)
	}
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, n.Load
}

// serve starts an httptest server on host (127.0.0.1 or 127.0.0.2) and returns the Options allowing it.
func serve(t *testing.T, host string, h http.Handler) (*httptest.Server, urlfetch.Options) {
	t.Helper()
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Skipf("listen %s: %v", host, err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, urlfetch.Options{Allow: []netip.Prefix{netip.MustParsePrefix(host + "/32")}, Timeout: 5 * time.Second}
}

func page(ctype, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no sniffing: an empty ctype means none
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		}
		fmt.Fprint(w, body)
	}
}

// RELIABILITY row 23: internal addresses, however written, are refused before any connection is made.
func TestFetchRefusesInternalAddressesWithoutConnecting(t *testing.T) {
	port, accepted := countingListener(t, "127.0.0.1:0")
	port6, accepted6 := "1", func() int64 { return 0 }
	if ln, err := net.Listen("tcp", "[::1]:0"); err == nil {
		ln.Close()
		port6, accepted6 = countingListener(t, "[::1]:0")
	}
	tests := []struct {
		name string
		url  string
		want error
	}{
		{"loopback", "http://127.0.0.1:" + port + "/", urlfetch.ErrForbiddenAddress},
		{"localhost", "http://localhost:" + port + "/", urlfetch.ErrForbiddenAddress},
		{"IPv6 loopback", "http://[::1]:" + port6 + "/", urlfetch.ErrForbiddenAddress},
		{"unspecified 0.0.0.0", "http://0.0.0.0:" + port + "/", urlfetch.ErrForbiddenAddress},
		{"IPv4-mapped loopback", "http://[::ffff:127.0.0.1]:" + port + "/", urlfetch.ErrForbiddenAddress},
		{"decimal loopback", "http://2130706433:" + port + "/", urlfetch.ErrForbiddenAddress},
		{"octal loopback", "http://0177.0.0.1:" + port + "/", urlfetch.ErrForbiddenAddress},
		{"hex loopback", "http://0x7f.0.0.1:" + port + "/", urlfetch.ErrForbiddenAddress},
		{"short loopback", "http://127.1:" + port + "/", urlfetch.ErrForbiddenAddress},
		{"private 10/8", "http://10.0.0.1:" + port + "/", urlfetch.ErrForbiddenAddress},
		{"private 192.168/16", "http://192.168.0.1/", urlfetch.ErrForbiddenAddress},
		{"cloud metadata", "http://169.254.169.254/latest/meta-data/", urlfetch.ErrForbiddenAddress},
		{"cloud metadata, mapped", "http://[::ffff:169.254.169.254]/latest/meta-data/", urlfetch.ErrForbiddenAddress},
		{"CGNAT", "http://100.64.0.1/", urlfetch.ErrForbiddenAddress},
		{"unique local IPv6", "http://[fd00::1]/", urlfetch.ErrForbiddenAddress},
		{"link-local IPv6 with zone", "http://[fe80::1%25lo]:" + port + "/", urlfetch.ErrForbiddenAddress},
		{"multicast", "http://224.0.0.1/", urlfetch.ErrForbiddenAddress},
		{"ftp", "ftp://127.0.0.1:" + port + "/file.txt", urlfetch.ErrScheme},
		{"file", "file:///etc/passwd", urlfetch.ErrScheme},
		{"gopher", "gopher://127.0.0.1:" + port + "/", urlfetch.ErrScheme},
		{"user and password", "http://admin:secret@example.org/", urlfetch.ErrUserinfo},
		{"no scheme", "example.org/page", urlfetch.ErrInvalidURL},
		{"no host", "http:///page", urlfetch.ErrInvalidURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := urlfetch.Fetch(context.Background(), tt.url, urlfetch.Options{Timeout: 3 * time.Second})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Fetch(%s) = %v, want %v", tt.url, err, tt.want)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("refused after %v: it was tried, not refused", d)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
	time.Sleep(50 * time.Millisecond) // let a stray connection, if any, be accepted and counted
	if n := accepted() + accepted6(); n != 0 {
		t.Errorf("the listener accepted %d connection(s)", n)
	}
}

func TestFetchReturnsThePageNamedByItsType(t *testing.T) {
	tests := []struct {
		name, ctype, body string
		wantName          string
		wantType          string
		wantErr           error
	}{
		{"HTML", "text/html; charset=utf-8", "<h1>Graphs</h1>", "127.0.0.1-doc.html", "text/html", nil},
		{"plain text", "text/plain", "Graphs.", "127.0.0.1-doc.txt", "text/plain", nil},
		{"Markdown", "text/markdown; charset=UTF-8", "# Graphs", "127.0.0.1-doc.md", "text/markdown", nil},
		{"PDF", "application/pdf", "%PDF-1.4", "127.0.0.1-doc.pdf", "application/pdf", nil},
		{"JSON", "application/json", "{}", "", "", urlfetch.ErrContentType},
		{"image", "image/png", "\x89PNG", "", "", urlfetch.ErrContentType},
		{"no Content-Type", "", "<h1>Graphs</h1>", "", "", urlfetch.ErrContentType},
		{"empty body", "text/html", "", "", "", urlfetch.ErrEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, opt := serve(t, "127.0.0.1", page(tt.ctype, tt.body))
			p, err := urlfetch.Fetch(context.Background(), srv.URL+"/docs/doc.php", opt)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if p.Name != tt.wantName || p.ContentType != tt.wantType || string(p.Body) != tt.body || p.URL != srv.URL+"/docs/doc.php" {
				t.Errorf("page = %q %q %q %q", p.URL, p.Name, p.ContentType, p.Body)
			}
		})
	}
}

func TestFetchReportsTheServersAnswer(t *testing.T) {
	srv, opt := serve(t, "127.0.0.1", http.NotFoundHandler())
	_, err := urlfetch.Fetch(context.Background(), srv.URL+"/missing", opt)
	var se *urlfetch.StatusError
	if !errors.As(err, &se) || se.Code != http.StatusNotFound {
		t.Fatalf("err = %v, want a 404 StatusError", err)
	}
	if got := urlfetch.Reason(err); got != "the web server answered 404 Not Found" {
		t.Errorf("Reason = %q", got)
	}
}

// RELIABILITY row 23: each redirect is checked again, at dial time, and their number is capped.
func TestFetchRechecksEveryRedirect(t *testing.T) {
	internalPort, internalHits := countingListener(t, "127.0.0.1:0")
	mux := http.NewServeMux()
	srv, opt := serve(t, "127.0.0.2", mux) // allowed; 127.0.0.1 is not
	mux.HandleFunc("/to-internal", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:"+internalPort+"/admin", http.StatusFound)
	})
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/to-decimal", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://2130706433:"+internalPort+"/", http.StatusFound)
	})
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://example.org/file.txt", http.StatusFound)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n == 0 {
			page("text/plain", "arrived")(w, r)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	tests := []struct {
		name    string
		path    string
		max     int
		wantErr error
	}{
		{"to 127.0.0.1 on another port", "/to-internal", 0, urlfetch.ErrForbiddenAddress},
		{"to the metadata address", "/to-metadata", 0, urlfetch.ErrForbiddenAddress},
		{"to a decimal loopback", "/to-decimal", 0, urlfetch.ErrForbiddenAddress},
		{"to ftp", "/to-ftp", 0, urlfetch.ErrScheme},
		{"to file", "/to-file", 0, urlfetch.ErrScheme},
		{"five hops, default cap", "/hop/5", 0, nil},
		{"six hops, default cap", "/hop/6", 0, urlfetch.ErrTooManyRedirects},
		{"two hops, cap 1", "/hop/2", 1, urlfetch.ErrTooManyRedirects},
		{"one hop, no redirects allowed", "/hop/1", -1, urlfetch.ErrTooManyRedirects},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := opt
			o.MaxRedirects = tt.max
			p, err := urlfetch.Fetch(context.Background(), srv.URL+tt.path, o)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err == nil && (string(p.Body) != "arrived" || p.URL != srv.URL+"/hop/0") {
				t.Errorf("page %q from %s", p.Body, p.URL)
			}
		})
	}
	if n := internalHits(); n != 0 {
		t.Errorf("the internal listener accepted %d connection(s)", n)
	}
}

// RELIABILITY row 23: the size cap holds while reading, whatever the server announces or compresses.
func TestFetchCapsTheSize(t *testing.T) {
	const limit = 64 << 10
	big := strings.Repeat("a", limit+1)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(bytes.Repeat([]byte("a"), 1<<20))
	zw.Close()
	tests := []struct {
		name    string
		h       http.HandlerFunc
		wantErr error
	}{
		{"exactly the limit", page("text/plain", big[:limit]), nil},
		{"one byte over, announced", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Length", fmt.Sprint(len(big)))
			fmt.Fprint(w, big)
		}, urlfetch.ErrTooLarge},
		{"one byte over, chunked", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			for i := 0; i < len(big); i += 4096 {
				fmt.Fprint(w, big[i:min(i+4096, len(big))])
				w.(http.Flusher).Flush()
			}
		}, urlfetch.ErrTooLarge},
		{"1 MiB gzip bomb", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(zipped.Bytes())
		}, urlfetch.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, opt := serve(t, "127.0.0.1", tt.h)
			opt.MaxBytes = limit
			p, err := urlfetch.Fetch(context.Background(), srv.URL, opt)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if int64(len(p.Body)) > limit {
				t.Errorf("read %d bytes past the limit", len(p.Body))
			}
		})
	}
}

// RELIABILITY row 23: a server that is slow to answer or trickles its body is cut off at the time cap.
func TestFetchTimesOut(t *testing.T) {
	tests := []struct {
		name string
		h    http.HandlerFunc
	}{
		{"slow headers", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
		}},
		{"trickled body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			for {
				fmt.Fprint(w, "a")
				w.(http.Flusher).Flush()
				select {
				case <-time.After(20 * time.Millisecond):
				case <-r.Context().Done():
					return
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, opt := serve(t, "127.0.0.1", tt.h)
			opt.Timeout = 300 * time.Millisecond
			start := time.Now()
			_, err := urlfetch.Fetch(context.Background(), srv.URL, opt)
			if !errors.Is(err, urlfetch.ErrTimeout) {
				t.Fatalf("err = %v, want ErrTimeout", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("gave up after %v", d)
			}
		})
	}
}

func TestFetchStopsWhenTheCallerCancels(t *testing.T) {
	srv, opt := serve(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := urlfetch.Fetch(ctx, srv.URL, opt)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, urlfetch.ErrTimeout) {
		t.Fatalf("err = %v, want the caller's context error", err)
	}
}

func TestReasonIsASentenceForPeople(t *testing.T) {
	_, err := urlfetch.Fetch(context.Background(), "http://169.254.169.254/latest/meta-data/", urlfetch.Options{})
	want := "that address is on a private network; Hopwise only fetches public web pages"
	if got := urlfetch.Reason(err); got != want {
		t.Errorf("Reason = %q, want %q", got, want)
	}
	if got := urlfetch.Reason(errors.New("boom")); got != "the page could not be fetched" {
		t.Errorf("Reason(other) = %q", got)
	}
}
