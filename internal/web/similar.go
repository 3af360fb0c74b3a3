package web

import (
	"bytes"
	"net/http"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// similarTickets answers the new-ticket form's type-ahead (GET
// /w/{slug}/similar?title=…): the open tickets whose titles share most
// words with what has been typed, as an HTML fragment the form shows under
// the title (htmx swaps it in); empty when there are none. It reads the
// same as create_ticket's similar, with the same rules.
func (s *Server) similarTickets(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	similar, err := s.cfg.Service.SimilarTickets(r.Context(), board.SimilarInput{Workspace: r.PathValue("slug"), Title: r.URL.Query().Get("title")})
	if err != nil {
		board.Observe(r.Context(), nil, err)
		http.Error(w, message(err), statusOf(err))
		return
	}
	set, err := pages()
	if err != nil {
		s.log.Error("parsing templates", "err", err)
		http.Error(w, "the board's templates are broken", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := set["board"].ExecuteTemplate(&buf, "similar-list", similar); err != nil {
		s.log.Error("rendering similar tickets", "err", err)
		http.Error(w, "the similar tickets could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}
