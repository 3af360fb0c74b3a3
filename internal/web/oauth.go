package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/httpstatus"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
)

// The OAuth approval page and Connected agents (docs/oauth.md). The page
// is the authorization endpoint: an app (a claude.ai connector, Claude
// Code) sends the person here; signed in, they see which app asks, name the
// agent and allow or deny; the answer sends the browser back to the app.
// Every parameter is checked again when the form comes back: the hidden
// fields are only the request, carried.

type authorizeData struct {
	Auth      *oauth.Authorization
	AgentName string
}

func (s *Server) authorizePage(w http.ResponseWriter, r *http.Request) {
	a, ok := s.authorization(w, r, r.URL.Query(), false)
	if !ok {
		return
	}
	s.showAuthorization(w, r, http.StatusOK, "", a, oauth.DefaultAgentName(a.Client.Name))
}

// authorization parses the request, answering it itself when it cannot go
// on. A refused request is sent back to the app (an error on its redirect
// URI) only when a person has seen the approval page (seen: the page's own
// form came back); a request nobody has seen gets a page that names the
// problem and sends the browser nowhere. Otherwise anyone could register a
// client with any https redirect URI and use this server to bounce people
// to it (an open redirector, RFC 9700 section 4.11.2).
func (s *Server) authorization(w http.ResponseWriter, r *http.Request, q map[string][]string, seen bool) (*oauth.Authorization, bool) {
	a, err := s.cfg.OAuth.ParseAuthorization(r.Context(), q)
	var reqErr *oauth.RequestError
	var redirErr *oauth.RedirectError
	switch {
	case errors.As(err, &reqErr):
		s.render(w, r, http.StatusBadRequest, "error", page{Title: "This app cannot connect", Error: reqErr.Message})
		return nil, false
	case errors.As(err, &redirErr) && !seen:
		s.render(w, r, http.StatusBadRequest, "error", page{Title: "This app cannot connect",
			Error: "This app's sign-in request is refused (" + redirErr.Code + "): " + redirErr.Description + ". Nothing was shared; start again from the app."})
		return nil, false
	case errors.As(err, &redirErr):
		http.Redirect(w, r, redirErr.Location, http.StatusSeeOther)
		return nil, false
	case err != nil:
		s.errorPage(w, r, err)
		return nil, false
	}
	return a, true
}

// showAuthorization renders the approval page. Its form may send the
// browser on to the app's redirect URI: the page's form-action allows that
// origin (browsers apply form-action to the redirect after a submission).
func (s *Server) showAuthorization(w http.ResponseWriter, r *http.Request, status int, errMsg string, a *oauth.Authorization, agent string) {
	if origin := a.RedirectOrigin(); origin != "" {
		w.Header().Set("Content-Security-Policy", strings.Replace(contentSecurityPolicy, "form-action 'self'",
			"form-action 'self' "+origin, 1))
	}
	s.render(w, r, status, "authorize", page{Title: "Connect " + a.Client.Name, Error: errMsg,
		Data: authorizeData{Auth: a, AgentName: agent}})
}

// authorize ends the request with the person's decision (the form's
// decision button: allow or deny).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, r, board.Errorf(board.CodeInvalid, "the form cannot be read; start again from the app"))
		return
	}
	q := map[string][]string{}
	for k, vs := range r.PostForm {
		if k != "agent_name" && k != "decision" {
			q[k] = vs
		}
	}
	a, ok := s.authorization(w, r, q, true)
	if !ok {
		return
	}
	switch r.PostFormValue("decision") {
	case "deny":
		http.Redirect(w, r, s.cfg.OAuth.Deny(a), http.StatusSeeOther)
	case "allow":
		agent := r.PostFormValue("agent_name")
		location, err := s.cfg.OAuth.Approve(r.Context(), a, agent)
		if err != nil {
			s.showAuthorization(w, r, statusOf(err), message(err), a, agent)
			return
		}
		http.Redirect(w, r, location, http.StatusSeeOther)
	default:
		s.showAuthorization(w, r, httpstatus.Of(board.CodeInvalid), "choose Allow or Deny", a, r.PostFormValue("agent_name"))
	}
}

type agentsData struct {
	Grants []board.OAuthGrant
}

func (s *Server) agentsPage(w http.ResponseWriter, r *http.Request) {
	grants, err := s.cfg.OAuth.Grants(r.Context())
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "agents", page{Title: "Connected agents", Data: agentsData{Grants: grants}})
}

func (s *Server) revokeAgent(w http.ResponseWriter, r *http.Request) {
	if _, err := s.cfg.OAuth.RevokeGrant(r.Context(), r.PathValue("id")); err != nil {
		s.errorPage(w, r, err)
		return
	}
	seeOther(w, r, withFlash("/agents", "disconnected"))
}
