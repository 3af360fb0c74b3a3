package web

import "net/http"

// Destructive actions (disabling a person, revoking a token) are confirmed
// on a page of their own before they happen: the action's form posts
// without confirm=yes, and the answer is this page, whose form posts the
// same action with it. No JavaScript is needed, and a stray click on a
// table's button changes nothing.

// confirmField is the form field, set to "yes" by the confirmation page.
const confirmField = "confirm"

type confirmData struct {
	Question string // the page's heading
	Effect   string // what happens, in a sentence
	Action   string // where the confirmed form posts
	Button   string // the danger button's label
	Cancel   string // where Cancel leads, nothing done
}

// confirmed says whether the request carries the confirmation; when it does
// not, it answers with the confirmation page.
func (s *Server) confirmed(w http.ResponseWriter, r *http.Request, d confirmData) bool {
	if r.PostFormValue(confirmField) == "yes" {
		return true
	}
	s.render(w, r, http.StatusOK, "confirm", page{Title: d.Question, Data: d})
	return false
}
