package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The local server's limits are all set: none of them is "forever".
func TestDefaultLimitsAreSet(t *testing.T) {
	l := defaultLimits
	if l.ReadHeader <= 0 || l.Read <= 0 || l.Write <= 0 || l.Idle <= 0 || l.MaxHeaderBytes <= 0 {
		t.Fatalf("defaultLimits %+v: every limit must be set", l)
	}
	srv := newHTTPServer(http.NotFoundHandler(), l)
	if srv.ReadHeaderTimeout != l.ReadHeader || srv.ReadTimeout != l.Read || srv.WriteTimeout != l.Write ||
		srv.IdleTimeout != l.Idle || srv.MaxHeaderBytes != l.MaxHeaderBytes {
		t.Fatalf("server %+v does not carry the limits %+v", srv, l)
	}
}

// Slow and idle clients are cut off: one that trickles its body, one that
// never finishes its headers, and one that keeps an idle keep-alive
// connection; oversized headers are refused with 431. The limits are short
// here; their defaults are checked above.
func TestServerCutsOffSlowAndIdleClients(t *testing.T) {
	limits := serverLimits{ReadHeader: 300 * time.Millisecond, Read: 500 * time.Millisecond, Write: 2 * time.Second,
		Idle: 300 * time.Millisecond, MaxHeaderBytes: 4 << 10}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			return
		}
		fmt.Fprintln(w, "ok")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(h, limits)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// closedWithin reads until the server closes the connection or the
	// deadline passes (then the server held it too long).
	closedWithin := func(c net.Conn, d time.Duration) bool {
		c.SetReadDeadline(time.Now().Add(d))
		_, err := io.Copy(io.Discard, c)
		var ne net.Error
		return !(errors.As(err, &ne) && ne.Timeout())
	}

	t.Run("trickled body", func(t *testing.T) {
		c := dial()
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
		stop := make(chan struct{})
		defer close(stop)
		go func() { // one byte every 20 ms: the body would take over half an hour
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if _, err := c.Write([]byte("x")); err != nil {
						return
					}
				}
			}
		}()
		if !closedWithin(c, 5*time.Second) {
			t.Fatal("a client trickling its body kept its connection past the read limit")
		}
	})
	t.Run("unfinished headers", func(t *testing.T) {
		c := dial()
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\n")
		if !closedWithin(c, 5*time.Second) {
			t.Fatal("a client that never finished its headers kept its connection")
		}
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		c := dial()
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.Close {
			t.Fatal("the server closed after one request; the keep-alive case is not tested")
		}
		if !closedWithin(c, 5*time.Second) {
			t.Fatal("an idle keep-alive connection stayed open past the idle limit")
		}
	})
	t.Run("oversized headers", func(t *testing.T) {
		c := dial()
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 16<<10))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Fatalf("16 KiB of headers: HTTP %d, want 431", resp.StatusCode)
		}
	})
}
