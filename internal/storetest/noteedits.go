package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Note edits (board/noteedits.go): the same finding, authorship, history
// and refusals on every store, through a Service.

func noteEditTests() []contractTest {
	return []contractTest{
		{"the author edits a note: one read finds it, the history keeps the text before", testNoteEdit},
		{"a replay answers the first edit; the same body changes nothing", testNoteEditReplay},
		{"only the author edits: an agent is its name and its person", testNoteEditAuthor},
		{"bad input and unknown notes write nothing", testNoteEditBadInput},
		{"read-only refuses an agent's edit; a hidden workspace has no notes", testNoteEditPolicy},
		{"an admin redacts any note and keeps the reason; nobody edits it after", testNoteRedact},
		{"a note written before ids named their ticket is found with its ticket", testNoteEditOldID},
		{"a redaction takes the note's texts out of its edits, their records and the export", testNoteRedactScrubs},
		{"a redaction finds the note's edits however much history came after them", testNoteRedactLongAgo},
		{"a note imported with more edits than one redaction rewrites is refused, nothing written", testNoteRedactTooManyEdits},
		{"a note is edited at most MaxNoteEdits times; its redaction rewrites them all in one write", testNoteEditLimit},
	}
}

// note adds a note as ctx's principal and returns it.
func (r *claimRig) note(t *testing.T, ctx context.Context, ticketID, body string) board.Note {
	t.Helper()
	res, err := r.svc.AddNote(ctx, board.AddNoteInput{RequestID: r.f.id("n"), ID: ticketID, Body: body})
	if err != nil {
		t.Fatalf("add note to %s: %v", ticketID, err)
	}
	return res.Note
}

func adminCtx(f *fixture, handle string) context.Context {
	return board.WithPrincipal(f.ctx, board.Principal{Author: "human:" + handle, Role: board.RoleAdmin, Source: board.SourceWeb})
}

// unchanged fails unless the ticket is still at version and its note still
// reads body.
func (r *claimRig) unchanged(t *testing.T, what, ticketID string, version int64, noteID, body string) {
	t.Helper()
	d := r.get(t, ticketID)
	if d.Ticket.Version != version {
		t.Errorf("%s: ticket at version %d, want %d: something was written", what, d.Ticket.Version, version)
	}
	for _, n := range d.Notes {
		if n.ID == noteID && (n.Body != body || n.EditedAt != nil) {
			t.Errorf("%s: note %+v, want its body %q unedited", what, n, body)
		}
	}
}

func testNoteEdit(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Printer")
	claude := agentCtx(f, "claude")
	n := r.note(t, claude, id, "teh toner is low")
	if ref, err := board.ParseNoteID(n.ID); err != nil || ref.TicketID != id || ref.At == nil || !ref.At.Equal(n.CreatedAt) {
		t.Fatalf("new note id %q names %+v, %v; want ticket %s at %v", n.ID, ref, err, id, n.CreatedAt)
	}
	if n.OnBehalfOf != "human:alice" {
		t.Errorf("note on_behalf_of %q, want human:alice", n.OnBehalfOf)
	}
	ref, _ := board.ParseNoteID(n.ID)
	got, err := f.s.GetNote(f.ctx, ref)
	if err != nil || !board.SameNote(got, n) {
		t.Fatalf("GetNote(%s): %+v, %v; want the note", n.ID, got, err)
	}
	before := r.get(t, id).Ticket.Version
	r.advance(time.Minute)
	res, err := r.svc.EditNote(claude, board.EditNoteInput{RequestID: "e1", NoteID: n.ID, Body: "the toner is low"})
	if err != nil {
		t.Fatal(err)
	}
	e := res.Note
	if e.ID != n.ID || e.Body != "the toner is low" || e.EditedAt == nil || !e.EditedAt.Equal(r.clock()) || !e.CreatedAt.Equal(n.CreatedAt) || e.Redacted != nil {
		t.Fatalf("edited note %+v, want the new body, edited now, created as before", e)
	}
	d := r.get(t, id)
	if d.Ticket.Version != before+1 || len(d.Notes) != 1 || !board.SameNote(d.Notes[0], e) {
		t.Fatalf("after the edit: version %d (want %d), notes %+v", d.Ticket.Version, before+1, d.Notes)
	}
	ev := d.History[len(d.History)-1]
	if ev.Type != board.EventNoteEdited || ev.NoteID != n.ID || ev.Author != "ai:claude" || ev.OnBehalfOf != "human:alice" ||
		ev.Title != "Printer" || len(ev.Changes) != 1 || ev.Changes[0].Before != "teh toner is low" || ev.Changes[0].After != "the toner is low" {
		t.Fatalf("last event %+v, want note.edited with the body before and after", ev)
	}
	if got, err := f.s.GetNote(f.ctx, ref); err != nil || !board.SameNote(got, e) {
		t.Errorf("GetNote after the edit: %+v, %v", got, err)
	}
}

func testNoteEditReplay(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Printer")
	alice := personCtx(f, "alice")
	n := r.note(t, alice, id, "first")
	first, err := r.svc.EditNote(alice, board.EditNoteInput{RequestID: "e1", NoteID: n.ID, Body: "second"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.EditNote(alice, board.EditNoteInput{RequestID: "e2", NoteID: n.ID, Body: "third"}); err != nil {
		t.Fatal(err)
	}
	version := r.get(t, id).Ticket.Version
	again, err := r.svc.EditNote(alice, board.EditNoteInput{RequestID: "e1", NoteID: n.ID, Body: "second"})
	if err != nil || !again.Replayed || again.Note.Body != "second" || !board.SameNote(again.Note, first.Note) {
		t.Fatalf("replay: %+v, %v; want the first answer, replayed", again, err)
	}
	_, err = r.svc.EditNote(alice, board.EditNoteInput{RequestID: "e1", NoteID: n.ID, Body: "other"})
	wantCode(t, "the request_id again with another body", err, board.CodeRequestReused)
	r.unchanged(t, "replays", id, version, "", "")
	same, err := r.svc.EditNote(alice, board.EditNoteInput{RequestID: "e3", NoteID: n.ID, Body: "third"})
	if err != nil || same.Note.Body != "third" {
		t.Fatalf("the same body again: %+v, %v", same, err)
	}
	if d := r.get(t, id); d.Ticket.Version != version || d.History[len(d.History)-1].RequestID != "e2" {
		t.Errorf("the same body again wrote: version %d (want %d), last event %+v", d.Ticket.Version, version, d.History[len(d.History)-1])
	}
	if rec, err := f.s.GetRequest(f.ctx, ledger.Key{Principal: "human:alice", RequestID: "e3"}, r.clock()); err != nil || rec.Status != ledger.StatusDone {
		t.Errorf("the unchanged call's record: %+v, %v; want it recorded", rec, err)
	}
}

func testNoteEditAuthor(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Printer")
	forAlice := agentCtx(f, "claude")
	forBob := board.WithPrincipal(f.ctx, board.Principal{Author: "ai:claude", OnBehalfOf: "human:bob", Source: board.SourceMCP})
	n := r.note(t, forAlice, id, "mine")
	version := r.get(t, id).Ticket.Version
	for name, ctx := range map[string]context.Context{
		"the same agent for another person": forBob,
		"another agent for the same person": agentCtx(f, "gemini"),
		"the person the agent wrote for":    personCtx(f, "alice"),
		"an admin":                          adminCtx(f, "root"),
	} {
		_, err := r.svc.EditNote(ctx, board.EditNoteInput{RequestID: f.id("x"), NoteID: n.ID, Body: "theirs"})
		wantCode(t, name, err, board.CodeForbidden, "ai:claude for human:alice")
	}
	r.unchanged(t, "refused edits", id, version, n.ID, "mine")
	if _, err := r.svc.EditNote(forAlice, board.EditNoteInput{RequestID: "ok", NoteID: n.ID, Body: "still mine"}); err != nil {
		t.Fatalf("the author's edit: %v", err)
	}
}

func testNoteEditBadInput(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Printer")
	alice := personCtx(f, "alice")
	n := r.note(t, alice, id, "text")
	version := r.get(t, id).Ticket.Version
	missing := id + "~" + strings.Split(n.ID, "~")[1] + "~" + uuid.NewString()
	for _, c := range []struct {
		name string
		in   board.EditNoteInput
		code board.Code
	}{
		{"empty body", board.EditNoteInput{RequestID: "b1", NoteID: n.ID}, board.CodeInvalid},
		{"a body over the limit", board.EditNoteInput{RequestID: "b2", NoteID: n.ID, Body: strings.Repeat("x", board.MaxNoteBody+1)}, board.CodeInvalid},
		{"no note id", board.EditNoteInput{RequestID: "b3", Body: "x"}, board.CodeInvalid},
		{"a note id of no form", board.EditNoteInput{RequestID: "b4", NoteID: "inbox-1~x", Body: "x"}, board.CodeInvalid},
		{"no request_id", board.EditNoteInput{NoteID: n.ID, Body: "x"}, board.CodeInvalid},
		{"a note that is not there", board.EditNoteInput{RequestID: "b5", NoteID: missing, Body: "x"}, board.CodeNotFound},
		{"a ticket that is not there", board.EditNoteInput{RequestID: "b6", NoteID: "inbox-99~" + strings.Split(n.ID, "~")[1] + "~" + uuid.NewString(), Body: "x"}, board.CodeNotFound},
	} {
		_, err := r.svc.EditNote(alice, c.in)
		wantCode(t, c.name, err, c.code)
		if c.in.RequestID != "" {
			if rec, err := f.s.GetRequest(f.ctx, ledger.Key{Principal: "human:alice", RequestID: c.in.RequestID}, r.clock()); err == nil {
				t.Errorf("%s: a request record was kept: %+v", c.name, rec)
			}
		}
	}
	_, err := r.svc.RedactNote(adminCtx(f, "root"), board.RedactNoteInput{RequestID: "r1", NoteID: n.ID})
	wantCode(t, "a redaction without a reason", err, board.CodeInvalid, "reason")
	r.unchanged(t, "bad input", id, version, n.ID, "text")
}

func testNoteEditPolicy(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	claude := agentCtx(f, "claude")
	ref := r.ticket(t, "reference", "Read only")
	n := r.note(t, personCtx(f, "alice"), ref, "by alice")
	_, err := r.svc.EditNote(claude, board.EditNoteInput{RequestID: "ro", NoteID: n.ID, Body: "x"})
	wantCode(t, "an agent's edit in a read-only workspace", err, board.CodeForbidden, "read-only")
	if _, err := r.svc.EditNote(personCtx(f, "alice"), board.EditNoteInput{RequestID: "ro-person", NoteID: n.ID, Body: "by alice, edited"}); err != nil {
		t.Errorf("a person's edit in a read-only workspace: %v", err)
	}
	priv := r.ticket(t, "private", "Hidden")
	h := r.note(t, personCtx(f, "alice"), priv, "hidden note")
	hidden := r.get(t, priv).Ticket.Version
	_, err = r.svc.EditNote(claude, board.EditNoteInput{RequestID: "hid", NoteID: h.ID, Body: "x"})
	wantCode(t, "an agent's edit in a hidden workspace", err, board.CodeNotFound, h.ID)
	r.unchanged(t, "the hidden note", priv, hidden, h.ID, "hidden note")
}

func testNoteRedact(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Printer")
	claude := agentCtx(f, "claude")
	n := r.note(t, claude, id, "the password is hunter2")
	version := r.get(t, id).Ticket.Version
	for name, ctx := range map[string]context.Context{"the author": claude, "a member": personCtx(f, "alice")} {
		_, err := r.svc.RedactNote(ctx, board.RedactNoteInput{RequestID: f.id("x"), NoteID: n.ID, Reason: "secret"})
		wantCode(t, name+"'s redaction", err, board.CodeForbidden, "admin")
	}
	r.unchanged(t, "refused redactions", id, version, n.ID, "the password is hunter2")
	r.advance(time.Second)
	res, err := r.svc.RedactNote(adminCtx(f, "root"), board.RedactNoteInput{RequestID: "red", NoteID: n.ID, Reason: "a secret was posted"})
	if err != nil {
		t.Fatal(err)
	}
	red := res.Note
	if red.Body != board.RedactedNoteBody || red.Redacted == nil || red.Redacted.By != "human:root" || red.Redacted.Reason != "a secret was posted" ||
		!red.Redacted.At.Equal(r.clock()) || red.EditedAt == nil || red.Author != "ai:claude" {
		t.Fatalf("redacted note %+v (%+v), want the placeholder, who, why and when", red, red.Redacted)
	}
	d := r.get(t, id)
	if len(d.Notes) != 1 || !board.SameNote(d.Notes[0], red) || d.Ticket.Version != version+1 {
		t.Fatalf("stored after the redaction: %+v at version %d", d.Notes, d.Ticket.Version)
	}
	ev := d.History[len(d.History)-1]
	if ev.Type != board.EventNoteRedacted || ev.NoteID != n.ID || ev.Reason != "a secret was posted" || len(ev.Changes) != 0 {
		t.Fatalf("last event %+v, want note.redacted with the reason and no text", ev)
	}
	_, err = r.svc.EditNote(claude, board.EditNoteInput{RequestID: "after", NoteID: n.ID, Body: "again"})
	wantCode(t, "an edit of a redacted note", err, board.CodeConflict, "redacted")
	if again, err := r.svc.RedactNote(adminCtx(f, "root"), board.RedactNoteInput{RequestID: "red2", NoteID: n.ID, Reason: "twice"}); err != nil || again.Note.Redacted.Reason != "a secret was posted" {
		t.Errorf("a second redaction: %+v, %v; want the first kept, nothing written", again, err)
	}
	if v := r.get(t, id).Ticket.Version; v != version+1 {
		t.Errorf("a second redaction wrote: version %d", v)
	}
}

func testNoteEditOldID(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Printer")
	d := r.get(t, id)
	// A note as the service wrote it before ids named their ticket: a
	// bare UUID, no on_behalf_of.
	tx := f.noteTx(d.Ticket, "old-note", "written long ago")
	tx.Note.ID = uuid.NewString()
	tx.Event.NoteID = tx.Note.ID
	tx.Note.Author, tx.Event.Author = "human:alice", "human:alice"
	f.save(tx)
	qualified := id + "~" + tx.Note.ID
	res, err := r.svc.EditNote(personCtx(f, "alice"), board.EditNoteInput{RequestID: "old", NoteID: qualified, Body: "written long ago, fixed"})
	if err != nil {
		t.Fatalf("edit by <ticket>~<uuid>: %v", err)
	}
	if res.Note.ID != tx.Note.ID || res.Note.Body != "written long ago, fixed" {
		t.Fatalf("edited old note %+v, want its own id kept", res.Note)
	}
	if got := r.get(t, id).Notes; len(got) != 1 || got[0].ID != tx.Note.ID || got[0].Body != "written long ago, fixed" {
		t.Fatalf("stored %+v", got)
	}
	_, err = r.svc.EditNote(personCtx(f, "alice"), board.EditNoteInput{RequestID: "old-elsewhere", NoteID: "inbox-99~" + tx.Note.ID, Body: "x"})
	wantCode(t, "an old id with another ticket", err, board.CodeNotFound)
}
