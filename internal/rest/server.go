package rest

import (
	"net/http"
	"slices"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// Prefix is where the API is mounted.
const Prefix = "/api/v1"

// Config wires the API to the use cases and the one resolver of
// credentials.
type Config struct {
	Service  *board.Service
	Resolver *auth.Resolver
	// AllowedOrigins are browser origins (scheme://host[:port]) allowed
	// to send writes besides the server's own (LEDGER_ALLOWED_ORIGINS).
	AllowedOrigins []string
	// Webhooks serves the webhook routes (webhooks.go); nil: none.
	Webhooks *webhook.Service
}

// Server is the API's http.Handler, for everything under Prefix.
type Server struct {
	svc     *board.Service
	handler http.Handler
}

// New builds the API. No schema is inferred and no document is built here:
// both happen on first use, so a cold start pays for neither.
func New(cfg Config) *Server {
	s := &Server{svc: cfg.Service}
	byPattern := map[string]map[string]route{}
	var order []string
	for _, rt := range routes() {
		if byPattern[rt.pattern] == nil {
			byPattern[rt.pattern] = map[string]route{}
			order = append(order, rt.pattern)
		}
		byPattern[rt.pattern][rt.method] = rt
	}
	api := http.NewServeMux()
	for _, pattern := range order {
		methods := byPattern[pattern]
		api.HandleFunc(Prefix+pattern, func(w http.ResponseWriter, r *http.Request) {
			rt, ok := methods[r.Method]
			if !ok {
				allow := make([]string, 0, len(methods))
				for m := range methods {
					allow = append(allow, m)
				}
				slices.Sort(allow)
				w.Header().Set("Allow", strings.Join(allow, ", "))
				problemf(w, http.StatusMethodNotAllowed, board.CodeInvalid, r.Method+" is not allowed here; this path takes "+strings.Join(allow, ", "))
				return
			}
			rt.serve(s, w, r)
		})
	}
	if cfg.Webhooks != nil {
		mountWebhooks(api, cfg.Webhooks)
	}
	api.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		problemf(w, http.StatusNotFound, board.CodeNotFound, "no such route: "+r.URL.Path+"; see /api/v1/openapi.json for the routes")
	})
	// Who calls is resolved before any route runs: a 401 with a Bearer
	// challenge without a credential (required mode).
	private := cfg.Resolver.RequireAPI(board.SourceREST, Deny, api)
	// Writes from other sites' pages are refused (Sec-Fetch-Site, or Origin
	// against Host), as on the board: a session cookie is a credential here
	// too. Scripts send neither header and pass.
	cop := http.NewCrossOriginProtection()
	for _, o := range cfg.AllowedOrigins {
		_ = cop.AddTrustedOrigin(o)
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		problemf(w, http.StatusForbidden, board.CodeForbidden, "cross-origin requests are refused; call the API from a script, or from a page on an allowed origin (LEDGER_ALLOWED_ORIGINS)")
	}))
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+Prefix+"/openapi.json", serveOpenAPI)
	mux.Handle(Prefix+"/", cop.Handler(private))
	s.handler = mux
	return s
}

// ServeHTTP serves a request through the chain New built: the OpenAPI
// document as is, everything else behind cross-origin protection and
// authentication.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }
