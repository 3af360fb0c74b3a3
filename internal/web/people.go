package web

import (
	"net/http"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The admins' people page: everyone with their state, adding a person (an
// invitation link to pass on, shown once), disabling and re-enabling, new
// links, pending invitations and their revocation.

type peopleData struct {
	People      []board.Person
	Invitations []board.Invitation
	// NewLink is the invitation just made, shown on this answer only.
	NewLink    string
	NewHandle  string
	InviteTTL  string
	Self       string
	FormSecret func() string
	Form       *formState // the Add a person form, refused with what was typed or nil
}

func (s *Server) peoplePage(w http.ResponseWriter, r *http.Request) {
	s.showPeople(w, r, http.StatusOK, "", "", "", nil)
}

func (s *Server) showPeople(w http.ResponseWriter, r *http.Request, status int, errMsg, newHandle, newSecret string, form *formState) {
	ctx := r.Context()
	people, err := s.cfg.Accounts.People(ctx)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	invs, err := s.cfg.Accounts.Invitations(ctx)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	d := peopleData{People: people, Invitations: invs, NewHandle: newHandle, FormSecret: auth.NewSecret,
		InviteTTL: "7 days", Form: form, Self: strings.TrimPrefix(board.PrincipalFrom(ctx).Author, "human:")}
	if newSecret != "" {
		d.NewLink = strings.TrimRight(s.cfg.BaseURL, "/") + "/invite/" + newSecret
	}
	s.render(w, r, status, "people", page{Title: "People", Error: errMsg, Data: d})
}

// addPerson adds a person and shows their invitation link. The form carries
// the invitation's secret (made when the form was rendered), so submitting
// it twice shows the same link rather than "exists already".
func (s *Server) addPerson(w http.ResponseWriter, r *http.Request) {
	role := board.RoleMember
	if r.PostFormValue("admin") == "on" {
		role = board.RoleAdmin
	}
	handle := strings.TrimSpace(r.PostFormValue("handle"))
	secret, err := s.cfg.Accounts.AddPerson(r.Context(), auth.AddPersonInput{Handle: handle,
		Name: strings.TrimSpace(r.PostFormValue("name")), Role: role, InvitationSecret: r.PostFormValue("secret")})
	if err != nil {
		f, top := refusedForm("person", r, err, "handle", "name")
		s.showPeople(w, r, formStatus(err), top, "", "", f)
		return
	}
	s.showPeople(w, r, http.StatusOK, "", handle, secret, nil)
}

// invitePerson makes a new link for a person (a lost link or a reset).
func (s *Server) invitePerson(w http.ResponseWriter, r *http.Request) {
	handle := r.PathValue("handle")
	secret, err := s.cfg.Accounts.Invite(r.Context(), handle, r.PostFormValue("secret"))
	if err != nil {
		s.showPeople(w, r, statusOf(err), message(err), "", "", nil)
		return
	}
	s.showPeople(w, r, http.StatusOK, "", handle, secret, nil)
}

func (s *Server) setDisabled(disabled bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		handle := r.PathValue("handle")
		// Disabling signs a person out everywhere: confirmed first, and
		// only once the caller may do it (a member is refused, never
		// asked). Enabling undoes nothing anyone would regret.
		if disabled {
			if err := s.cfg.Accounts.CheckDisable(r.Context(), handle); err != nil {
				s.showPeople(w, r, statusOf(err), message(err), "", "", nil)
				return
			}
		}
		if disabled && !s.confirmed(w, r, confirmData{Question: "Disable " + handle + "?",
			Effect: handle + " is signed out everywhere at once, and their tokens and connected agents stop working. Enabling them again later revives none of their sessions.",
			Action: "/people/" + handle + "/disable", Button: "Disable " + handle, Cancel: "/people"}) {
			return
		}
		if err := s.cfg.Accounts.SetDisabled(r.Context(), handle, disabled); err != nil {
			s.showPeople(w, r, statusOf(err), message(err), "", "", nil)
			return
		}
		key := "enabled"
		if disabled {
			key = "disabled"
		}
		seeOther(w, r, withFlash("/people", key))
	}
}

func (s *Server) revokeInvitation(w http.ResponseWriter, r *http.Request) {
	if err := s.cfg.Accounts.RevokeInvitation(r.Context(), r.PathValue("hash")); err != nil {
		s.showPeople(w, r, statusOf(err), message(err), "", "", nil)
		return
	}
	seeOther(w, r, withFlash("/people", "invitation-revoked"))
}
