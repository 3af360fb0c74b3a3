package storetest

import (
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// LoadForWrite: the record, the ticket and the policy in one read.

func loadForWriteTests() []contractTest {
	return []contractTest{
		{"no record: Existing nil, the ticket and its policy", testLoadNoRecord},
		{"an unexpired record is returned", testLoadExisting},
		{"an expired record counts as none", testLoadExpired},
		{"another principal's record is not seen", testLoadOtherPrincipal},
		{"a missing ticket is nil, not an error", testLoadMissingTicket},
	}
}

func (f *fixture) load(k ledger.Key, ticketID string, now time.Time) board.WriteContext {
	f.t.Helper()
	wc, err := f.s.LoadForWrite(f.ctx, k, ticketID, now)
	if err != nil {
		f.t.Fatalf("LoadForWrite(%+v, %q): %v", k, ticketID, err)
	}
	return wc
}

func testLoadNoRecord(t *testing.T, f *fixture) {
	for ws, policy := range map[string]board.AIPolicy{"inbox": board.PolicyReadWrite, "reference": board.PolicyReadOnly, "private": board.PolicyHidden} {
		plan := f.create(ws, "c-"+ws, withOwner("human"), withTags("t"))
		wc := f.load(key(alice, "fresh"), plan.Ticket.ID, f.now())
		if wc.Existing != nil {
			t.Errorf("LoadForWrite(%s) with an unused key: Existing = %+v, want nil", ws, *wc.Existing)
		}
		if wc.Ticket == nil {
			t.Fatalf("LoadForWrite(%s): Ticket is nil", plan.Ticket.ID)
		}
		assertTicket(t, "LoadForWrite("+plan.Ticket.ID+").Ticket", plan.Ticket, *wc.Ticket)
		if wc.Policy != policy {
			t.Errorf("LoadForWrite(%s).Policy = %q, want %q", plan.Ticket.ID, wc.Policy, policy)
		}
	}
	// After a change the current state is loaded.
	plan := f.create("inbox", "c2")
	tx := f.retitle(plan.Ticket, "u", "changed")
	f.save(tx)
	wc := f.load(key(alice, "fresh"), plan.Ticket.ID, f.now())
	if wc.Ticket == nil {
		t.Fatal("LoadForWrite after an update: Ticket is nil")
	}
	assertTicket(t, "LoadForWrite after an update", *tx.After, *wc.Ticket)
}

func testLoadExisting(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c")
	tx := f.retitle(plan.Ticket, "u", "changed")
	f.save(tx)
	wc := f.load(tx.Request.Key, plan.Ticket.ID, f.now())
	if wc.Existing == nil {
		t.Fatal("LoadForWrite with a used key: Existing is nil")
	}
	assertRecord(t, "LoadForWrite.Existing", tx.Request, *wc.Existing)
	if wc.Ticket == nil {
		t.Fatal("LoadForWrite with a used key: Ticket is nil")
	}
	assertTicket(t, "LoadForWrite.Ticket", *tx.After, *wc.Ticket)

	// A replay must be answerable even when the ticket is gone or named wrong.
	wc = f.load(tx.Request.Key, "inbox-77", f.now())
	if wc.Existing == nil {
		t.Error("LoadForWrite with a used key and a missing ticket: Existing is nil")
	}
	// A running claim is returned too.
	claim := running(alice, "job", "w1", f.now(), f.now().Add(time.Minute))
	if err := f.s.ClaimRequest(f.ctx, claim, claim.CreatedAt); err != nil {
		t.Fatalf("ClaimRequest: %v", err)
	}
	wc = f.load(claim.Key, plan.Ticket.ID, f.now())
	if wc.Existing == nil {
		t.Fatal("LoadForWrite with a claimed key: Existing is nil")
	}
	assertRecord(t, "LoadForWrite.Existing of a claim", claim, *wc.Existing)
}

func testLoadExpired(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c") // at T0+1.001s
	expiry := ms(5_250)
	tx := f.updateTx(plan.Ticket, alice, "u", expiry.Add(-retention), []string{"title"}, withTitle("x"))
	tx.Request = expiringAt(tx.Request, expiry)
	f.save(tx)
	for _, c := range []struct {
		now  time.Time
		live bool
	}{
		{ms(5_000), true}, // same second, whole: text comparison gets this wrong
		{ms(5_249), true},
		{expiry, false},
		{ms(5_251), false},
		{ms(6_000), false},
	} {
		wc := f.load(tx.Request.Key, plan.Ticket.ID, c.now)
		if got := wc.Existing != nil; got != c.live {
			t.Errorf("LoadForWrite at %s of a record expiring at %s: Existing present = %v, want %v", show(c.now), show(expiry), got, c.live)
		}
		if wc.Ticket == nil {
			t.Errorf("LoadForWrite at %s: Ticket is nil", show(c.now))
		}
	}
}

func testLoadOtherPrincipal(t *testing.T, f *fixture) {
	plan := f.create("inbox", "c")
	tx := f.retitle(plan.Ticket, "u", "changed")
	f.save(tx)
	wc := f.load(key(bob, "u"), plan.Ticket.ID, f.now())
	if wc.Existing != nil {
		t.Errorf("LoadForWrite as bob sees alice's record under the same request_id: %+v", *wc.Existing)
	}
}

func testLoadMissingTicket(t *testing.T, f *fixture) {
	f.create("inbox", "c")
	for _, id := range []string{"inbox-2", "reference-1", "nope-1"} {
		wc, err := f.s.LoadForWrite(f.ctx, key(alice, "x"), id, f.now())
		if err != nil {
			t.Errorf("LoadForWrite(%s): %v; a missing ticket must not be an error", id, err)
			continue
		}
		if wc.Ticket != nil {
			t.Errorf("LoadForWrite(%s).Ticket = %+v, want nil", id, *wc.Ticket)
		}
		if wc.Existing != nil {
			t.Errorf("LoadForWrite(%s).Existing = %+v, want nil", id, *wc.Existing)
		}
	}
}
