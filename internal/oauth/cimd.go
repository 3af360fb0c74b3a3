package oauth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/netguard"
)

// Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document):
// a client whose client_id is an https URL publishes its metadata there, and
// the server fetches it. Fetching a URL a stranger chose is a server-side
// request forgery risk, so the fetch (docs/oauth.md):
//
//   - connects only to public unicast addresses, checked at dial time for
//     every address the name resolved to (internal/netguard: a name that
//     resolves, or re-resolves, to 127.0.0.1 or 10.0.0.0/8 is refused where
//     the connection is made, not only where the URL is read);
//   - uses no proxy (the check must see the real destination);
//   - follows no redirect (the draft forbids it; a 3xx is an error);
//   - gives up after a timeout, reads at most a size cap, wants 200 and JSON;
//   - is cached in the store, so every instance shares one copy, for the
//     document's max-age clamped to [5 minutes, 24 hours] (1 hour without).
const (
	defaultFetchTimeout = 5 * time.Second
	// defaultFetchMaxBytes is the draft's recommended cap.
	defaultFetchMaxBytes = 5 << 10
	minDocumentCache     = 5 * time.Minute
	maxDocumentCache     = 24 * time.Hour
	defaultDocumentCache = time.Hour
	maxClientIDLen       = 1000
)

// FetchConfig configures fetching metadata documents.
type FetchConfig struct {
	Timeout  time.Duration // 0: 5 s
	MaxBytes int64         // 0: 5 KiB
	// TLS, if set, replaces the system's TLS settings (tests: a test CA).
	TLS *tls.Config
	// Permit, if set, allows an address the public-address rule refuses
	// (tests: the test server's own loopback address and port). Everything
	// it does not permit is still checked.
	Permit func(netip.AddrPort) bool
}

type fetcher struct {
	cfg    FetchConfig
	client *http.Client
	mu     sync.Mutex
	failed map[string]failedFetch
}

func newFetcher(cfg FetchConfig) *fetcher {
	if cfg.Timeout == 0 {
		cfg.Timeout = defaultFetchTimeout
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = defaultFetchMaxBytes
	}
	dialer := &net.Dialer{Timeout: cfg.Timeout, Control: netguard.DialControl(cfg.Permit, "")}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		TLSClientConfig:        cfg.TLS,
		TLSHandshakeTimeout:    cfg.Timeout,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: 16 << 10,
		MaxIdleConns:           4,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	return &fetcher{cfg: cfg, client: &http.Client{
		Transport: transport,
		Timeout:   cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // never followed: answered as an error below
		},
	}}
}

// checkClientIDURL says whether id can be a metadata document's URL: https,
// with a path, no fragment, user information or dot segments.
func checkClientIDURL(id string) error {
	if len(id) > maxClientIDLen {
		return fmt.Errorf("the client_id URL is longer than %d characters", maxClientIDLen)
	}
	u, err := url.Parse(id)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("a client_id that is a URL must be an https URL")
	}
	if u.Path == "" || u.Path == "/" {
		return fmt.Errorf("the client_id URL must have a path")
	}
	if u.Fragment != "" || strings.Contains(id, "#") || u.User != nil {
		return fmt.Errorf("the client_id URL must have no fragment and no user information")
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("the client_id URL must have no . or .. path segments")
		}
	}
	return nil
}

// clientDocument is the part of a metadata document the server reads.
type clientDocument struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	ClientURI               string   `json:"client_uri"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ClientSecret            *string  `json:"client_secret"`
}

// failedFetchCache is how long a refused document is remembered, so that a
// reload of the approval page (or a client retrying) does not fetch it
// again at once; short, so that a fixed document works a minute later.
const (
	failedFetchCache = time.Minute
	failedFetchMax   = 1000
)

type failedFetch struct {
	err   error
	until time.Time
}

// fetch gets and checks the document at id, or answers a refusal of the
// last minute again; cache is how long it may be kept.
func (f *fetcher) fetch(ctx context.Context, id string) (clientDocument, time.Duration, error) {
	now := time.Now()
	f.mu.Lock()
	if ff, ok := f.failed[id]; ok && now.Before(ff.until) {
		f.mu.Unlock()
		return clientDocument{}, 0, ff.err
	}
	f.mu.Unlock()
	doc, cache, err := f.fetchNow(ctx, id)
	if err != nil {
		f.mu.Lock()
		if f.failed == nil || len(f.failed) >= failedFetchMax {
			f.failed = map[string]failedFetch{}
		}
		f.failed[id] = failedFetch{err: err, until: now.Add(failedFetchCache)}
		f.mu.Unlock()
	}
	return doc, cache, err
}

func (f *fetcher) fetchNow(ctx context.Context, id string) (doc clientDocument, cache time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return doc, 0, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "ticket-ledger (OAuth client ID metadata document fetch)")
	resp, err := f.client.Do(req)
	if err != nil {
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			return doc, 0, fmt.Errorf("it did not answer within %v", f.cfg.Timeout)
		}
		return doc, 0, &fetchFailure{reason: "it could not be fetched: " + shortFetchReason(err), detail: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			return doc, 0, fmt.Errorf("it answered a redirect (HTTP %d); a client ID metadata document is never fetched through a redirect", resp.StatusCode)
		}
		return doc, 0, fmt.Errorf("it answered HTTP %d, not 200", resp.StatusCode)
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return doc, 0, fmt.Errorf("it answered %q, not JSON", resp.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes+1))
	if err != nil {
		return doc, 0, &fetchFailure{reason: "reading it failed", detail: err}
	}
	if int64(len(body)) > f.cfg.MaxBytes {
		return doc, 0, fmt.Errorf("it is larger than %d bytes", f.cfg.MaxBytes)
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return doc, 0, fmt.Errorf("it is not a JSON object of client metadata (%v)", err)
	}
	if err := checkDocument(id, doc); err != nil {
		return doc, 0, err
	}
	return doc, cacheLifetime(resp.Header.Get("Cache-Control")), nil
}

// fetchFailure is a failed fetch: reason is what the person is shown,
// detail (addresses, resolver and TLS errors) only what the log gets.
type fetchFailure struct {
	reason string
	detail error
}

func (e *fetchFailure) Error() string { return e.reason }
func (e *fetchFailure) Unwrap() error { return e.detail }

// shortFetchReason names the kind of a connection failure without its
// internals.
func shortFetchReason(err error) string {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	switch {
	case strings.Contains(err.Error(), netguard.NotPublic):
		return "its host is not a public address"
	case errors.As(err, &dns):
		return "its host name could not be resolved"
	case errors.As(err, &cert), errors.As(err, &unknownAuthority), errors.As(err, &hostname):
		return "its TLS certificate could not be verified"
	}
	return "the connection failed"
}

// checkDocument applies the draft's rules and this server's: the document
// names itself, registers redirect URIs this server accepts, and is a
// public client (no shared secret: there is no way to establish one).
func checkDocument(id string, doc clientDocument) error {
	if doc.ClientID != id {
		return fmt.Errorf("its client_id %q is not the URL it was fetched from", clip(doc.ClientID))
	}
	if len(doc.RedirectURIs) == 0 {
		return fmt.Errorf("it lists no redirect_uris")
	}
	if len(doc.RedirectURIs) > maxRedirectURIs {
		return fmt.Errorf("it lists more than %d redirect_uris", maxRedirectURIs)
	}
	for _, r := range doc.RedirectURIs {
		if err := checkRedirectURI(r); err != nil {
			return err
		}
	}
	if doc.ClientSecret != nil {
		return fmt.Errorf("it carries a client_secret, which a public document cannot keep")
	}
	if m := doc.TokenEndpointAuthMethod; m != "" && m != "none" {
		return fmt.Errorf("its token_endpoint_auth_method is %q; this server takes public clients only (none)", clip(m))
	}
	for _, g := range doc.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return fmt.Errorf("it asks for grant type %q; this server offers authorization_code and refresh_token", clip(g))
		}
	}
	if len(doc.ResponseTypes) > 0 && !slices.Equal(doc.ResponseTypes, []string{"code"}) {
		return fmt.Errorf("its response_types must be [\"code\"]")
	}
	return nil
}

// cacheLifetime reads max-age (s-maxage first: this is a shared cache) and
// clamps it; without one, or with no-store or no-cache, the bounds decide.
func cacheLifetime(cc string) time.Duration {
	d := defaultDocumentCache
	var maxAge, sMaxAge = -1, -1
	for _, part := range strings.Split(cc, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(strings.ToLower(part)), "=")
		n, err := strconv.Atoi(strings.Trim(v, `"`))
		switch {
		case k == "no-store" || k == "no-cache":
			return minDocumentCache
		case k == "max-age" && err == nil:
			maxAge = n
		case k == "s-maxage" && err == nil:
			sMaxAge = n
		}
	}
	switch {
	case sMaxAge >= 0:
		d = time.Duration(sMaxAge) * time.Second
	case maxAge >= 0:
		d = time.Duration(maxAge) * time.Second
	}
	return min(max(d, minDocumentCache), maxDocumentCache)
}
