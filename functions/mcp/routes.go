package main

import (
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/edge"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
	"github.com/ticket-ledger/ticket-ledger/internal/rest"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// app is the composed server: its routes, and the MCP server a runtime
// that learns of a request before serving it (Lambda) may start building.
type app struct {
	http.Handler
	// mcp is /mcp's handler behind the credential check, built on first
	// use: a request refused for want of a credential never builds it.
	mcp func() http.Handler
	// mcpBuilt says whether mcp has built it, for tests.
	mcpBuilt atomic.Bool
	// routes is the mux under the middleware, with its patterns, for tests.
	routes *routeMux
	// webhooks manages and delivers webhooks; nil when the store keeps
	// none.
	webhooks *webhook.Service
}

// newHandler wires the service and the routes, without a task runner:
// imports then run inside the call (tests, and Lambda without a state
// machine).
func newHandler(cfg config, store servedStore, log *slog.Logger, opts mcpserver.HandlerOptions) (*app, error) {
	svc, err := newService(cfg, store, log)
	if err != nil {
		return nil, err
	}
	return routes(cfg, store, svc, log, opts), nil
}

func newService(cfg config, store board.Store, log *slog.Logger) (*board.Service, error) {
	return board.NewService(board.Config{Store: store, BaseURL: cfg.BaseURL, Retention: cfg.Retention, Logger: log})
}

// routes mounts the MCP server (built on first use), REST, the board (in
// the builds that have it: board.go) and the health check.
func routes(cfg config, store servedStore, svc *board.Service, log *slog.Logger, opts mcpserver.HandlerOptions) *app {
	// The SDK logs every stateless connection at info, which would double
	// the request lines: it logs at warn and above (debug when asked), under
	// its own group.
	sdkLog := slog.New(atLeast{log.Handler().WithGroup("mcp"), sdkLevel(logLevel(os.Getenv))})
	accounts := auth.NewAccounts(auth.Config{Store: store, Logger: log, OnPasswordCheck: cfg.passwordChecked})
	// The OAuth authorization server, in required mode only: loopback mode
	// has nobody to sign in and approve (docs/oauth.md).
	var authServer *oauth.Server
	rcfg := auth.ResolverConfig{Mode: cfg.Auth, Accounts: accounts, LocalAgent: cfg.principal(), PlainHTTPCookie: cfg.plainHTTPCookie()}
	if cfg.Auth == auth.ModeRequired {
		authServer = oauth.New(oauth.Config{Store: store, Accounts: accounts, Issuer: cfg.BaseURL, Documents: cfg.documents, Logger: log,
			RegistrationsPerWindow: cfg.registrationsPerWindow})
		rcfg.ResourceMetadata = authServer.ResourceMetadataURL
	}
	resolver := auth.NewResolver(rcfg)
	// API tokens (Authorization: Bearer tl_…) on /mcp and /api/v1, and
	// OAuth access tokens (tla_…) beside them.
	resolver.AddBearer(accounts.VerifyToken)
	if authServer != nil {
		resolver.AddBearer(authServer.VerifyAccessToken)
	}
	if cfg.publicHostChecked() {
		// The SDK's own check refuses a public name arriving on a loopback
		// listener, which is what a proxy on the same machine sends; the
		// public-host check below stands in for it.
		opts.BehindProxy = true
	}
	// The MCP server (its tools' schemas) is most of building the handler:
	// it is built when a request first gets past the credential check.
	a := &app{webhooks: newWebhooks(cfg, store, log)}
	a.mcp = sync.OnceValue(func() http.Handler {
		server := mcpserver.NewServer(svc, mcpserver.Options{Principal: mcpserver.ContextPrincipal(), Logger: sdkLog})
		defer a.mcpBuilt.Store(true)
		return mcpserver.Handler(server, opts)
	})
	mux := &routeMux{ServeMux: http.NewServeMux()}
	a.routes = mux
	// Who calls /mcp is resolved before the MCP server sees the request:
	// without a credential in required mode it is a 401 with a Bearer
	// challenge, as MCP clients expect.
	mux.Handle("/mcp", resolver.RequireAPI(board.SourceMCP, mcpserver.Deny,
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { a.mcp().ServeHTTP(w, r) })))
	// REST: the same use cases and resolver, JSON in and out.
	mux.Handle(rest.Prefix+"/", rest.New(rest.Config{Service: svc, Resolver: resolver, AllowedOrigins: cfg.AllowedOrigins, Webhooks: a.webhooks}))
	healthz := newHealth(store, log).withTasks(cfg.tasks)
	mux.Handle("GET "+healthPath, healthz)
	if authServer != nil {
		// Metadata, registration, token and revocation; the approval page
		// (the authorization endpoint) is the board's.
		authServer.Register(mux)
	}
	mountBoard(mux, boardDeps{svc: svc, accounts: accounts, resolver: resolver, baseURL: cfg.BaseURL, oauth: authServer, log: log,
		webhooks: a.webhooks})
	var h http.Handler = mux
	switch {
	case cfg.Auth == auth.ModeLoopback:
		// No sign-in in this mode: every surface answers only to loopback
		// Host names (DNS rebinding), checked here once before routing.
		h = edge.LoopbackHostOnly(h)
	case cfg.publicHostChecked():
		// A team server answers only to its public name, so links, the
		// OAuth issuer and the Origin checks all mean the same origin.
		checked, err := edge.PublicHostOnly(cfg.BaseURL, h)
		if err != nil {
			// loadConfig checked the URL; a config built otherwise fails
			// closed rather than answering to every name.
			log.Error("the public base URL cannot be checked", "err", err)
			checked = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, err.Error(), http.StatusInternalServerError)
			})
		}
		h = healthOnAnyHost(healthz, checked)
	case cfg.loopbackHostChecked():
		// Required mode on loopback without a public URL: sign-in and
		// registration are open to whoever reaches them, so a
		// DNS-rebinding page must not, as in loopback mode.
		h = healthOnAnyHost(healthz, edge.LoopbackHostOnly(h))
	}
	// Forwarded headers are read (or dropped) before any check or surface
	// sees the request: the Host checks above see the name the client
	// asked the proxy for, the per-client limits its address.
	trusted := cfg.TrustedProxies
	if cfg.Auth == auth.ModeLoopback || cfg.loopbackHostChecked() {
		// The loopback Host check is what keeps a DNS-rebinding page out;
		// a page may send X-Forwarded-Host from the loopback address
		// itself, so no proxy is believed behind that check. (A proxy
		// forwarding a public name needs LEDGER_BASE_URL, which replaces
		// this check with the public-host one.)
		trusted = nil
	}
	h = edge.TrustProxies(trusted, h)
	a.Handler = observed(cfg, log, h)
	return a
}

// healthOnAnyHost serves GET (and HEAD) /healthz with health whatever the
// Host, and everything else through checked. Load balancers, a proxy's
// active health checks, systemd and Kubernetes probes call an instance by
// its address, not by the public name; the answer reveals nothing (the
// store is reachable or not, with no cause). Only that exact path and
// method skip the check: any other request, /healthz with another method
// included, still gets the Host check's 421.
func healthOnAnyHost(health, checked http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == healthPath && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			health.ServeHTTP(w, r)
			return
		}
		checked.ServeHTTP(w, r)
	})
}
