// Package edge holds what the HTTP edge learns about a request before any
// surface sees it: the address of the client that sent it. The composition
// root decides it once (from the connection, or from a trusted proxy's
// forwarded header) and every surface that limits per client (sign-in,
// OAuth registration) reads it from here, so no surface parses headers of
// its own.
package edge

import (
	"context"
	"net"
	"net/http"
	"net/netip"
)

type clientAddrKey struct{}

// WithClientAddr returns a request whose context carries the client's
// address as the edge decided it.
func WithClientAddr(r *http.Request, addr netip.Addr) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), clientAddrKey{}, addr.Unmap()))
}

// ClientAddr is the address of the client that sent r: the one the edge
// put in its context, else the connection's peer (r.RemoteAddr). It is
// the zero Addr when neither can be read.
func ClientAddr(r *http.Request) netip.Addr {
	if a, ok := r.Context().Value(clientAddrKey{}).(netip.Addr); ok && a.IsValid() {
		return a
	}
	return peerAddr(r.RemoteAddr)
}

// peerAddr parses a connection's "host:port" (or a bare address).
func peerAddr(remote string) netip.Addr {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.WithZone("").Unmap()
}

// ClientPrefix is the unit per-client limits count in: an IPv4 address by
// itself, an IPv6 address by its /64 (what one host or one customer is
// usually given, so rotating addresses within it gains nothing). The zero
// Addr (unknown) maps to one shared key.
func ClientPrefix(a netip.Addr) netip.Prefix {
	if a.Is6() && !a.Is4In6() {
		p, _ := a.Prefix(64)
		return p
	}
	p, _ := a.Unmap().Prefix(32)
	return p
}
