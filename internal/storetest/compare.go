package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// This file compares what a store returns with what was written, field by
// field, so a failure names the field a backend lost.

// differ collects the fields that differ.
type differ struct{ diffs []string }

func (d *differ) add(field string, want, got any) {
	d.diffs = append(d.diffs, fmt.Sprintf("%s: got %s, want %s", field, show(got), show(want)))
}

func (d *differ) str(field, want, got string) {
	if want != got {
		d.add(field, want, got)
	}
}

func (d *differ) int(field string, want, got int64) {
	if want != got {
		d.add(field, want, got)
	}
}

func (d *differ) time(field string, want, got time.Time) {
	if !want.Equal(got) {
		d.add(field, want, got)
	}
}

func (d *differ) strPtr(field string, want, got *string) {
	switch {
	case want == nil && got == nil:
	case want == nil || got == nil:
		d.add(field, want, got)
	case *want != *got:
		d.add(field, *want, *got)
	}
}

func (d *differ) timePtr(field string, want, got *time.Time) {
	switch {
	case want == nil && got == nil:
	case want == nil || got == nil:
		d.add(field, want, got)
	default:
		d.time(field, *want, *got)
	}
}

func (d *differ) strs(field string, want, got []string) {
	if !slices.Equal(want, got) { // nil and empty are equal here
		d.add(field, want, got)
	}
}

func (d *differ) bytes(field string, want, got []byte) {
	if !bytes.Equal(want, got) { // nil and empty are equal here
		d.add(field, string(want), string(got))
	}
}

// report fails the test with every difference, if any.
func (d *differ) report(t *testing.T, what string) {
	t.Helper()
	if len(d.diffs) > 0 {
		t.Errorf("%s differs from what was written:\n\t%s", what, strings.Join(d.diffs, "\n\t"))
	}
}

// show formats a value for a message, clipping long strings.
func show(v any) string {
	switch x := v.(type) {
	case string:
		if n := utf8.RuneCountInString(x); n > 80 {
			return fmt.Sprintf("%q… (%d characters, %d bytes)", string([]rune(x)[:80]), n, len(x))
		}
		return fmt.Sprintf("%q", x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case *string:
		if x == nil {
			return "nil"
		}
		return show(*x)
	case *time.Time:
		if x == nil {
			return "nil"
		}
		return show(*x)
	}
	return fmt.Sprintf("%v", v)
}

func ticketDiff(d *differ, prefix string, want, got board.Ticket) {
	d.str(prefix+"ID", want.ID, got.ID)
	d.str(prefix+"Workspace", want.Workspace, got.Workspace)
	d.int(prefix+"Number", want.Number, got.Number)
	d.str(prefix+"Title", want.Title, got.Title)
	d.str(prefix+"Body", want.Body, got.Body)
	d.str(prefix+"Status", string(want.Status), string(got.Status))
	d.str(prefix+"Priority", string(want.Priority), string(got.Priority))
	d.strPtr(prefix+"Owner", want.Owner, got.Owner)
	d.strPtr(prefix+"Due", want.Due, got.Due)
	d.strs(prefix+"Tags", want.Tags, got.Tags)
	if len(want.Links) != len(got.Links) {
		d.add(prefix+"len(Links)", len(want.Links), len(got.Links))
	} else {
		for i := range want.Links {
			p := fmt.Sprintf("%sLinks[%d].", prefix, i)
			d.str(p+"Kind", want.Links[i].Kind, got.Links[i].Kind)
			d.str(p+"Ref", want.Links[i].Ref, got.Links[i].Ref)
			d.str(p+"Title", want.Links[i].Title, got.Links[i].Title)
		}
	}
	d.str(prefix+"CreatedBy", want.CreatedBy, got.CreatedBy)
	d.time(prefix+"CreatedAt", want.CreatedAt, got.CreatedAt)
	d.time(prefix+"UpdatedAt", want.UpdatedAt, got.UpdatedAt)
	d.timePtr(prefix+"CompletedAt", want.CompletedAt, got.CompletedAt)
	d.int(prefix+"Version", want.Version, got.Version)
}

// assertTicket checks every stored field of a ticket (URL is computed on
// read by the Service and not compared).
func assertTicket(t *testing.T, what string, want, got board.Ticket) {
	t.Helper()
	var d differ
	ticketDiff(&d, "", want, got)
	d.report(t, what)
}

// assertTickets checks a list of tickets in order.
func assertTickets(t *testing.T, what string, want, got []board.Ticket) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%s: got %d tickets %v, want %d %v", what, len(got), ticketIDs(got), len(want), ticketIDs(want))
		return
	}
	var d differ
	for i := range want {
		ticketDiff(&d, fmt.Sprintf("[%d].", i), want[i], got[i])
	}
	d.report(t, what)
}

func ticketIDs(ts []board.Ticket) []string {
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ID
	}
	return ids
}

func eventDiff(d *differ, prefix string, want, got board.Event) {
	d.str(prefix+"ID", want.ID, got.ID)
	d.str(prefix+"Workspace", want.Workspace, got.Workspace)
	d.str(prefix+"TicketID", want.TicketID, got.TicketID)
	d.str(prefix+"Type", want.Type, got.Type)
	d.str(prefix+"Title", want.Title, got.Title)
	d.strs(prefix+"Fields", want.Fields, got.Fields)
	d.str(prefix+"Changes", changesJSON(want.Changes), changesJSON(got.Changes))
	d.str(prefix+"From", want.From, got.From)
	d.str(prefix+"To", want.To, got.To)
	d.str(prefix+"Reason", want.Reason, got.Reason)
	d.str(prefix+"NoteID", want.NoteID, got.NoteID)
	d.str(prefix+"Author", want.Author, got.Author)
	d.str(prefix+"OnBehalfOf", want.OnBehalfOf, got.OnBehalfOf)
	d.str(prefix+"Source", string(want.Source), string(got.Source))
	d.str(prefix+"RequestID", want.RequestID, got.RequestID)
	d.time(prefix+"At", want.At, got.At)
}

// assertEvents checks a list of events in order, every field.
func assertEvents(t *testing.T, what string, want, got []board.Event) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%s: got %d events %v, want %d %v", what, len(got), eventTypes(got), len(want), eventTypes(want))
		return
	}
	var d differ
	for i := range want {
		eventDiff(&d, fmt.Sprintf("[%d].", i), want[i], got[i])
	}
	d.report(t, what)
}

func eventTypes(evs []board.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type + " " + e.ID
	}
	return out
}

// assertNotes checks a list of notes in order, every field.
func assertNotes(t *testing.T, what string, want, got []board.Note) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%s: got %d notes, want %d", what, len(got), len(want))
		return
	}
	var d differ
	for i := range want {
		p := fmt.Sprintf("[%d].", i)
		d.str(p+"ID", want[i].ID, got[i].ID)
		d.str(p+"TicketID", want[i].TicketID, got[i].TicketID)
		d.str(p+"Body", want[i].Body, got[i].Body)
		d.str(p+"Author", want[i].Author, got[i].Author)
		d.str(p+"Source", string(want[i].Source), string(got[i].Source))
		d.time(p+"CreatedAt", want[i].CreatedAt, got[i].CreatedAt)
	}
	d.report(t, what)
}

// assertRecord checks every field of a request record.
func assertRecord(t *testing.T, what string, want, got ledger.Record) {
	t.Helper()
	var d differ
	d.str("Key.Principal", want.Key.Principal, got.Key.Principal)
	d.str("Key.RequestID", want.Key.RequestID, got.Key.RequestID)
	d.str("Tool", want.Tool, got.Tool)
	d.str("Fingerprint", want.Fingerprint, got.Fingerprint)
	d.bytes("Args", want.Args, got.Args)
	d.str("Status", string(want.Status), string(got.Status))
	d.bytes("Result", want.Result, got.Result)
	d.str("Owner", want.Owner, got.Owner)
	d.time("LeaseUntil", want.LeaseUntil, got.LeaseUntil)
	d.time("CreatedAt", want.CreatedAt, got.CreatedAt)
	d.time("ExpiresAt", want.ExpiresAt, got.ExpiresAt)
	d.report(t, what)
}

// assertCounts checks a workspace's counts; a missing status counts zero.
func assertCounts(t *testing.T, what string, want, got map[board.Status]int) {
	t.Helper()
	var d differ
	for _, st := range board.Statuses {
		if want[st] != got[st] {
			d.add(string(st), want[st], got[st])
		}
	}
	for st, n := range got {
		if !slices.Contains(board.Statuses, st) && n != 0 {
			d.add("unknown status "+string(st), 0, n)
		}
	}
	d.report(t, what+" counts")
}

// noCounts is every status at zero.
var noCounts = map[board.Status]int{}

// assertIs fails unless errors.Is(err, target).
func assertIs(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want errors.Is(err, %v)", what, err, target)
	}
}

// assertExists fails unless err is a *ledger.ExistsError carrying want.
func assertExists(t *testing.T, what string, err error, want ledger.Record) {
	t.Helper()
	var exists *ledger.ExistsError
	if !errors.As(err, &exists) {
		t.Errorf("%s: got error %v, want *ledger.ExistsError", what, err)
		return
	}
	assertRecord(t, what+": record carried by ExistsError", want, exists.Record)
}

// assertPolicyError fails unless err is a *board.PolicyError naming policy.
func assertPolicyError(t *testing.T, what string, err error, policy board.AIPolicy) {
	t.Helper()
	var denied *board.PolicyError
	if !errors.As(err, &denied) {
		t.Errorf("%s: got error %v, want *board.PolicyError", what, err)
		return
	}
	if denied.Policy != policy {
		t.Errorf("%s: PolicyError.Policy is %q, want %q", what, denied.Policy, policy)
	}
}

// changesJSON is an event's changes as JSON: values read back from a
// store are JSON's own types (a list of tags as []any), so they compare as
// the text they were written as.
func changesJSON(c []board.FieldChange) string {
	b, err := json.Marshal(c)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	return string(b)
}
