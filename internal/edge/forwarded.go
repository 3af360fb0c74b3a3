package edge

import (
	"net/http"
	"net/netip"
	"strings"
)

// forwardedHeaders are the headers a proxy uses to say who its client was
// and what it asked for. A request that did not come from a trusted proxy
// has them removed, so nothing behind the edge can read a client's own
// claim about itself.
var forwardedHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip"}

// TrustProxies believes forwarded headers only from a connection whose
// peer is in trusted (a reverse proxy the operator named); from any other
// peer they are removed and the peer is the client.
//
// From a trusted peer, the client is the right-most address of the chain
// that is not itself a trusted proxy: every proxy appends the address it
// was reached from, so that is the first one written by a machine the
// operator does not run, and anything left of it may be the client's own
// invention. The chain is X-Forwarded-For when present (Caddy, nginx,
// Traefik and HAProxy write it), else Forwarded's for= (RFC 7239). The
// Host becomes the one the proxy forwarded (X-Forwarded-Host, else
// Forwarded's host=), the name the client asked for, so the public-host and
// origin checks see it even when the proxy rewrites Host. The scheme is not
// taken: the public scheme is the configured base URL's.
func TrustProxies(trusted []netip.Prefix, next http.Handler) http.Handler {
	isTrusted := func(a netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		peer := peerAddr(r.RemoteAddr)
		if !peer.IsValid() || !isTrusted(peer) {
			for _, h := range forwardedHeaders {
				r.Header.Del(h)
			}
			next.ServeHTTP(w, r)
			return
		}
		chain, host := listValues(r.Header, "X-Forwarded-For"), lastValue(r.Header, "X-Forwarded-Host")
		if len(chain) == 0 || host == "" {
			fwdFor, fwdHost := parseForwarded(r.Header.Values("Forwarded"))
			if len(chain) == 0 {
				chain = fwdFor
			}
			if host == "" {
				host = fwdHost
			}
		}
		if host != "" {
			r.Host = host
		}
		next.ServeHTTP(w, WithClientAddr(r, rightmostUntrusted(chain, peer, isTrusted)))
	})
}

// rightmostUntrusted walks the chain from the nearest hop outwards and
// stops at the first address that is not a trusted proxy. An unreadable
// hop ends the walk at the last address read: what lies beyond it cannot
// be told from a forgery.
func rightmostUntrusted(chain []string, peer netip.Addr, trusted func(netip.Addr) bool) netip.Addr {
	client := peer
	for i := len(chain) - 1; i >= 0; i-- {
		a, ok := parseNode(chain[i])
		if !ok {
			return client
		}
		client = a
		if !trusted(a) {
			return a
		}
	}
	return client
}

// parseNode reads one hop: an address, with or without a port, IPv6 in
// brackets or bare, perhaps quoted (Forwarded). "unknown" and obfuscated
// names are not addresses.
func parseNode(s string) (netip.Addr, bool) {
	s = strings.Trim(strings.TrimSpace(s), `"`)
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// listValues is every comma-separated item of every instance of a header,
// in order.
func listValues(h http.Header, name string) []string {
	var out []string
	for _, v := range h.Values(name) {
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// lastValue is the right-most item of a list header: the one the nearest
// proxy wrote.
func lastValue(h http.Header, name string) string {
	items := listValues(h, name)
	if len(items) == 0 {
		return ""
	}
	return items[len(items)-1]
}

// parseForwarded reads RFC 7239 Forwarded values: the for= of every
// element in order, and the host= of the last element that has one.
// Quoted strings here hold no commas or semicolons of interest (addresses
// and host names), so splitting on them is enough.
func parseForwarded(values []string) (chain []string, host string) {
	for _, v := range values {
		for _, element := range strings.Split(v, ",") {
			for _, pair := range strings.Split(element, ";") {
				k, val, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if !ok {
					continue
				}
				switch strings.ToLower(k) {
				case "for":
					chain = append(chain, val)
				case "host":
					host = strings.Trim(val, `"`)
				}
			}
		}
	}
	return chain, host
}
