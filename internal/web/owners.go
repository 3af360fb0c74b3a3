package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The owner field is a choice, not free text: nobody, any person, each
// person of the board, and the agents seen in the workspace. What a form
// sends is still read kindly (a bare handle of a person is that person)
// and anything else is refused by the domain with its message.

// ownerPicker is the owner field's choices.
type ownerPicker struct {
	Me     string   // the signed-in person, marked "(you)"
	People []string // human:<handle>, the signed-in person first
	Agents []string // ai:<name>, sorted
}

// All is every choice with a value, for the filter's suggestions.
func (o ownerPicker) All() []string {
	return append(append([]string{"human"}, o.People...), o.Agents...)
}

// Other is cur when no choice holds it (an owner set over MCP, a person
// since disabled): the form offers it as it is, so saving the edit form
// never changes an owner nobody touched.
func (o ownerPicker) Other(cur string) string {
	if cur == "" || cur == "human" || slices.Contains(o.People, cur) || slices.Contains(o.Agents, cur) {
		return ""
	}
	return cur
}

// ownerChoices are the people of the board and the agents among authors
// (who wrote in the workspace, owners and creators of its tickets shown).
func (s *Server) ownerChoices(r *http.Request, authors []string) ownerPicker {
	var o ownerPicker
	me := board.PrincipalFrom(r.Context()).Author
	o.Me = me
	if strings.HasPrefix(me, "human:") {
		o.People = append(o.People, me)
	}
	if handles, err := s.cfg.Accounts.Handles(r.Context()); err == nil {
		for _, h := range handles {
			if p := "human:" + h; p != me {
				o.People = append(o.People, p)
			}
		}
	}
	for _, a := range authors {
		if strings.HasPrefix(a, "ai:") && !slices.Contains(o.Agents, a) {
			o.Agents = append(o.Agents, a)
		}
	}
	slices.Sort(o.Agents)
	return o
}

// authorsOf lists the owners and creators of tickets and the authors of
// events: where the agents seen in a workspace come from.
func authorsOf(tickets []board.Ticket, events []board.Event) []string {
	var out []string
	for _, t := range tickets {
		out = append(out, t.CreatedBy)
		if t.Owner != nil {
			out = append(out, *t.Owner)
		}
	}
	for _, e := range events {
		out = append(out, e.Author)
	}
	return out
}

// normaliseOwner reads the owner a form sent: empty or "nobody" is no
// owner, and a bare handle of a person (any case, with or without @) is
// that person. Anything else goes to the domain as sent, to be refused
// with its message if it is no owner.
func (s *Server) normaliseOwner(r *http.Request, v string) string {
	v = strings.TrimSpace(v)
	if v == "" || strings.EqualFold(v, "nobody") {
		return ""
	}
	if v == "human" || strings.Contains(v, ":") {
		return v
	}
	handle := strings.ToLower(strings.TrimPrefix(v, "@"))
	if handles, err := s.cfg.Accounts.Handles(r.Context()); err == nil && slices.Contains(handles, handle) {
		return "human:" + handle
	}
	return v
}

// ownerField is what the owner-select part draws: the choices, the form
// (what was typed, its mark) and the stored owner ("" for none).
type ownerField struct {
	Picker  ownerPicker
	Form    *formState
	Current string
}
