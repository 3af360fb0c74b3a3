package web

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/edge"
)

// setSessionCookie gives the browser its session: Secure, HttpOnly,
// SameSite=Lax, host-only (the __Host- prefix), expiring with the session.
// On a plain-HTTP public URL off loopback (allowed on purpose) the
// resolver names a cookie without Secure, which such a browser keeps.
func (s *Server) setSessionCookie(w http.ResponseWriter, secret string, expires time.Time) {
	http.SetCookie(w, &http.Cookie{Name: s.cfg.Resolver.SessionCookieName(), Value: secret, Path: "/", Expires: expires,
		MaxAge: int(time.Until(expires).Seconds()), Secure: s.cfg.Resolver.SecureCookies(), HttpOnly: true, SameSite: http.SameSiteLaxMode})
}

func (s *Server) clearSessionCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: s.cfg.Resolver.SessionCookieName(), Value: "", Path: "/", MaxAge: -1,
		Secure: s.cfg.Resolver.SecureCookies(), HttpOnly: true, SameSite: http.SameSiteLaxMode})
}

type signInData struct {
	Handle string
	Next   string
}

func (s *Server) signInPage(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Resolver.Mode() == auth.ModeLoopback {
		seeOther(w, r, "/") // nobody signs in locally
		return
	}
	s.render(w, r, http.StatusOK, "signin", page{Title: "Sign in", Data: signInData{Next: localPath(r.URL.Query().Get("next"), "/")}})
}

// signIn checks the form's handle and password (fields named handle and
// password) and opens a session.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Resolver.Mode() == auth.ModeLoopback {
		seeOther(w, r, "/")
		return
	}
	handle, next := r.PostFormValue("handle"), localPath(r.PostFormValue("next"), "/")
	in, err := s.cfg.Accounts.SignIn(r.Context(), handle, r.PostFormValue("password"), edge.ClientAddr(r))
	if err != nil {
		msg := message(err)
		var rl *auth.RateLimitedError
		if errors.As(err, &rl) {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(rl.RetryAfter.Seconds()))))
			msg = rl.Error()
		}
		status := statusOf(err)
		if errors.Is(err, auth.ErrSignIn) {
			status = http.StatusUnauthorized
		}
		s.render(w, r, status, "signin", page{Title: "Sign in", Error: msg, Data: signInData{Handle: handle, Next: next}})
		return
	}
	s.setSessionCookie(w, in.Secret, in.ExpiresAt)
	seeOther(w, r, next)
}

// signOut ends the session on the server (every instance) and in the browser.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(s.cfg.Resolver.SessionCookieName()); err == nil {
		if err := s.cfg.Accounts.SignOut(r.Context(), c.Value); err != nil {
			s.errorPage(w, r, err)
			return
		}
	}
	s.clearSessionCookie(w)
	seeOther(w, r, withFlash("/signin", "signed-out"))
}

type inviteData struct {
	Invitation board.Invitation
	Secret     string
}

// invitePage shows the form that sets a password through an invitation.
func (s *Server) invitePage(w http.ResponseWriter, r *http.Request) {
	secret := r.PathValue("secret")
	inv, err := s.cfg.Accounts.InvitationFor(r.Context(), secret)
	if err != nil {
		s.render(w, r, statusOf(err), "invite", page{Title: "Invitation", Error: message(err)})
		return
	}
	s.render(w, r, http.StatusOK, "invite", page{Title: "Set your password", Data: inviteData{Invitation: inv, Secret: secret}})
}

// acceptInvite sets the password once and signs the person in.
func (s *Server) acceptInvite(w http.ResponseWriter, r *http.Request) {
	secret := r.PathValue("secret")
	pw, again := r.PostFormValue("password"), r.PostFormValue("password_again")
	inv, err := s.cfg.Accounts.InvitationFor(r.Context(), secret)
	if err == nil && pw != again {
		err = board.Errorf(board.CodeInvalid, "the two passwords differ; type the same password twice")
	}
	if err == nil {
		var in auth.SignedIn
		in, err = s.cfg.Accounts.AcceptInvitation(r.Context(), secret, pw)
		if err == nil {
			if s.cfg.Resolver.Mode() != auth.ModeLoopback {
				s.setSessionCookie(w, in.Secret, in.ExpiresAt)
			}
			seeOther(w, r, "/")
			return
		}
	}
	data := inviteData{Invitation: inv, Secret: secret}
	if board.ErrorCode(err) == board.CodeNotFound {
		data = inviteData{}
	}
	s.render(w, r, statusOf(err), "invite", page{Title: "Set your password", Error: message(err), Data: data})
}
