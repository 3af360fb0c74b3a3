// Package oauth is the board's own OAuth 2.1 authorization server and the
// rules of its resource server (docs/oauth.md): protected resource metadata
// (RFC 9728), authorization server metadata (RFC 8414), dynamic client
// registration of public clients (RFC 7591), client ID metadata documents,
// the authorization code grant with PKCE S256 and the resource parameter
// (RFC 8707), rotating refresh tokens with reuse detection, revocation (RFC
// 7009), and the bearer verifier that turns an access token into the
// grant's principal: ai:<agent> acting for the person who approved.
//
// The approval itself is a page of the web board (internal/web), which
// calls ParseAuthorization, Approve and Deny. The package owns the contract
// of its records (Store, oauthstore.go), which every backend implements
// beside board.Store; codes and tokens are kept only as hashes.
package oauth

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Lifetimes (docs/oauth.md).
const (
	// DefaultAccessTTL: an access token works for an hour; the client then
	// refreshes it.
	DefaultAccessTTL = time.Hour
	// DefaultRefreshTTL: a refresh token unused this long expires, and with
	// it the grant. Every refresh starts it again, so a client in use stays
	// connected until the person revokes it.
	DefaultRefreshTTL = 30 * 24 * time.Hour
	// DefaultCodeTTL: a client exchanges its code at once.
	DefaultCodeTTL = 5 * time.Minute
	// unusedClientTTL: a registered client that never got a grant is
	// forgotten after an hour (an app registers right before it sends the
	// person to approve); one with a grant is kept.
	unusedClientTTL = time.Hour
	// grantTouchEvery is the granularity of a grant's last use, as for API
	// tokens: one write a minute however busy the agent.
	grantTouchEvery = time.Minute
)

// Paths of the endpoints, below the issuer.
const (
	PathAuthorize            = "/oauth/authorize"
	PathToken                = "/oauth/token"
	PathRegister             = "/oauth/register"
	PathRevoke               = "/oauth/revoke"
	PathServerMetadata       = "/.well-known/oauth-authorization-server"
	PathResourceMetadata     = "/.well-known/oauth-protected-resource"
	PathResourceMetadataMCP  = PathResourceMetadata + "/mcp"
	mcpPath                  = "/mcp"
	restPath                 = "/api/v1"
	maxFormBytes             = 64 << 10
	maxRegistrationBodyBytes = 4 << 10
)

// Config configures a Server.
type Config struct {
	Store    Store
	Accounts *auth.Accounts // who may approve: enabled people
	// Issuer is the server's public base URL (LEDGER_BASE_URL, or on
	// Lambda the API's own URL): the issuer identifier, the base of every
	// endpoint and of the resources it protects.
	Issuer string
	// Documents configures fetching client ID metadata documents.
	Documents                      FetchConfig
	AccessTTL, RefreshTTL, CodeTTL time.Duration // 0: the defaults
	// RegistrationsPerWindow caps the client registrations all instances
	// together store per window (registerlimit.go); 0: the default.
	RegistrationsPerWindow int
	Now                    func() time.Time
	Logger                 *slog.Logger
}

// Server is the authorization server. Nothing is built in New beyond a
// struct: the document fetcher's HTTP client is made on the first fetch, so
// a cold start pays nothing for OAuth.
type Server struct {
	cfg     Config
	issuer  string
	now     func() time.Time
	log     *slog.Logger
	fetcher func() *fetcher
	regs    registrationLimiter
}

// New returns a server for cfg.
func New(cfg Config) *Server {
	if cfg.AccessTTL == 0 {
		cfg.AccessTTL = DefaultAccessTTL
	}
	if cfg.RefreshTTL == 0 {
		cfg.RefreshTTL = DefaultRefreshTTL
	}
	if cfg.CodeTTL == 0 {
		cfg.CodeTTL = DefaultCodeTTL
	}
	if cfg.RegistrationsPerWindow == 0 {
		cfg.RegistrationsPerWindow = registrationsPerStore
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, issuer: strings.TrimRight(cfg.Issuer, "/"), log: cfg.Logger}
	s.now = func() time.Time { return cfg.Now().UTC() }
	s.fetcher = sync.OnceValue(func() *fetcher { return newFetcher(cfg.Documents) })
	return s
}

// Issuer is the issuer identifier: the base URL without a trailing slash.
func (s *Server) Issuer() string { return s.issuer }

// Mux is where Register adds its endpoints: an http.ServeMux, or one that
// also records its patterns.
type Mux interface {
	Handle(pattern string, handler http.Handler)
}

// Register adds the authorization server's endpoints and the metadata
// documents to mux. The authorization endpoint is a page of the web board,
// registered there.
func (s *Server) Register(mux Mux) {
	mux.Handle(PathServerMetadata, cors(http.HandlerFunc(s.serverMetadata)))
	mux.Handle(PathResourceMetadata, s.resourceMetadata(""))
	mux.Handle(PathResourceMetadataMCP, s.resourceMetadata(mcpPath))
	mux.Handle(PathRegister, cors(http.HandlerFunc(s.register)))
	mux.Handle(PathToken, cors(http.HandlerFunc(s.token)))
	mux.Handle(PathRevoke, cors(http.HandlerFunc(s.revoke)))
}

// ResourceMetadataURL is the protected resource metadata of what req asks
// for: MCP's own document for /mcp, the server's (the root form) for the
// rest. The resolver puts it in every 401's challenge.
func (s *Server) ResourceMetadataURL(req *http.Request) string {
	if req.URL.Path == mcpPath || strings.HasPrefix(req.URL.Path, mcpPath+"/") {
		return s.issuer + PathResourceMetadataMCP
	}
	return s.issuer + PathResourceMetadata
}

// cors lets browser-based clients (the MCP Inspector, web apps) read the
// public endpoints: they carry no cookies and no ambient credential, so any
// origin may call them.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
		h.Set("Access-Control-Max-Age", "86400")
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// randomHex returns n random bytes as hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// person is the signed-in person approving or managing grants: a person's
// own principal, never an agent's or the operator's.
func person(ctx context.Context) (string, error) {
	p := board.PrincipalFrom(ctx)
	handle, ok := strings.CutPrefix(p.Author, "human:")
	if p.IsAI() || !ok || handle == "" {
		return "", board.Errorf(board.CodeForbidden, "only a signed-in person can approve or revoke connected agents")
	}
	if handle == strings.TrimPrefix(auth.LocalPerson.Author, "human:") {
		return "", board.Errorf(board.CodeForbidden,
			"this server runs in loopback mode, where nobody signs in; OAuth connections need LEDGER_AUTH=required and a person (people add)")
	}
	return handle, nil
}

// failure turns a store error into what a caller may see, logging the cause.
func (s *Server) failure(what string, err error) error {
	var e *board.Error
	if errors.As(err, &e) {
		return e
	}
	id := "err-" + randomHex(6)
	s.log.Error("oauth: "+what+" failed", "err", err, "error_id", id)
	out := board.Errorf(board.CodeInternal, "the server could not complete this because of an internal problem (error id %s); try again", id)
	out.ErrorID = id
	return out
}
