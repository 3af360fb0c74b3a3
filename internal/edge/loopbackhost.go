package edge

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// LoopbackHostOnly refuses every request whose Host is not a loopback name
// or address (localhost, 127.0.0.0/8, ::1), before any route sees it. A
// server without sign-in (loopback mode) needs it on every surface — the
// board, MCP, REST, OAuth, static files, health — in front of them all: a
// DNS-rebinding page (evil.example resolving to 127.0.0.1) is otherwise
// same-origin with the server and can read and write as the local person
// and agent.
func LoopbackHostOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !IsLoopbackHost(r.Host) {
			http.Error(w, "this local server answers only on a loopback address (127.0.0.1, ::1 or localhost); open it as http://127.0.0.1:<port>/", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// IsLoopbackHost says whether a Host header (with or without a port) names
// this machine's loopback: localhost (any case, a trailing dot allowed), an
// address in 127.0.0.0/8, or ::1.
func IsLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Zone() == "" && a.Unmap().IsLoopback()
}
