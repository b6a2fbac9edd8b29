package handlers_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// serveOn serves app on a capped listener like `hopwise serve` does, and returns its address.
func serveOn(t *testing.T, app *webtest.App, maxConns int) string {
	t.Helper()
	ln, err := handlers.Listen("127.0.0.1:0", maxConns)
	if err != nil {
		t.Fatal(err)
	}
	srv := handlers.NewHTTPServer(ln.Addr().String(), app.Handler)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// Issue 21, item 8: a body sent at 1 byte/s is cut off after the grace period, not held for minutes.
func TestSlowBodyIsCutOff(t *testing.T) {
	grace := 700 * time.Millisecond
	app := webtest.New(t, webtest.Options{Limits: handlers.Limits{BodyGrace: grace, MinBodyRate: 64}})
	addr := serveOn(t, app, 0)
	for _, path := range []string{"/chat/ask", "/documents"} {
		t.Run(path, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			start := time.Now()
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 100000\r\n\r\n", path)
			done := make(chan struct{})
			defer close(done)
			go func() { // a byte a second
				for {
					select {
					case <-done:
						return
					case <-time.After(time.Second):
						if _, err := conn.Write([]byte("a")); err != nil {
							return
						}
					}
				}
			}()
			conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			_, err = io.ReadAll(conn) // whatever the answer, the server must close the connection
			elapsed := time.Since(start)
			if err != nil {
				t.Fatalf("the connection was still open after %s: %v", elapsed, err)
			}
			if elapsed > grace+3*time.Second {
				t.Errorf("closed after %s, want about %s", elapsed, grace)
			}
		})
	}
}

// A body at a normal pace passes the guard.
func TestBodyAtANormalPacePasses(t *testing.T) {
	app := webtest.New(t, webtest.Options{Limits: handlers.Limits{BodyGrace: 300 * time.Millisecond, MinBodyRate: 1 << 20}})
	addr := serveOn(t, app, 0)
	body, ctype := multipartBody(t, []file{{"a.txt", []byte(strings.Repeat("Munich is in Bavaria. ", 1000))}})
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/api/documents", body)
	req.Header.Set("Content-Type", ctype)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
}

// Issue 21, item 8: connections are capped; one over the cap waits until another closes.
func TestConnectionsAreCapped(t *testing.T) {
	app := webtest.New(t, webtest.Options{})
	addr := serveOn(t, app, 2)
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	time.Sleep(100 * time.Millisecond)  // both accepted
	third, err := net.Dial("tcp", addr) // the kernel accepts it into the backlog; the server does not serve it
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	fmt.Fprint(third, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	third.SetReadDeadline(time.Now().Add(700 * time.Millisecond))
	if _, err := bufio.NewReader(third).ReadString('\n'); err == nil {
		t.Fatal("a connection over the cap was served")
	}
	held[0].Close()
	third.SetReadDeadline(time.Now().Add(3 * time.Second))
	line, err := bufio.NewReader(third).ReadString('\n')
	if err != nil || !strings.Contains(line, "200") {
		t.Fatalf("after a connection closed: %q, %v", line, err)
	}
}
