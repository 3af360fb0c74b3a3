package webhook

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/netguard"
)

// A webhook URL is chosen by an admin, but the server makes the request
// from inside its network: a URL naming a private or loopback address (or
// a name that resolves to one, now or after the check) would let the
// subscription reach what the network protects. So the address is checked
// where the connection is made, after name resolution, by the dialer's
// Control hook (internal/netguard, the rule the OAuth metadata fetcher
// applies too), for every address it tries; redirects are never followed.

// Timeout bounds one delivery: a 2xx within it is success.
const Timeout = 10 * time.Second

// newClient is the HTTP client deliveries use. allowPrivate lets loopback,
// private addresses and plain http through (development and tests).
func newClient(allowPrivate bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		dialer.Control = netguard.DialControl(nil, "LEDGER_WEBHOOK_ALLOW_PRIVATE=1 allows it for development")
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
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil && !allowPrivate && !netguard.Public(ip) {
		return board.Errorf(board.CodeInvalid, "url names %s, which is "+netguard.NotPublic+"; webhooks go only to public hosts", ip)
	}
	return nil
}
