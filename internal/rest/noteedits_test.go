package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Note edits over REST on every store: PATCH /notes/{id} by the author's
// agent, its replay by Idempotency-Key, the same agent for another person
// refused, bad input, a hidden workspace's note, and an admin's redaction
// that a member may not make.
func TestEditNote(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		alice, claude := e.tokens["alice"], e.tokens["claude"]
		e.createTicket(alice, "inbox", "t1", map[string]any{"title": "Printer"})
		added := decodeAs[board.NoteResult](t, e.ok(call{method: "POST", path: "/api/v1/tickets/inbox-1/notes", token: claude, key: "n1",
			body: map[string]any{"body": "teh toner"}}, http.StatusCreated))
		if added.Note.Author != "ai:claude" || added.Note.OnBehalfOf != "human:alice" || !strings.HasPrefix(added.Note.ID, "inbox-1~") {
			t.Fatalf("added note %+v", added.Note)
		}
		path := "/api/v1/notes/" + added.Note.ID
		edit := call{method: "PATCH", path: path, token: claude, key: "e1", body: map[string]any{"body": "the toner"}}
		first := e.ok(edit, http.StatusOK)
		got := decodeAs[board.NoteResult](t, first)
		if got.Note.Body != "the toner" || got.Note.EditedAt == nil || got.Replayed {
			t.Fatalf("edit: %s", first.body)
		}
		replay := e.ok(edit, http.StatusOK)
		if replay.header.Get("Idempotent-Replayed") != "true" || decodeAs[board.NoteResult](t, replay).Note.Body != "the toner" {
			t.Errorf("replay: %s", replay.body)
		}
		p := e.refused(call{method: "PATCH", path: path, token: e.tokens["botbob"], key: "e2", body: map[string]any{"body": "mine"}}, http.StatusForbidden, "forbidden")
		if !strings.Contains(p.Detail, "ai:claude for human:alice") {
			t.Errorf("the same agent for another person: %s", p.Detail)
		}
		e.refused(call{method: "PATCH", path: path, token: claude, key: "e3", body: map[string]any{"body": ""}}, http.StatusBadRequest, "invalid")
		e.refused(call{method: "PATCH", path: "/api/v1/notes/nonsense", token: claude, key: "e4", body: map[string]any{"body": "x"}}, http.StatusBadRequest, "invalid")

		e.createTicket(alice, "private", "t2", map[string]any{"title": "hidden"})
		hidden := decodeAs[board.NoteResult](t, e.ok(call{method: "POST", path: "/api/v1/tickets/private-1/notes", token: alice, key: "n2",
			body: map[string]any{"body": "a hidden note"}}, http.StatusCreated))
		e.refused(call{method: "PATCH", path: "/api/v1/notes/" + hidden.Note.ID, token: claude, key: "e5", body: map[string]any{"body": "x"}}, http.StatusNotFound, "not_found")

		redact := "/api/v1/notes/" + added.Note.ID + "/redact"
		e.refused(call{method: "POST", path: redact, token: e.tokens["bob"], key: "r1", body: map[string]any{"reason": "no"}}, http.StatusForbidden, "forbidden")
		red := decodeAs[board.NoteResult](t, e.ok(call{method: "POST", path: redact, token: alice, key: "r2", body: map[string]any{"reason": "wrong ticket"}}, http.StatusOK))
		if red.Note.Body != board.RedactedNoteBody || red.Note.Redacted == nil || red.Note.Redacted.Reason != "wrong ticket" || red.Note.Redacted.By != "human:alice" {
			t.Fatalf("redaction: %+v", red.Note)
		}
		e.refused(call{method: "PATCH", path: path, token: claude, key: "e6", body: map[string]any{"body": "again"}}, http.StatusConflict, "conflict")
	})
}
