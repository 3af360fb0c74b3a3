package web

import (
	"net/http"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The running imports a person may stop: their own, their agents' (API
// tokens and connected apps acting for them), everyone's for an admin.
// An agent's import that runs away is stopped here, without revoking the
// agent.

func (s *Server) tasksPage(w http.ResponseWriter, r *http.Request) {
	list, err := s.cfg.Service.ListTasks(r.Context())
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "tasks", page{Title: "Running imports", Data: list})
}

// cancelTask cancels by task id, which is idempotent by itself: a second
// post (a double click) answers the same cancelled task.
func (s *Server) cancelTask(w http.ResponseWriter, r *http.Request) {
	if _, err := s.cfg.Service.CancelTask(r.Context(), board.TaskIDInput{TaskID: r.PathValue("id")}); err != nil {
		s.errorPage(w, r, err)
		return
	}
	seeOther(w, r, "/tasks")
}
