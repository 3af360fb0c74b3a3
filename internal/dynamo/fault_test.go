package dynamo_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	miniserver "github.com/truora/minidyn/server"
)

// faultyStore is a store on its own minidyn behind an injector.
func faultyStore(t *testing.T) (*dynamo.Store, *injector, *miniserver.Server) {
	t.Helper()
	var inj *injector
	ep := newMinidyn(t, func(h http.Handler) http.Handler {
		inj = newInjector(h.(*miniserver.Server))
		return inj
	})
	inj.table = tableName()
	s := openStore(t, ep, nil, dynamo.Config{Table: inj.table})
	return s, inj, ep.mini
}

// TestFaultsOnCreate: throttling, 5xx before and after the commit, and
// transaction conflicts are retried until the create commits once: one
// ticket, the caller told it is the first call (not a replay), no gap in
// the numbers afterwards.
func TestFaultsOnCreate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		faults []fault
	}{
		{"throttled three times", []fault{faultThrottle, faultThrottle, faultThrottle}},
		{"minidyn 500 before the commit", []fault{faultServerError, faultServerError, faultServerError}},
		{"answer lost after the commit", []fault{faultLostResponse}},
		{"answer lost after the commit, then throttled", []fault{faultLostResponse, faultThrottle, faultServerError}},
		// One short of what the SDK's retryer sends: its last attempt finds
		// the first attempt's record, with its txid.
		{"answers lost until the SDK's last attempt", slices.Repeat([]fault{faultLostResponse}, dynamo.RetryMaxAttempts-1)},
		{"transaction conflicts", []fault{faultTxConflict, faultTxConflict, faultTxConflict}},
		{"conflict after a lost answer", []fault{faultLostResponse, faultTxConflict}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, inj, _ := faultyStore(t)
			svc := newService(t, s)
			inj.arm("TransactWriteItems", tc.faults...)
			res := mustCreate(t, svc, "req-1", "under faults")
			if got := inj.count("TransactWriteItems"); got != len(tc.faults) {
				t.Fatalf("%d of %d faults were applied", got, len(tc.faults))
			}
			if res.Replayed || res.Ticket.ID != "inbox-1" {
				t.Errorf("create under faults: %s replayed=%v, want inbox-1 replayed=false", res.Ticket.ID, res.Replayed)
			}
			if ids := ticketIDs(t, svc); !slices.Equal(ids, []string{"inbox-1"}) {
				t.Errorf("tickets after the faults: %v, want exactly [inbox-1]", ids)
			}
			if n := inboxCandidates(t, svc); n != 1 {
				t.Errorf("candidate count %d, want 1", n)
			}
			again := mustCreate(t, svc, "req-1", "under faults")
			if !again.Replayed || again.Ticket.ID != "inbox-1" {
				t.Errorf("retry of the create: %s replayed=%v, want inbox-1 replayed=true", again.Ticket.ID, again.Replayed)
			}
			if next := mustCreate(t, svc, "req-2", "next"); next.Ticket.ID != "inbox-2" {
				t.Errorf("next create got %s, want inbox-2", next.Ticket.ID)
			}
		})
	}
}

// TestTransientErrorsAreTheSDKs: throttling, 5xx and lost answers are
// retried by the SDK's retryer alone (dynamo.NewRetryer). When it gives up,
// the call fails at once, without the store starting the SDK's retries over
// (they multiplied: up to 25 store attempts of 8 SDK attempts each); the
// write is then findable, and a retry with the same request_id converges.
func TestTransientErrorsAreTheSDKs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		f       fault
		written bool
	}{
		{"throttled", faultThrottle, false},
		{"server errors", faultServerError, false},
		{"answers lost after the commit", faultLostResponse, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, inj, _ := faultyStore(t)
			svc := newService(t, s)
			inj.arm("TransactWriteItems", slices.Repeat([]fault{tc.f}, 100)...)
			_, err := svc.CreateTicket(aiCtx(t), board.CreateTicketInput{RequestID: "r", Workspace: "inbox", NewTicket: board.NewTicket{Title: "t"}})
			if board.ErrorCode(err) != board.CodeInternal {
				t.Fatalf("create while every attempt fails: %v, want an internal error", err)
			}
			if got := inj.count("TransactWriteItems"); got != dynamo.RetryMaxAttempts {
				t.Fatalf("%d requests sent for one create, want the SDK's %d and no more", got, dynamo.RetryMaxAttempts)
			}
			inj.disarm()
			found, err := svc.FindRequest(aiCtx(t), board.FindRequestInput{RequestID: "r"})
			if err != nil || (found.Status == ledger.LookupDone) != tc.written {
				t.Fatalf("find_request: %+v %v, want done=%v", found, err, tc.written)
			}
			res := mustCreate(t, svc, "r", "t")
			if res.Ticket.ID != "inbox-1" || res.Replayed != tc.written {
				t.Errorf("retry: %s replayed=%v, want inbox-1 replayed=%v", res.Ticket.ID, res.Replayed, tc.written)
			}
			if ids := ticketIDs(t, svc); !slices.Equal(ids, []string{"inbox-1"}) {
				t.Errorf("tickets: %v, want exactly [inbox-1]", ids)
			}
		})
	}
}

// TestFaultsOnSave: the same faults on update, move and note.
func TestFaultsOnSave(t *testing.T) {
	t.Parallel()
	s, inj, _ := faultyStore(t)
	svc := newService(t, s)
	ctx := aiCtx(t)
	mustCreate(t, svc, "c", "ticket")
	// Fewer faults than the SDK's attempts: its retryer rides them out.
	all := []fault{faultThrottle, faultServerError, faultLostResponse, faultTxConflict, faultLostResponse}

	inj.arm("TransactWriteItems", all...)
	title := "renamed"
	up, err := svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: "u", ID: "inbox-1", Title: &title})
	if err != nil || up.Replayed || up.Ticket.Version != 2 {
		t.Fatalf("update under faults: %+v %v, want version 2, not replayed", up, err)
	}
	inj.disarm() // the update may have stopped before its last fault
	inj.arm("TransactWriteItems", all...)
	mv, err := svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: "m", ID: "inbox-1", Status: board.StatusDoing})
	if err != nil || mv.Replayed || mv.Ticket.Version != 3 {
		t.Fatalf("move under faults: %+v %v, want version 3, not replayed", mv, err)
	}
	inj.disarm()
	inj.arm("TransactWriteItems", all...)
	inj.arm("BatchGetItem", faultThrottle, faultServerError)
	note, err := svc.AddNote(ctx, board.AddNoteInput{RequestID: "n", ID: "inbox-1", Body: "a note"})
	if err != nil || note.Replayed {
		t.Fatalf("note under faults: %+v %v", note, err)
	}
	// A save that finds its own lost attempt committed while it waits to
	// resend after the conflict stops there, before the last fault.
	inj.disarm()
	// An AI call that changes nothing writes its record with a check that
	// the policy still allows it: a transaction of two items.
	before := inj.count("TransactWriteItems")
	inj.arm("TransactWriteItems", all...)
	same, err := svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: "m-same", ID: "inbox-1", Status: board.StatusDoing})
	if err != nil || same.Replayed || same.Ticket.Version != 4 {
		t.Fatalf("no-op move under faults: %+v %v", same, err)
	}
	if got := inj.count("TransactWriteItems") - before; got != len(all) {
		t.Errorf("%d transaction faults applied to the no-op move, want %d", got, len(all))
	}
	// A person's call that changes nothing needs no policy check, but still
	// the check of the ticket's version: a transaction of two items too.
	person := board.WithPrincipal(t.Context(), board.Principal{Author: "human", Source: board.SourceWeb})
	before = inj.count("TransactWriteItems")
	inj.arm("TransactWriteItems", faultTxConflict, faultThrottle, faultLostResponse, faultTxConflict)
	same, err = svc.MoveTicket(person, board.MoveTicketInput{RequestID: "m-same-person", ID: "inbox-1", Status: board.StatusDoing})
	if err != nil || same.Replayed || same.Ticket.Version != 4 {
		t.Fatalf("a person's no-op move under faults: %+v %v", same, err)
	}
	if got := inj.count("TransactWriteItems") - before; got != 4 {
		t.Errorf("%d transaction faults applied to a person's no-op move, want 4", got)
	}
	d, err := svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-1"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Ticket.Version != 4 || len(d.Notes) != 1 || len(d.History) != 4 {
		t.Errorf("after faults: version %d, %d notes, %d events; want 4, 1, 4 (created, updated, moved, note)", d.Ticket.Version, len(d.Notes), len(d.History))
	}
	sum, err := svc.GetWorkspaceSummary(ctx, board.WorkspaceInput{Workspace: "inbox"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counts[board.StatusDoing] != 1 || sum.Counts[board.StatusCandidate] != 0 {
		t.Errorf("counts after a move under faults: %v, want doing 1, candidate 0", sum.Counts)
	}
}

// TestFaultsOnReads: throttled and failing reads, and keys a BatchGetItem
// leaves unprocessed (minidyn's partial-failure emulation), are retried.
func TestFaultsOnReads(t *testing.T) {
	t.Parallel()
	s, inj, mini := faultyStore(t)
	svc := newService(t, s)
	ctx := aiCtx(t)
	mustCreate(t, svc, "c", "ticket")

	inj.arm("GetItem", faultThrottle, faultServerError)
	got, err := svc.FindRequest(ctx, board.FindRequestInput{RequestID: "c"})
	if err != nil || got.Status != ledger.LookupDone {
		t.Fatalf("find_request under faults: %+v %v", got, err)
	}
	inj.arm("Query", faultThrottle, faultServerError, faultThrottle)
	if ids := ticketIDs(t, svc); !slices.Equal(ids, []string{"inbox-1"}) {
		t.Errorf("list_tickets under faults: %v", ids)
	}

	// The first two BatchGetItem calls leave the ticket's key unprocessed.
	left := 2
	var mu sync.Mutex
	mini.EmulateUnprocessedItems(inj.table, func(_ int, raw map[string]*miniserver.AttributeValue) bool {
		mu.Lock()
		defer mu.Unlock()
		if pk := raw["pk"]; pk != nil && pk.S != nil && *pk.S == "T#inbox-1" && left > 0 {
			left--
			return true
		}
		return false
	})
	mv, err := svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: "m", ID: "inbox-1", Status: board.StatusDone})
	if err != nil || mv.Ticket.Status != board.StatusDone {
		t.Fatalf("move with unprocessed keys: %+v %v", mv, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if left != 0 {
		t.Errorf("the unprocessed-keys emulation was not exercised (%d left)", left)
	}
}

// TestCancelledAfterCommit: a call whose commit went through but whose
// answer never arrived (its context ended first) may look failed to the
// caller; the retry with the same request_id gets the committed result.
func TestCancelledAfterCommit(t *testing.T) {
	t.Parallel()
	s, inj, _ := faultyStore(t)
	svc := newService(t, s)
	inj.arm("TransactWriteItems", slices.Repeat([]fault{faultLostResponse}, 10_000)...)
	ctx, cancel := context.WithTimeout(aiCtx(t), 300*time.Millisecond)
	defer cancel()
	_, err := svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "lost", Workspace: "inbox", NewTicket: board.NewTicket{Title: "t"}})
	if err == nil {
		t.Fatal("create succeeded although every answer was lost")
	}
	if board.ErrorCode(err) != board.CodeInternal {
		t.Fatalf("create with lost answers: %v", err)
	}
	inj.disarm() // the network heals

	found, err := svc.FindRequest(aiCtx(t), board.FindRequestInput{RequestID: "lost"})
	if err != nil || found.Status != ledger.LookupDone {
		t.Fatalf("find_request after the lost answers: %+v %v, want done", found, err)
	}
	res := mustCreate(t, svc, "lost", "t")
	if !res.Replayed || res.Ticket.ID != "inbox-1" {
		t.Errorf("retry: %s replayed=%v, want the committed inbox-1 replayed", res.Ticket.ID, res.Replayed)
	}
	if ids := ticketIDs(t, svc); !slices.Equal(ids, []string{"inbox-1"}) {
		t.Errorf("tickets: %v, want exactly [inbox-1]", ids)
	}
}

// TestFaultsOnClaim: a claim whose answer was lost is recognised as the
// caller's own by its owner token, and is not handed to anyone else.
func TestFaultsOnClaim(t *testing.T) {
	t.Parallel()
	s, inj, _ := faultyStore(t)
	ctx := context.Background()
	now := time.Now()
	claim := func(owner string) ledger.Record {
		args := []byte(`{"intent":"import"}`)
		rec := ledger.NewRecord(ledger.Key{Principal: "ai:test", RequestID: "job"}, "import_tickets", args, now, 24*time.Hour)
		rec.Status, rec.Owner, rec.LeaseUntil = ledger.StatusRunning, owner, now.Add(time.Minute)
		return rec
	}
	inj.arm("PutItem", faultLostResponse, faultItemConflict, faultLostResponse)
	if err := s.ClaimRequest(ctx, claim("w1"), now); err != nil {
		t.Fatalf("claim under faults: %v", err)
	}
	got, err := s.GetRequest(ctx, ledger.Key{Principal: "ai:test", RequestID: "job"}, now)
	if err != nil || got.Owner != "w1" || got.Status != ledger.StatusRunning {
		t.Fatalf("after the claim: %+v %v", got, err)
	}
	var exists *ledger.ExistsError
	if err := s.ClaimRequest(ctx, claim("w2"), now); !errors.As(err, &exists) || exists.Record.Owner != "w1" {
		t.Errorf("second claim: %v, want ExistsError naming w1", err)
	}
	inj.arm("UpdateItem", faultLostResponse, faultThrottle)
	if err := s.CompleteRequest(ctx, got.Key, "w1", []byte(`{"imported":1}`)); err != nil {
		t.Errorf("complete under faults: %v", err)
	}
	if got, _ := s.GetRequest(ctx, got.Key, now); got.Status != ledger.StatusDone || string(got.Result) != `{"imported":1}` {
		t.Errorf("after completing: %+v", got)
	}
}
