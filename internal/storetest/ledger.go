package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// GetRequest and the lease ledger (ClaimRequest, CompleteRequest,
// ReleaseRequest) for work with effects outside one transaction.

func getRequestTests() []contractTest {
	return []contractTest{
		{"a stored record is found, every field intact", testGetRequestFound},
		{"a missing key is ErrNotFound", testGetRequestMissing},
		{"an expired record is ErrNotFound from ExpiresAt on", testGetRequestExpired},
	}
}

func leaseTests() []contractTest {
	return []contractTest{
		{"claim of a free key stores a running record", testClaimFree},
		{"claim while the lease is live is ExistsError", testClaimLive},
		{"claim after the lease expired takes over", testClaimTakeOver},
		{"claim of a done unexpired record is ExistsError", testClaimDone},
		{"claim of an expired record succeeds", testClaimExpired},
		{"complete by the owner stores the result", testCompleteOwner},
		{"complete by another owner is ErrNotOwner", testCompleteNotOwner},
		{"complete needs a running record; a repeat with the same result succeeds", testCompleteOnlyRunning},
		{"release by the owner deletes the record", testReleaseOwner},
		{"release by another owner is ErrNotOwner", testReleaseNotOwner},
		{"the old owner is fenced off after a take-over", testFencedAfterTakeOver},
	}
}

func testGetRequestFound(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c")
	want := record(alice, "c", board.ToolCreateTicket, "create", plan.Ticket.CreatedAt)
	want.Result = plan.Result
	assertRecord(t, "GetRequest of a create", want, f.request(want.Key, plan.Ticket.CreatedAt))

	claim := running(bob, "job", "w1", ms(100), ms(60_100))
	if err := f.s.ClaimRequest(f.ctx, claim, claim.CreatedAt); err != nil {
		t.Fatalf("ClaimRequest: %v", err)
	}
	assertRecord(t, "GetRequest of a claim", claim, f.request(claim.Key, ms(200)))
}

func testGetRequestMissing(t *testing.T, f *fixture) {
	f.create("inbox", "c")
	f.noRequest("unused key", key(alice, "other"), f.now())
	f.noRequest("used request_id of another principal", key(bob, "c"), f.now())
	f.noRequest("used request_id with a suffix", key(alice, "c2"), f.now())
}

func testGetRequestExpired(t *testing.T, f *fixture) {
	expiry := ms(7_300)
	rec := expiringAt(record(alice, "old", board.ToolCreateTicket, "create", T0), expiry)
	f.mustCreate(f.newCreateRecord("inbox", rec))
	for _, c := range []struct {
		now  time.Time
		live bool
	}{
		{T0, true},
		{ms(7_000), true}, // same second, whole: text comparison gets this wrong
		{ms(7_299), true},
		{expiry, false},
		{ms(7_301), false},
		{ms(8_000), false},
		{T0.Add(48 * time.Hour), false},
	} {
		_, err := f.s.GetRequest(f.ctx, rec.Key, c.now)
		switch {
		case c.live && err != nil:
			t.Errorf("GetRequest at %s of a record expiring at %s: %v, want the record", show(c.now), show(expiry), err)
		case !c.live:
			assertIs(t, "GetRequest at "+show(c.now)+" of a record expiring at "+show(expiry), err, board.ErrNotFound)
		}
	}
}

// claim puts rec and fails the test on error.
func (f *fixture) claim(rec ledger.Record, now time.Time) {
	f.t.Helper()
	if err := f.s.ClaimRequest(f.ctx, rec, now); err != nil {
		f.t.Fatalf("ClaimRequest(%+v, owner %q) at %s: %v", rec.Key, rec.Owner, show(now), err)
	}
}

func testClaimFree(t *testing.T, f *fixture) {
	rec := running(alice, "job", "w1", ms(10), ms(30_010))
	f.claim(rec, ms(10))
	got := f.request(rec.Key, ms(20))
	assertRecord(t, "GetRequest after ClaimRequest", rec, got)
	if got.Status != ledger.StatusRunning {
		t.Errorf("claimed record has status %q, want running", got.Status)
	}
	// Another principal's same request_id is a different key.
	f.claim(running(bob, "job", "w2", ms(10), ms(30_010)), ms(10))
}

func testClaimLive(t *testing.T, f *fixture) {
	first := running(alice, "job", "w1", T0, ms(30_500))
	f.claim(first, T0)
	for _, now := range []time.Time{ms(1), ms(30_000), ms(30_499)} {
		second := running(alice, "job", "w2", now, now.Add(30*time.Second))
		err := f.s.ClaimRequest(f.ctx, second, now)
		assertExists(t, "second claim at "+show(now)+" while the lease runs to "+show(first.LeaseUntil), err, first)
	}
	assertRecord(t, "GetRequest after the refused claims", first, f.request(first.Key, ms(2)))
}

func testClaimTakeOver(t *testing.T, f *fixture) {
	first := running(alice, "job", "w1", T0, ms(30_500))
	f.claim(first, T0)
	at := first.LeaseUntil // LeaseUntil <= now: the lease is over
	second := running(alice, "job", "w2", at, at.Add(30*time.Second))
	f.claim(second, at)
	assertRecord(t, "GetRequest after the take-over", second, f.request(first.Key, at))

	// The new lease is live again: a third claim is refused.
	third := running(alice, "job", "w3", ms(31_000), ms(61_000))
	err := f.s.ClaimRequest(f.ctx, third, ms(31_000))
	assertExists(t, "claim during the new owner's lease", err, second)
}

func testClaimDone(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c")
	done := record(alice, "c", board.ToolCreateTicket, "create", plan.Ticket.CreatedAt)
	done.Result = plan.Result
	claim := running(alice, "c", "w1", f.now(), f.now().Add(time.Minute))
	err := f.s.ClaimRequest(f.ctx, claim, claim.CreatedAt)
	assertExists(t, "claim of a key done by CreateTicket", err, done)

	// A completed claim whose lease time has long passed is still done.
	job := running(alice, "job", "w1", T0, ms(1_000))
	f.claim(job, T0)
	if err := f.s.CompleteRequest(f.ctx, job.Key, "w1", []byte(`{"imported":3}`)); err != nil {
		t.Fatalf("CompleteRequest: %v", err)
	}
	later := ms(120_000)
	err = f.s.ClaimRequest(f.ctx, running(alice, "job", "w2", later, later.Add(time.Minute)), later)
	var exists *ledger.ExistsError
	if !errors.As(err, &exists) {
		t.Fatalf("claim of a completed key after its lease time: %v, want *ledger.ExistsError", err)
	}
	if exists.Record.Status != ledger.StatusDone || string(exists.Record.Result) != `{"imported":3}` {
		t.Errorf("ExistsError carries status %q result %s, want done {\"imported\":3}", exists.Record.Status, exists.Record.Result)
	}
}

func testClaimExpired(t *testing.T, f *fixture) {
	expiry := ms(9_400)
	old := expiringAt(record(alice, "k", board.ToolCreateTicket, "create", T0), expiry)
	f.mustCreate(f.newCreateRecord("inbox", old))

	early := running(alice, "k", "w1", ms(9_000), ms(39_000))
	err := f.s.ClaimRequest(f.ctx, early, ms(9_000))
	wantOld := old
	wantOld.Result = f.request(old.Key, ms(9_000)).Result
	assertExists(t, "claim 400ms before the done record expires", err, wantOld)

	claim := running(alice, "k", "w1", expiry, expiry.Add(time.Minute))
	f.claim(claim, expiry)
	assertRecord(t, "GetRequest after claiming over an expired record", claim, f.request(claim.Key, expiry))
}

func testCompleteOwner(t *testing.T, f *fixture) {
	rec := running(alice, "job", "w1", T0, ms(60_000))
	f.claim(rec, T0)
	result := []byte(`{"request_id":"job","status":"completed","imported":10,"total":10}`)
	if err := f.s.CompleteRequest(f.ctx, rec.Key, "w1", result); err != nil {
		t.Fatalf("CompleteRequest by the owner: %v", err)
	}
	got := f.request(rec.Key, ms(1_000))
	if got.Status != ledger.StatusDone {
		t.Errorf("completed record has status %q, want done", got.Status)
	}
	if string(got.Result) != string(result) {
		t.Errorf("completed record has result %s, want %s", got.Result, result)
	}
	var d differ
	d.str("Tool", rec.Tool, got.Tool)
	d.str("Fingerprint", rec.Fingerprint, got.Fingerprint)
	d.bytes("Args", rec.Args, got.Args)
	d.time("CreatedAt", rec.CreatedAt, got.CreatedAt)
	d.time("ExpiresAt", rec.ExpiresAt, got.ExpiresAt)
	d.report(t, "completed record")
	// Once done, the work is never claimed again while the record lives.
	err := f.s.ClaimRequest(f.ctx, running(alice, "job", "w2", ms(2_000), ms(62_000)), ms(2_000))
	var exists *ledger.ExistsError
	if !errors.As(err, &exists) || exists.Record.Status != ledger.StatusDone {
		t.Errorf("claim after completion: %v, want ExistsError with a done record", err)
	}
}

func testCompleteNotOwner(t *testing.T, f *fixture) {
	rec := running(alice, "job", "w1", T0, ms(60_000))
	f.claim(rec, T0)
	err := f.s.CompleteRequest(f.ctx, rec.Key, "w2", []byte(`{"stolen":true}`))
	assertIs(t, "CompleteRequest by another owner", err, board.ErrNotOwner)
	assertRecord(t, "record after the refused completion", rec, f.request(rec.Key, ms(1)))

	// No record at all: nobody owns it.
	err = f.s.CompleteRequest(f.ctx, key(alice, "never-claimed"), "w1", []byte(`{}`))
	if !errors.Is(err, board.ErrNotOwner) && !errors.Is(err, board.ErrNotFound) {
		t.Errorf("CompleteRequest of a missing key: %v, want ErrNotOwner (or ErrNotFound)", err)
	}
	f.noRequest("after completing a missing key", key(alice, "never-claimed"), ms(1))
	// The same owner token under another principal's key owns nothing.
	err = f.s.CompleteRequest(f.ctx, key(bob, "job"), "w1", []byte(`{}`))
	if !errors.Is(err, board.ErrNotOwner) && !errors.Is(err, board.ErrNotFound) {
		t.Errorf("CompleteRequest of bob's (missing) key with alice's owner token: %v, want ErrNotOwner (or ErrNotFound)", err)
	}
}

// testCompleteOnlyRunning: completion is fenced by the owner and by the
// running status, on every store. A completion sent again (its answer was
// lost) with the same result finds its own work done and succeeds; with
// another result, or over a record no claim made, it owns nothing.
func testCompleteOnlyRunning(t *testing.T, f *fixture) {
	rec := running(alice, "job", "w1", T0, ms(60_000))
	f.claim(rec, T0)
	first := []byte(`{"imported":10}`)
	if err := f.s.CompleteRequest(f.ctx, rec.Key, "w1", first); err != nil {
		t.Fatalf("CompleteRequest: %v", err)
	}
	if err := f.s.CompleteRequest(f.ctx, rec.Key, "w1", first); err != nil {
		t.Errorf("CompleteRequest repeated with the same result: %v, want success (the first one's answer may have been lost)", err)
	}
	err := f.s.CompleteRequest(f.ctx, rec.Key, "w1", []byte(`{"imported":99}`))
	assertIs(t, "CompleteRequest of a done record with another result", err, board.ErrNotOwner)
	if got := f.request(rec.Key, ms(1_000)); got.Status != ledger.StatusDone || string(got.Result) != string(first) {
		t.Errorf("after the refused completion: status %q result %s, want done %s", got.Status, got.Result, first)
	}

	plan := f.create("inbox", "c")
	err = f.s.CompleteRequest(f.ctx, key(alice, "c"), "", []byte(`{}`))
	assertIs(t, "CompleteRequest of a record CreateTicket wrote", err, board.ErrNotOwner)
	want := record(alice, "c", board.ToolCreateTicket, "create", plan.Ticket.CreatedAt)
	want.Result = plan.Result
	assertRecord(t, "create's record after the refused completion", want, f.request(want.Key, plan.Ticket.CreatedAt))
}

func testReleaseOwner(t *testing.T, f *fixture) {
	rec := running(alice, "job", "w1", T0, ms(60_000))
	f.claim(rec, T0)
	if err := f.s.ReleaseRequest(f.ctx, rec.Key, "w1"); err != nil {
		t.Fatalf("ReleaseRequest by the owner: %v", err)
	}
	f.noRequest("after release", rec.Key, ms(1))
	// The key is free again at once, lease or not.
	f.claim(running(alice, "job", "w2", ms(2), ms(60_002)), ms(2))
}

func testReleaseNotOwner(t *testing.T, f *fixture) {
	rec := running(alice, "job", "w1", T0, ms(60_000))
	f.claim(rec, T0)
	err := f.s.ReleaseRequest(f.ctx, rec.Key, "w2")
	assertIs(t, "ReleaseRequest by another owner", err, board.ErrNotOwner)
	assertRecord(t, "record after the refused release", rec, f.request(rec.Key, ms(1)))
}

func testFencedAfterTakeOver(t *testing.T, f *fixture) {
	first := running(alice, "job", "w1", T0, ms(10_000))
	f.claim(first, T0)
	second := running(alice, "job", "w2", ms(10_000), ms(40_000))
	f.claim(second, ms(10_000))

	err := f.s.CompleteRequest(f.ctx, first.Key, "w1", []byte(`{"late":true}`))
	assertIs(t, "CompleteRequest by the owner who lost the lease", err, board.ErrNotOwner)
	err = f.s.ReleaseRequest(f.ctx, first.Key, "w1")
	assertIs(t, "ReleaseRequest by the owner who lost the lease", err, board.ErrNotOwner)
	assertRecord(t, "record after the old owner was fenced off", second, f.request(first.Key, ms(10_001)))

	if err := f.s.CompleteRequest(f.ctx, first.Key, "w2", []byte(`{"ok":true}`)); err != nil {
		t.Fatalf("CompleteRequest by the new owner: %v", err)
	}
	if got := f.request(first.Key, ms(10_002)); got.Status != ledger.StatusDone || string(got.Result) != `{"ok":true}` {
		t.Errorf("after completion by the new owner: status %q result %s", got.Status, got.Result)
	}
}
