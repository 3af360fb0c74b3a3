package webhook

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"syscall"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A webhook URL is chosen by an admin, but the server makes the request
// from inside its network: a URL naming a private or loopback address (or
// a name that resolves to one, now or after the check) would let the
// subscription reach what the network protects. So the address is checked
// where the connection is made, after name resolution, by the dialer's
// Control hook, for every address it tries; redirects are never followed.

// Timeout bounds one delivery: a 2xx within it is success.
const Timeout = 10 * time.Second

// newClient is the HTTP client deliveries use. allowPrivate lets loopback,
// private addresses and plain http through (development and tests).
func newClient(allowPrivate bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		dialer.Control = refusePrivate
	}
	transport := &http.Transport{
		Proxy:                  nil, // a proxy would make the check meaningless
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: 16 << 10,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        90 * time.Second,
	}
	return &http.Client{Transport: transport, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// refusePrivate is the dialer's Control hook.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refusing to connect to %q: not an IP address and port", address)
	}
	if !publicAddr(ap.Addr()) {
		return fmt.Errorf("refusing to connect to %s: not a public address (LEDGER_WEBHOOK_ALLOW_PRIVATE=1 allows it for development)", ap.Addr())
	}
	return nil
}

// specialUse are the IANA special-purpose ranges beyond netip's own
// predicates (the same list the OAuth metadata fetcher refuses).
var specialUse = sync.OnceValue(func() []netip.Prefix {
	var out []netip.Prefix
	for _, p := range []string{
		"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24",
		"203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32", "192.88.99.0/24",
		"::/96", "::ffff:0:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32", "2002::/16",
		"3fff::/20", "5f00::/16", "fc00::/7", "fec0::/10",
	} {
		out = append(out, netip.MustParsePrefix(p))
	}
	return out
})

// publicAddr: a global unicast address outside every special-use range.
func publicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() ||
		ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range specialUse() {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// maxURLLen bounds a subscription's URL.
const maxURLLen = 2000

// checkURL says whether raw may be subscribed (and sent to): an absolute
// https URL (http too when private addresses are allowed) without user
// information or fragment. A literal IP address must be public; names are
// checked when the connection is made.
func checkURL(raw string, allowPrivate bool) error {
	if len(raw) > maxURLLen {
		return board.Errorf(board.CodeInvalid, "url is longer than %d characters; use a shorter URL", maxURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return board.Errorf(board.CodeInvalid, "url %q is not an absolute URL; give one such as https://hooks.example.com/ledger", raw)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate:
	default:
		return board.Errorf(board.CodeInvalid, "url must be https (plain http only with LEDGER_WEBHOOK_ALLOW_PRIVATE=1, for development)")
	}
	if u.User != nil || u.Fragment != "" {
		return board.Errorf(board.CodeInvalid, "url must carry no user information and no fragment; put a token in the path or query instead")
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil && !allowPrivate && !publicAddr(ip) {
		return board.Errorf(board.CodeInvalid, "url names %s, which is not a public address; webhooks go only to public hosts", ip)
	}
	return nil
}
