package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Claims (board/claims.go): the same leases, refusals and hand-outs on
// every store, through a Service whose clock the test moves.

func claimTests() []contractTest {
	return []contractTest{
		{"a claim is stored, shown without its token, and refuses another agent", testClaimHeld},
		{"a claim whose lease ran out is free with no write", testClaimExpires},
		{"the holder renews with its token; a wrong token is refused", testClaimRenew},
		{"release with a status moves in the same write and ends the claim", testClaimReleaseMoves},
		{"a person breaks an agent's claim; a person's move ends it", testClaimBroken},
		{"other agents' update and move are refused; the holder's token passes; notes stay open", testClaimGuardsWrites},
		{"claims are refused for AI in read-only workspaces; hidden ones do not exist", testClaimPolicy},
		{"claim_next hands out the highest priority, then the oldest, free ticket matching", testClaimNextOrder},
		{"claim_next under concurrency gives every ticket to exactly one caller", testClaimNextConcurrent},
		{"a replay answers the first claim, token included", testClaimReplay},
		{"list_tickets filters claimed true and false", testClaimListFilter},
	}
}

// claimRig is a Service over the fixture's store with a clock the test
// moves.
type claimRig struct {
	f   *fixture
	svc *board.Service

	mu  sync.Mutex
	now time.Time
}

func newClaimRig(t *testing.T, f *fixture) *claimRig {
	r := &claimRig{f: f, now: T0.Add(time.Hour + 7*time.Millisecond)}
	svc, err := board.NewService(board.Config{Store: f.s, BaseURL: "https://board.test", Logger: testLogger(t), Now: r.clock})
	if err != nil {
		t.Fatal(err)
	}
	r.svc = svc
	return r
}

func (r *claimRig) clock() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.now
}

func (r *claimRig) advance(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.now = r.now.Add(d)
}

func agentCtx(f *fixture, name string) context.Context {
	return board.WithPrincipal(f.ctx, board.Principal{Author: "ai:" + name, OnBehalfOf: "human:alice", Source: board.SourceMCP})
}

func personCtx(f *fixture, handle string) context.Context {
	return board.WithPrincipal(f.ctx, board.Principal{Author: "human:" + handle, Role: board.RoleMember, Source: board.SourceWeb})
}

// ticket creates a ticket as a person and returns its id.
func (r *claimRig) ticket(t *testing.T, workspace, title string, opts ...func(*board.CreateTicketInput)) string {
	t.Helper()
	in := board.CreateTicketInput{RequestID: r.f.id("c"), Workspace: workspace, NewTicket: board.NewTicket{Title: title}}
	for _, o := range opts {
		o(&in)
	}
	res, err := r.svc.CreateTicket(personCtx(r.f, "alice"), in)
	if err != nil {
		t.Fatalf("create %q: %v", title, err)
	}
	return res.Ticket.ID
}

func (r *claimRig) claim(t *testing.T, ctx context.Context, id string) board.ClaimResult {
	t.Helper()
	res, err := r.svc.ClaimTicket(ctx, board.ClaimTicketInput{RequestID: r.f.id("cl"), ID: id})
	if err != nil {
		t.Fatalf("claim %s: %v", id, err)
	}
	return res
}

func (r *claimRig) get(t *testing.T, id string) board.TicketDetail {
	t.Helper()
	d, err := r.svc.GetTicket(personCtx(r.f, "alice"), board.TicketIDInput{ID: id})
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return d
}

func (r *claimRig) lastEvent(t *testing.T, id string) board.Event {
	t.Helper()
	h := r.get(t, id).History
	return h[len(h)-1]
}

// wantCode fails unless err is a board error with code whose message holds
// every one of words.
func wantCode(t *testing.T, what string, err error, code board.Code, words ...string) {
	t.Helper()
	var e *board.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("%s: %v, want %s", what, err, code)
	}
	for _, w := range words {
		if !strings.Contains(e.Message, w) {
			t.Errorf("%s: message %q does not say %q", what, e.Message, w)
		}
	}
}

func testClaimHeld(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Fix the printer")
	res := r.claim(t, agentCtx(f, "claude"), id)
	now := r.clock()
	c := res.Claim
	if c == nil || res.Ticket == nil || c.By != "ai:claude" || c.For != "human:alice" || !c.Since.Equal(now) ||
		!c.Until.Equal(now.Add(board.DefaultLeaseSeconds*time.Second)) || !strings.HasPrefix(c.Token, "ct_") {
		t.Fatalf("claim answer %+v, want ai:claude for human:alice from now for the default lease, with a token", c)
	}
	got := r.get(t, id).Ticket.Claim
	if got == nil || got.By != "ai:claude" || got.For != "human:alice" || !got.Until.Equal(c.Until) || got.TokenHash != "" {
		t.Fatalf("get_ticket's claim %+v, want the holder and until, no token", got)
	}
	if ev := r.lastEvent(t, id); ev.Type != board.EventTicketClaimed || ev.Author != "ai:claude" {
		t.Errorf("history ends with %s by %s, want %s by ai:claude", ev.Type, ev.Author, board.EventTicketClaimed)
	}
	_, err := r.svc.ClaimTicket(agentCtx(f, "gemini"), board.ClaimTicketInput{RequestID: "other", ID: id})
	wantCode(t, "another agent's claim", err, board.CodeConflict, "ai:claude for human:alice", c.Until.Format(time.RFC3339), "claim_next")
	// The same principal in another session (no token) is refused too.
	_, err = r.svc.ClaimTicket(agentCtx(f, "claude"), board.ClaimTicketInput{RequestID: "again", ID: id})
	wantCode(t, "the holder's second session", err, board.CodeConflict, "claim_token")
}

func testClaimExpires(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Lease")
	first := r.claim(t, agentCtx(f, "claude"), id)
	version := r.get(t, id).Ticket.Version
	r.advance(board.DefaultLeaseSeconds*time.Second - time.Millisecond)
	if r.get(t, id).Ticket.Claim == nil {
		t.Fatal("the claim is gone a millisecond before its until")
	}
	r.advance(time.Millisecond)
	d := r.get(t, id)
	if d.Ticket.Claim != nil || d.Ticket.Version != version {
		t.Fatalf("at its until: claim %+v, version %d; want none, version %d (no write)", d.Ticket.Claim, d.Ticket.Version, version)
	}
	second := r.claim(t, agentCtx(f, "gemini"), id)
	if second.Claim.By != "ai:gemini" || second.Claim.Token == first.Claim.Token {
		t.Fatalf("claim after expiry: %+v", second.Claim)
	}
	// The first holder's token no longer works.
	_, err := r.svc.MoveTicket(agentCtx(f, "claude"), board.MoveTicketInput{RequestID: "late", ID: id, Status: board.StatusDone, ClaimToken: first.Claim.Token})
	wantCode(t, "the expired holder's move", err, board.CodeConflict, "ai:gemini")
}

func testClaimRenew(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Renew")
	first := r.claim(t, agentCtx(f, "claude"), id)
	r.advance(10 * time.Minute)
	renewed, err := r.svc.ClaimTicket(agentCtx(f, "claude"), board.ClaimTicketInput{RequestID: "renew", ID: id, LeaseSeconds: 120, ClaimToken: first.Claim.Token})
	if err != nil {
		t.Fatal(err)
	}
	if !renewed.Claim.Since.Equal(first.Claim.Since) || !renewed.Claim.Until.Equal(r.clock().Add(120*time.Second)) || renewed.Claim.Token != first.Claim.Token {
		t.Fatalf("renewed %+v, want the same since and token, until now+120s", renewed.Claim)
	}
	if ev := r.lastEvent(t, id); ev.Type != board.EventTicketClaimRenewed {
		t.Errorf("history ends with %s, want %s", ev.Type, board.EventTicketClaimRenewed)
	}
	_, err = r.svc.ClaimTicket(agentCtx(f, "claude"), board.ClaimTicketInput{RequestID: "wrong", ID: id, ClaimToken: "ct_not-the-token"})
	wantCode(t, "renewal with a wrong token", err, board.CodeConflict, "not that claim's")
	for _, lease := range []int{59, 3601} {
		_, err = r.svc.ClaimTicket(agentCtx(f, "claude"), board.ClaimTicketInput{RequestID: fmt.Sprint("lease", lease), ID: id, LeaseSeconds: lease, ClaimToken: first.Claim.Token})
		wantCode(t, fmt.Sprintf("lease %d", lease), err, board.CodeInvalid, "60-3600")
	}
}

func testClaimReleaseMoves(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Release")
	c := r.claim(t, agentCtx(f, "claude"), id)
	_, err := r.svc.ReleaseTicket(agentCtx(f, "gemini"), board.ReleaseTicketInput{RequestID: "steal", ID: id})
	wantCode(t, "another agent's release", err, board.CodeConflict, "ai:claude")
	res, err := r.svc.ReleaseTicket(agentCtx(f, "claude"), board.ReleaseTicketInput{RequestID: "rel", ID: id, Status: board.StatusDone, Reason: "fixed", ClaimToken: c.Claim.Token})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Released || res.Ticket.Claim != nil || res.Ticket.Status != board.StatusDone || res.Ticket.CompletedAt == nil {
		t.Fatalf("release answer %+v, want released, unclaimed, done", res)
	}
	d := r.get(t, id)
	if d.Ticket.Claim != nil || d.Ticket.Status != board.StatusDone {
		t.Fatalf("stored after release: claim %+v, status %s", d.Ticket.Claim, d.Ticket.Status)
	}
	ev := d.History[len(d.History)-1]
	if ev.Type != board.EventTicketReleased || ev.From != "candidate" || ev.To != "done" || ev.Reason != "fixed" {
		t.Errorf("history ends with %+v, want released candidate → done: fixed", ev)
	}
	w, err := f.s.GetWorkspace(f.ctx, "inbox")
	if err != nil {
		t.Fatal(err)
	}
	if w.Counts[board.StatusDone] != 1 || w.Counts[board.StatusCandidate] != 0 {
		t.Errorf("counts after a release to done: %v", w.Counts)
	}
}

func testClaimBroken(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Break")
	r.claim(t, agentCtx(f, "claude"), id)
	res, err := r.svc.ReleaseTicket(personCtx(f, "bob"), board.ReleaseTicketInput{RequestID: "break", ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Released || res.Ticket.Claim != nil {
		t.Fatalf("a person's release: %+v", res)
	}
	ev := r.lastEvent(t, id)
	if ev.Type != board.EventTicketClaimBroken || ev.Author != "human:bob" || ev.Holder != "ai:claude for human:alice" {
		t.Errorf("history ends with %+v, want claim broken by human:bob, holder ai:claude for human:alice", ev)
	}
	// A person's move ends an agent's claim, and says so.
	r.claim(t, agentCtx(f, "gemini"), id)
	if _, err := r.svc.MoveTicket(personCtx(f, "bob"), board.MoveTicketInput{RequestID: "mv", ID: id, Status: board.StatusDoing}); err != nil {
		t.Fatal(err)
	}
	d := r.get(t, id)
	if d.Ticket.Claim != nil || d.History[len(d.History)-1].Holder != "ai:gemini for human:alice" {
		t.Errorf("after a person's move: claim %+v, last event %+v", d.Ticket.Claim, d.History[len(d.History)-1])
	}
	// "Assign to me" ends it too; another change by a person does not.
	r.claim(t, agentCtx(f, "gemini"), id)
	title := "Break, retitled"
	if _, err := r.svc.UpdateTicket(personCtx(f, "bob"), board.UpdateTicketInput{RequestID: "ti", ID: id, Title: &title}); err != nil {
		t.Fatal(err)
	}
	if r.get(t, id).Ticket.Claim == nil {
		t.Fatal("a person's retitle ended the claim")
	}
	me := "human:bob"
	if _, err := r.svc.UpdateTicket(personCtx(f, "bob"), board.UpdateTicketInput{RequestID: "me", ID: id, Owner: board.Nullable{Set: true, Value: &me}}); err != nil {
		t.Fatal(err)
	}
	if c := r.get(t, id).Ticket.Claim; c != nil {
		t.Errorf("after assign to me: claim %+v", c)
	}
}

func testClaimGuardsWrites(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	id := r.ticket(t, "inbox", "Guarded")
	c := r.claim(t, agentCtx(f, "claude"), id)
	title := "changed"
	_, err := r.svc.UpdateTicket(agentCtx(f, "gemini"), board.UpdateTicketInput{RequestID: "u1", ID: id, Title: &title})
	wantCode(t, "another agent's update", err, board.CodeConflict, "ai:claude for human:alice")
	_, err = r.svc.MoveTicket(agentCtx(f, "gemini"), board.MoveTicketInput{RequestID: "m1", ID: id, Status: board.StatusDoing})
	wantCode(t, "another agent's move", err, board.CodeConflict, "ai:claude for human:alice")
	_, err = r.svc.MoveTicket(agentCtx(f, "claude"), board.MoveTicketInput{RequestID: "m2", ID: id, Status: board.StatusDoing})
	wantCode(t, "the holder's move without its token", err, board.CodeConflict, "claim_token")
	if d := r.get(t, id); d.Ticket.Title != "Guarded" || d.Ticket.Status != board.StatusCandidate {
		t.Fatalf("a refused write changed the ticket: %+v", d.Ticket)
	}
	if _, err := r.svc.MoveTicket(agentCtx(f, "claude"), board.MoveTicketInput{RequestID: "m3", ID: id, Status: board.StatusDoing, ClaimToken: c.Claim.Token}); err != nil {
		t.Fatalf("the holder's move with its token: %v", err)
	}
	if _, err := r.svc.UpdateTicket(agentCtx(f, "claude"), board.UpdateTicketInput{RequestID: "u2", ID: id, Title: &title, ClaimToken: c.Claim.Token}); err != nil {
		t.Fatalf("the holder's update with its token: %v", err)
	}
	if _, err := r.svc.AddNote(agentCtx(f, "gemini"), board.AddNoteInput{RequestID: "n1", ID: id, Body: "I can help"}); err != nil {
		t.Fatalf("another agent's note: %v", err)
	}
	if d := r.get(t, id); d.Ticket.Claim == nil || d.Ticket.Status != board.StatusDoing || d.Ticket.Title != title {
		t.Fatalf("after the holder's writes: %+v", d.Ticket)
	}
}

func testClaimPolicy(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	ref := r.ticket(t, "reference", "Read only")
	priv := r.ticket(t, "private", "Hidden")
	_, err := r.svc.ClaimTicket(agentCtx(f, "claude"), board.ClaimTicketInput{RequestID: "ro", ID: ref})
	wantCode(t, "a claim in a read-only workspace", err, board.CodeForbidden, "read-only")
	_, err = r.svc.ClaimNext(agentCtx(f, "claude"), board.ClaimNextInput{RequestID: "ron", Workspace: "reference"})
	wantCode(t, "claim_next in a read-only workspace", err, board.CodeForbidden, "read-only")
	_, err = r.svc.ClaimTicket(agentCtx(f, "claude"), board.ClaimTicketInput{RequestID: "hid", ID: priv})
	wantCode(t, "a claim in a hidden workspace", err, board.CodeNotFound)
	_, err = r.svc.ClaimNext(agentCtx(f, "claude"), board.ClaimNextInput{RequestID: "hidn", Workspace: "private"})
	wantCode(t, "claim_next in a hidden workspace", err, board.CodeNotFound)
	// People claim anywhere.
	r.claim(t, personCtx(f, "alice"), ref)
	if c := r.get(t, ref).Ticket.Claim; c == nil || c.By != "human:alice" {
		t.Errorf("a person's claim in a read-only workspace: %+v", c)
	}
}

func testClaimNextOrder(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	prio := func(p board.Priority) func(*board.CreateTicketInput) {
		return func(in *board.CreateTicketInput) { in.Priority = p }
	}
	tag := func(tg string) func(*board.CreateTicketInput) {
		return func(in *board.CreateTicketInput) { in.Tags = []string{tg} }
	}
	low := r.ticket(t, "inbox", "low", prio(board.PriorityLow))            // 1
	normal1 := r.ticket(t, "inbox", "normal 1")                            // 2
	high := r.ticket(t, "inbox", "high", prio(board.PriorityHigh))         // 3
	normal2 := r.ticket(t, "inbox", "normal 2", tag("docs"))               // 4
	urgent := r.ticket(t, "inbox", "urgent", prio(board.PriorityUrgent))   // 5
	waiting := r.ticket(t, "inbox", "waiting", prio(board.PriorityUrgent)) // 6
	if _, err := r.svc.MoveTicket(personCtx(f, "alice"), board.MoveTicketInput{RequestID: "w", ID: waiting, Status: board.StatusWaitingAI}); err != nil {
		t.Fatal(err)
	}
	held := r.ticket(t, "inbox", "held", prio(board.PriorityUrgent)) // 7
	r.claim(t, agentCtx(f, "other"), held)
	next := func(in board.ClaimNextInput) string {
		t.Helper()
		in.RequestID = f.id("next")
		in.LeaseSeconds = board.MaxLeaseSeconds // outlives the other agent's default lease
		res, err := r.svc.ClaimNext(agentCtx(f, "claude"), in)
		if err != nil {
			t.Fatalf("claim_next %+v: %v", in, err)
		}
		if res.Ticket == nil {
			if res.Claim != nil {
				t.Fatalf("no ticket but a claim: %+v", res.Claim)
			}
			return ""
		}
		if res.Claim == nil || res.Claim.By != "ai:claude" || res.Ticket.Claim == nil {
			t.Fatalf("claim_next answered %s without its claim", res.Ticket.ID)
		}
		return res.Ticket.ID
	}
	if got := next(board.ClaimNextInput{Workspace: "inbox", Tag: "docs"}); got != normal2 {
		t.Errorf("by tag: %s, want %s", got, normal2)
	}
	var got []string
	for range 5 {
		got = append(got, next(board.ClaimNextInput{Workspace: "inbox"}))
	}
	if want := []string{urgent, high, normal1, low, ""}; !slices.Equal(got, want) {
		t.Errorf("candidates in order %v, want %v (urgent, high, then normal oldest first, low; the held one skipped)", got, want)
	}
	if got := next(board.ClaimNextInput{Workspace: "inbox", Status: board.StatusWaitingAI}); got != waiting {
		t.Errorf("waiting_ai: %s, want %s", got, waiting)
	}
	_, err := r.svc.ClaimNext(agentCtx(f, "claude"), board.ClaimNextInput{RequestID: "bad", Workspace: "inbox", Status: board.StatusDoing})
	wantCode(t, "claim_next from doing", err, board.CodeInvalid, "candidate or waiting_ai")
	// Once the other agent's lease runs out, its ticket is handed out.
	r.advance(board.DefaultLeaseSeconds * time.Second)
	if got := next(board.ClaimNextInput{Workspace: "inbox"}); got != held {
		t.Errorf("after the lease ran out: %s, want %s", got, held)
	}
}

func testClaimNextConcurrent(t *testing.T, f *fixture) {
	const tickets, callers = 24, 8
	r := newClaimRig(t, f)
	// A second service over the same store: another process racing.
	other, err := board.NewService(board.Config{Store: f.s, BaseURL: "https://board.test", Logger: testLogger(t), Now: r.clock})
	if err != nil {
		t.Fatal(err)
	}
	for i := range tickets {
		r.ticket(t, "inbox", fmt.Sprint("work ", i))
	}
	var mu sync.Mutex
	owners := map[string]int{}
	var failures []string
	Together(callers, func(c int) {
		svc := r.svc
		if c%2 == 1 {
			svc = other
		}
		ctx := agentCtx(f, fmt.Sprint("worker", c))
		for n := 0; ; n++ {
			res, err := svc.ClaimNext(ctx, board.ClaimNextInput{RequestID: fmt.Sprintf("w%d-%d", c, n), Workspace: "inbox"})
			mu.Lock()
			if err != nil {
				failures = append(failures, err.Error())
				mu.Unlock()
				return
			}
			if res.Ticket == nil {
				mu.Unlock()
				return
			}
			owners[res.Ticket.ID]++
			mu.Unlock()
		}
	})
	if len(failures) > 0 {
		t.Fatalf("%d claim_next calls failed, first: %s", len(failures), failures[0])
	}
	if len(owners) != tickets {
		t.Errorf("%d tickets handed out, want %d", len(owners), tickets)
	}
	for id, n := range owners {
		if n != 1 {
			t.Errorf("%s handed out %d times", id, n)
		}
	}
}

func testClaimReplay(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	a := r.ticket(t, "inbox", "first")
	r.ticket(t, "inbox", "second")
	in := board.ClaimNextInput{RequestID: "same", Workspace: "inbox", LeaseSeconds: 300}
	first, err := r.svc.ClaimNext(agentCtx(f, "claude"), in)
	if err != nil {
		t.Fatal(err)
	}
	r.advance(time.Minute)
	again, err := r.svc.ClaimNext(agentCtx(f, "claude"), in)
	if err != nil {
		t.Fatal(err)
	}
	if first.Ticket == nil || first.Ticket.ID != a || !again.Replayed || again.Ticket == nil || again.Ticket.ID != a || again.Claim.Token != first.Claim.Token {
		t.Fatalf("replay of claim_next: %+v, want %s with the first token, replayed", again, a)
	}
	in.LeaseSeconds = 600
	_, err = r.svc.ClaimNext(agentCtx(f, "claude"), in)
	wantCode(t, "the same request_id with other arguments", err, board.CodeRequestReused)
	ct := board.ClaimTicketInput{RequestID: "ct", ID: "inbox-2"}
	one, err := r.svc.ClaimTicket(agentCtx(f, "claude"), ct)
	if err != nil {
		t.Fatal(err)
	}
	two, err := r.svc.ClaimTicket(agentCtx(f, "claude"), ct)
	if err != nil || !two.Replayed || two.Claim.Token != one.Claim.Token {
		t.Fatalf("replay of claim_ticket: %+v, %v", two, err)
	}
	rel := board.ReleaseTicketInput{RequestID: "rel", ID: "inbox-2", Status: board.StatusDone, ClaimToken: one.Claim.Token}
	if _, err := r.svc.ReleaseTicket(agentCtx(f, "claude"), rel); err != nil {
		t.Fatal(err)
	}
	res, err := r.svc.ReleaseTicket(agentCtx(f, "claude"), rel)
	if err != nil || !res.Replayed || !res.Released {
		t.Fatalf("replay of release_ticket: %+v, %v", res, err)
	}
	if n := len(r.get(t, "inbox-2").History); n != 3 {
		t.Errorf("inbox-2 has %d events, want 3 (created, claimed, released): replays wrote again", n)
	}
}

func testClaimListFilter(t *testing.T, f *fixture) {
	r := newClaimRig(t, f)
	a := r.ticket(t, "inbox", "a")
	b := r.ticket(t, "inbox", "b")
	c := r.ticket(t, "inbox", "c")
	r.claim(t, agentCtx(f, "claude"), a)
	r.claim(t, agentCtx(f, "claude"), c)
	r.advance(time.Minute)
	r.claim(t, agentCtx(f, "gemini"), b)
	list := func(claimed bool, status board.Status) []string {
		t.Helper()
		res, err := r.svc.ListTickets(agentCtx(f, "claude"), board.ListTicketsInput{Workspace: "inbox", Claimed: &claimed, Status: status})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tk := range res.Tickets {
			out = append(out, tk.ID)
		}
		return out
	}
	if got := list(true, ""); !slices.Equal(got, []string{c, b, a}) {
		t.Errorf("claimed: %v", got)
	}
	if got := list(false, board.StatusCandidate); len(got) != 0 {
		t.Errorf("unclaimed candidates: %v, want none", got)
	}
	r.advance(board.DefaultLeaseSeconds*time.Second - 30*time.Second) // a and c ran out, b has 30 s left
	if got := list(true, ""); !slices.Equal(got, []string{b}) {
		t.Errorf("claimed after a and c ran out: %v, want %s", got, b)
	}
	if got := list(false, board.StatusCandidate); !slices.Equal(got, []string{c, a}) {
		t.Errorf("unclaimed after a and c ran out: %v, want %s, %s", got, c, a)
	}
}
