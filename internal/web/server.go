package web

import (
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/httpstatus"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// Config wires the board to the use cases.
type Config struct {
	Service  *board.Service
	Accounts *auth.Accounts
	Resolver *auth.Resolver
	// BaseURL is where people reach the board; invitation links start with it.
	BaseURL string
	// OAuth, if set, serves the authorization endpoint's approval page and
	// Connected agents (required mode); nil leaves them out.
	OAuth  *oauth.Server
	Logger *slog.Logger
	// Webhooks, if set, serves a workspace's Webhooks page (admins).
	Webhooks *webhook.Service
}

// Server is the board's http.Handler.
type Server struct {
	cfg     Config
	log     *slog.Logger
	handler http.Handler
}

// New builds the board. Nothing is parsed or hashed here (templates and
// asset hashes are made on first use), so it costs a cold start nothing.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, log: cfg.Logger}
	mux := http.NewServeMux()
	// Public: the sign-in and invitation pages, static assets.
	mux.HandleFunc("GET /static/", serveStatic)
	// Browsers ask for /favicon.ico where a page names no icon (a JSON
	// answer, an image opened alone): send them to the one there is.
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, assetURL("favicon.svg"), http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET /signin", s.signInPage)
	mux.HandleFunc("POST /signin", s.signIn)
	mux.HandleFunc("POST /signout", s.signOut)
	mux.HandleFunc("GET /invite/{secret}", s.invitePage)
	mux.HandleFunc("POST /invite/{secret}", s.acceptInvite)
	// Everything else needs a person.
	private := http.NewServeMux()
	private.HandleFunc("GET /{$}", s.home)
	private.HandleFunc("POST /workspaces", s.createWorkspace)
	private.HandleFunc("GET /w/{slug}", s.boardPage)
	private.HandleFunc("GET /w/{slug}/changes", s.workspaceChanges)
	private.HandleFunc("POST /w/{slug}/tickets", s.createTicket)
	private.HandleFunc("GET /w/{slug}/similar", s.similarTickets)
	private.HandleFunc("GET /w/{slug}/activity", s.activityPage)
	private.HandleFunc("GET /w/{slug}/settings", s.settingsPage)
	private.HandleFunc("POST /w/{slug}/settings", s.updateSettings)
	private.HandleFunc("GET /tickets/{id}", s.ticketPage)
	private.HandleFunc("GET /tickets/{id}/changes", s.ticketChanges)
	private.HandleFunc("POST /tickets/{id}/edit", s.editTicket)
	private.HandleFunc("POST /tickets/{id}/move", s.moveTicket)
	private.HandleFunc("POST /tickets/{id}/notes", s.addNote)
	private.HandleFunc("POST /tickets/{id}/notes/{note}/edit", s.editNote)
	private.HandleFunc("POST /tickets/{id}/notes/{note}/redact", s.redactNote)
	private.HandleFunc("POST /tickets/{id}/assign", s.assignToMe)
	private.HandleFunc("POST /tickets/{id}/release", s.breakClaim)
	private.HandleFunc("POST /tickets/{id}/relations", s.relateTickets)
	private.HandleFunc("POST /tickets/{id}/relations/remove", s.unrelateTickets)
	private.HandleFunc("GET /inbox", s.inboxPage)
	private.HandleFunc("GET "+inboxChangesPath, s.inboxChanges)
	private.HandleFunc("GET "+inboxCountChanges, s.inboxCountChanged)
	private.HandleFunc("GET "+inboxCountPath, s.inboxCountPage)
	private.HandleFunc("POST /inbox/read", s.markInboxRead)
	private.HandleFunc("GET /waiting", waitingMoved)
	private.HandleFunc("GET /people", s.peoplePage)
	private.HandleFunc("POST /people", s.addPerson)
	private.HandleFunc("POST /people/{handle}/disable", s.setDisabled(true))
	private.HandleFunc("POST /people/{handle}/enable", s.setDisabled(false))
	private.HandleFunc("POST /people/{handle}/invite", s.invitePerson)
	private.HandleFunc("POST /invitations/{hash}/revoke", s.revokeInvitation)
	private.HandleFunc("GET /tokens", s.tokensPage)
	private.HandleFunc("POST /tokens", s.createToken)
	private.HandleFunc("POST /tokens/{id}/revoke", s.revokeToken)
	private.HandleFunc("GET /tasks", s.tasksPage)
	private.HandleFunc("POST /tasks/{id}/cancel", s.cancelTask)
	if cfg.OAuth != nil {
		private.HandleFunc("GET "+oauth.PathAuthorize, s.authorizePage)
		private.HandleFunc("POST "+oauth.PathAuthorize, s.authorize)
		private.HandleFunc("GET /agents", s.agentsPage)
		private.HandleFunc("POST /agents/{id}/revoke", s.revokeAgent)
	}
	if cfg.Webhooks != nil {
		private.HandleFunc("GET /w/{slug}/webhooks", s.webhooksPage)
		private.HandleFunc("POST /w/{slug}/webhooks", s.createWebhook)
		for path, action := range map[string]string{"pause": "paused", "resume": "resumed", "test": "tested", "delete": "deleted"} {
			private.HandleFunc("POST /w/{slug}/webhooks/{id}/"+path, s.webhookAction(action))
		}
	}
	addFormPages(mux, private, cfg.OAuth != nil)
	mux.Handle("/", s.requirePerson(private))

	var h http.Handler = mux
	// Forms from other sites are refused (Sec-Fetch-Site, or Origin against
	// Host): cross-site request forgery cannot post as the person.
	h = http.NewCrossOriginProtection().Handler(h)
	// In loopback mode the Host is checked once, in front of every surface,
	// by the server that mounts the board (edge.LoopbackHostOnly).
	s.handler = securityHeaders(h)
	return s
}

// ServeHTTP serves a page or form post through the chain New built:
// security headers, cross-origin protection, then the page's handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// requirePerson resolves the person behind the request (the local person
// in loopback mode, the session's in required mode) and sends anyone else
// to the sign-in page.
func (s *Server) requirePerson(next http.Handler) http.Handler {
	routes, _ := next.(*http.ServeMux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if routes != nil {
			// An unknown page is a 404 for everyone, signed in or not.
			if _, pattern := routes.Handler(r); pattern == "" {
				http.NotFound(w, r)
				return
			}
		}
		p, err := s.cfg.Resolver.Resolve(r, auth.SurfaceWeb)
		if auth.Unauthorized(err) {
			if errors.Is(err, auth.ErrBadCredential) {
				s.clearSessionCookie(w)
			}
			target := "/signin"
			if r.Method == http.MethodGet && r.URL.Path != "/" {
				target += "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			http.Redirect(w, r, target, http.StatusSeeOther)
			return
		}
		if err != nil {
			s.log.Error("resolving a session", "err", err)
			http.Error(w, "your session could not be checked right now; reload the page", http.StatusServiceUnavailable)
			return
		}
		p.Source = board.SourceWeb
		next.ServeHTTP(w, r.WithContext(board.WithPrincipal(r.Context(), p)))
	})
}

// localPath keeps a redirect target on this site: a path, not "//host".
func localPath(p, fallback string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsRune(p, '\\') {
		return fallback
	}
	// Browsers drop tabs and newlines from a URL before parsing it, so
	// "/\t/evil.example/" becomes "//evil.example/", another origin: no
	// control character (nor DEL) passes.
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return fallback
		}
	}
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return fallback
	}
	return p
}

// seeOther ends a successful form: the browser (or htmx) loads the target
// with GET, so a reload does not post again.
func seeOther(w http.ResponseWriter, r *http.Request, target string) {
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// statusOf maps an error to the status of the page that shows it: a
// domain error's from httpstatus, the table the REST API answers with too.
// Too many sign-in attempts are no domain code (the sign-in limiter's own
// error), and 429 says so.
func statusOf(err error) int {
	var rl *auth.RateLimitedError
	if errors.As(err, &rl) {
		return http.StatusTooManyRequests
	}
	return httpstatus.OfError(err)
}

// message is what a person reads for an error: the domain's text, with a
// hint for a form that was already used with other values.
func message(err error) string {
	msg := err.Error()
	if board.ErrorCode(err) == board.CodeRequestReused {
		msg = "This form was already submitted with other values, so nothing was written now. Reload the page to start a new change. (" + msg + ")"
	}
	return msg
}

// errorPage shows a failure on its own page.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, err error) {
	board.Observe(r.Context(), nil, err) // the request's log line: the code, an internal error's id and cause
	s.render(w, r, statusOf(err), "error", page{Title: errorTitle(err), Error: message(err)})
}

// errorTitle names a failure for what it is: a refusal is not "something
// went wrong", and the title tells the person what kind of thing to fix.
func errorTitle(err error) string {
	var rl *auth.RateLimitedError
	if errors.As(err, &rl) {
		return "Too many attempts"
	}
	switch board.ErrorCode(err) {
	case board.CodeNotFound:
		return "Not found"
	case board.CodeForbidden:
		return "Not allowed"
	case board.CodeInvalid:
		return "Check what you entered"
	case board.CodeConflict, board.CodePreconditionFailed:
		return "It changed meanwhile"
	case board.CodeRequestReused:
		return "Already submitted"
	case board.CodeInProgress:
		return "Still in progress"
	}
	return "Something went wrong"
}
