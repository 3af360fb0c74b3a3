package web

import (
	"net/http"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// My tokens: a person's API tokens (for Claude Code, scripts, REST), made
// here and shown once, listed with their last use, revoked here.

type tokensData struct {
	Tokens []board.APIToken
	// New is the token just made, shown on this answer only.
	New       string
	NewToken  board.APIToken
	MCPURL    string // the /mcp endpoint, for the claude mcp add line
	APIURL    string
	Handle    string
	FormToken func() string
	Form      *formState // the Make a token form, refused with what was typed or nil
}

func (s *Server) tokensPage(w http.ResponseWriter, r *http.Request) {
	s.showTokens(w, r, http.StatusOK, "", auth.CreatedToken{}, nil)
}

func (s *Server) showTokens(w http.ResponseWriter, r *http.Request, status int, errMsg string, made auth.CreatedToken, form *formState) {
	ctx := r.Context()
	handle := strings.TrimPrefix(board.PrincipalFrom(ctx).Author, "human:")
	tokens, err := s.cfg.Accounts.Tokens(ctx, handle)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	base := strings.TrimRight(s.cfg.BaseURL, "/")
	d := tokensData{Tokens: tokens, New: made.Secret, NewToken: made.Token, MCPURL: base + "/mcp", APIURL: base + "/api/v1",
		Handle: handle, FormToken: auth.NewTokenSecret, Form: form}
	s.render(w, r, status, "tokens", page{Title: "My tokens", Error: errMsg, Data: d})
}

// createToken makes a token and shows it once. The form carries the token
// (made when the form was rendered, on a page that is never cached), so a
// form submitted twice shows the same token instead of making a second.
func (s *Server) createToken(w http.ResponseWriter, r *http.Request) {
	made, err := s.cfg.Accounts.CreateToken(r.Context(), auth.CreateTokenInput{
		Agent: strings.TrimSpace(r.PostFormValue("agent")), Label: strings.TrimSpace(r.PostFormValue("label")),
		Secret: r.PostFormValue("token")})
	if err != nil {
		f, top := refusedForm("token", r, err, "agent", "label")
		s.showTokens(w, r, formStatus(err), top, auth.CreatedToken{}, f)
		return
	}
	s.showTokens(w, r, http.StatusOK, "", made, nil)
}

// revokeToken revokes one of the person's tokens, once confirmed: whatever
// uses it stops working at its next call, for good. Someone else's token
// is refused as unknown before any confirmation page.
func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.cfg.Accounts.TokenToRevoke(r.Context(), id); err != nil {
		s.showTokens(w, r, statusOf(err), message(err), auth.CreatedToken{}, nil)
		return
	}
	if !s.confirmed(w, r, confirmData{Question: "Revoke token " + id + "?",
		Effect: "Whatever uses this token (Claude Code, a script) is refused from its next call on. A revoked token cannot be used again; make a new one if you need one.",
		Action: "/tokens/" + id + "/revoke", Button: "Revoke the token", Cancel: "/tokens"}) {
		return
	}
	if _, err := s.cfg.Accounts.RevokeToken(r.Context(), r.PathValue("id")); err != nil {
		s.showTokens(w, r, statusOf(err), message(err), auth.CreatedToken{}, nil)
		return
	}
	seeOther(w, r, withFlash("/tokens", "revoked"))
}
