package storetest

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Invitations, sessions and the sign-in failures behind the rate limit.

func credentialTests() []contractTest {
	return []contractTest{
		{"an invitation reads back until it expires", testInvitationRoundTrip},
		{"CreatePerson with an invitation stores both", testCreatePersonWithInvitation},
		{"CreateInvitation for an unknown person is ErrNotFound", testInvitationUnknownPerson},
		{"CreateInvitation of the same invitation twice stores it once", testInvitationTwice},
		{"ListInvitations lists the unexpired ones, oldest first", testListInvitations},
		{"AcceptInvitation sets the password once; the invitation is then gone", testAcceptInvitation},
		{"AcceptInvitation of an expired or revoked invitation is ErrNotFound", testAcceptExpired},
		{"concurrent AcceptInvitation of one invitation: exactly one wins", testRaceAccept},
		{"a session reads back until it expires, and not after sign-out", testSessionLifecycle},
		{"AcceptInvitation voids the person's older invitations and records who set the password", testAcceptVoidsOlder},
		{"an invitation made before a disable is void", testDisableVoidsInvitations},
		{"sign-in attempts take slots per handle up to a limit; a release frees its own slot only", testSignInSlots},
		{"concurrent sign-in attempts of one handle: exactly limit get a slot", testRaceSignInSlots},
	}
}

func invitation(hash, handle string, created time.Time, life time.Duration) board.Invitation {
	return board.Invitation{TokenHash: hash, Handle: handle, CreatedBy: "human:root", CreatedAt: created, ExpiresAt: created.Add(life)}
}

func assertInvitation(t *testing.T, what string, want, got board.Invitation) {
	t.Helper()
	var d differ
	d.str("TokenHash", want.TokenHash, got.TokenHash)
	d.str("Handle", want.Handle, got.Handle)
	d.str("CreatedBy", want.CreatedBy, got.CreatedBy)
	d.time("CreatedAt", want.CreatedAt, got.CreatedAt)
	d.time("ExpiresAt", want.ExpiresAt, got.ExpiresAt)
	d.report(t, what)
}

func testInvitationRoundTrip(t *testing.T, f *fixture) {
	f.createPerson(person("alice", board.RoleMember, f.now()), nil)
	inv := invitation("h-1", "alice", f.now(), 7*24*time.Hour)
	if err := f.s.CreateInvitation(f.ctx, inv); err != nil {
		t.Fatal(err)
	}
	got, err := f.s.GetInvitation(f.ctx, "h-1", inv.ExpiresAt.Add(-time.Millisecond))
	if err != nil {
		t.Fatalf("GetInvitation a millisecond before expiry: %v", err)
	}
	assertInvitation(t, "GetInvitation", inv, got)
	_, err = f.s.GetInvitation(f.ctx, "h-1", inv.ExpiresAt)
	assertIs(t, "GetInvitation at expiry", err, board.ErrNotFound)
	_, err = f.s.GetInvitation(f.ctx, "h-unknown", inv.CreatedAt)
	assertIs(t, "GetInvitation(unknown)", err, board.ErrNotFound)
}

func testCreatePersonWithInvitation(t *testing.T, f *fixture) {
	p := person("carol", board.RoleAdmin, f.now())
	p.PasswordHash = ""
	inv := invitation("h-carol", "carol", f.now(), time.Hour)
	f.createPerson(p, &inv)
	assertPerson(t, "GetPerson(carol)", p, f.person("carol"))
	got, err := f.s.GetInvitation(f.ctx, "h-carol", inv.CreatedAt)
	if err != nil {
		t.Fatal(err)
	}
	assertInvitation(t, "GetInvitation(h-carol)", inv, got)
}

func testInvitationUnknownPerson(t *testing.T, f *fixture) {
	err := f.s.CreateInvitation(f.ctx, invitation("h-x", "nobody", f.now(), time.Hour))
	assertIs(t, "CreateInvitation(nobody)", err, board.ErrNotFound)
	invs, err := f.s.ListInvitations(f.ctx, T0)
	if err != nil || len(invs) != 0 {
		t.Fatalf("ListInvitations after the refused invitation = %v, %v; want none", invs, err)
	}
}

func testListInvitations(t *testing.T, f *fixture) {
	f.createPerson(person("alice", board.RoleMember, f.now()), nil)
	f.createPerson(person("bob", board.RoleMember, f.now()), nil)
	first := invitation("h-z", "bob", f.now(), time.Hour) // hash order differs from creation order
	short := invitation("h-s", "alice", f.now(), time.Minute)
	second := invitation("h-a", "alice", f.now(), time.Hour)
	for _, inv := range []board.Invitation{first, short, second} {
		if err := f.s.CreateInvitation(f.ctx, inv); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.s.ListInvitations(f.ctx, short.ExpiresAt)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("ListInvitations after the short one expired = %d, want 2", len(got))
	}
	assertInvitation(t, "ListInvitations[0]", first, got[0])
	assertInvitation(t, "ListInvitations[1]", second, got[1])
	if err := f.s.DeleteInvitation(f.ctx, "h-z"); err != nil {
		t.Fatal(err)
	}
	if err := f.s.DeleteInvitation(f.ctx, "h-z"); err != nil {
		t.Fatalf("deleting a deleted invitation: %v, want no error", err)
	}
	got, err = f.s.ListInvitations(f.ctx, short.ExpiresAt)
	if err != nil || len(got) != 1 || got[0].TokenHash != "h-a" {
		t.Fatalf("ListInvitations after revoking h-z = %v, %v; want h-a alone", got, err)
	}
}

func testAcceptInvitation(t *testing.T, f *fixture) {
	p := person("alice", board.RoleAdmin, f.now())
	p.PasswordHash = ""
	inv := invitation("h-1", "alice", f.now(), time.Hour)
	f.createPerson(p, &inv)
	got, err := f.s.AcceptInvitation(f.ctx, "h-1", "new-hash", inv.CreatedAt.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	p.PasswordHash, p.CredentialsNotBefore = "new-hash", inv.CreatedAt.Add(time.Minute)
	assertPerson(t, "AcceptInvitation's answer", p, got)
	assertPerson(t, "GetPerson after AcceptInvitation", p, f.person("alice"))
	_, err = f.s.AcceptInvitation(f.ctx, "h-1", "other-hash", inv.CreatedAt.Add(2*time.Minute))
	assertIs(t, "AcceptInvitation a second time", err, board.ErrNotFound)
	assertPerson(t, "GetPerson after the refused second use", p, f.person("alice"))
	_, err = f.s.GetInvitation(f.ctx, "h-1", inv.CreatedAt)
	assertIs(t, "GetInvitation of a used invitation", err, board.ErrNotFound)
}

func testAcceptExpired(t *testing.T, f *fixture) {
	p := person("alice", board.RoleMember, f.now())
	f.createPerson(p, nil)
	old := invitation("h-old", "alice", f.now(), time.Hour)
	revoked := invitation("h-rev", "alice", f.now(), time.Hour)
	for _, inv := range []board.Invitation{old, revoked} {
		if err := f.s.CreateInvitation(f.ctx, inv); err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.s.AcceptInvitation(f.ctx, "h-old", "x", old.ExpiresAt)
	assertIs(t, "AcceptInvitation at expiry", err, board.ErrNotFound)
	if err := f.s.DeleteInvitation(f.ctx, "h-rev"); err != nil {
		t.Fatal(err)
	}
	_, err = f.s.AcceptInvitation(f.ctx, "h-rev", "x", revoked.CreatedAt)
	assertIs(t, "AcceptInvitation of a revoked invitation", err, board.ErrNotFound)
	assertPerson(t, "GetPerson: password unchanged", p, f.person("alice"))
}

func testRaceAccept(t *testing.T, f *fixture) {
	p := person("alice", board.RoleMember, f.now())
	inv := invitation("h-race", "alice", f.now(), time.Hour)
	f.createPerson(p, &inv)
	const n = 8
	var won, refused atomic.Int32
	var winner atomic.Value
	Together(n, func(i int) {
		hash := "hash-" + string(rune('a'+i))
		switch _, err := f.s.AcceptInvitation(f.ctx, "h-race", hash, inv.CreatedAt.Add(time.Second)); {
		case err == nil:
			won.Add(1)
			winner.Store(hash)
		case errors.Is(err, board.ErrNotFound):
			refused.Add(1)
		default:
			t.Errorf("AcceptInvitation %d: %v", i, err)
		}
	})
	if won.Load() != 1 || refused.Load() != n-1 {
		t.Fatalf("%d accepts won and %d were refused, want 1 and %d", won.Load(), refused.Load(), n-1)
	}
	if got := f.person("alice").PasswordHash; got != winner.Load() {
		t.Fatalf("password hash is %q, want the winner's %q", got, winner.Load())
	}
}

func testSessionLifecycle(t *testing.T, f *fixture) {
	f.createPerson(person("alice", board.RoleMember, f.now()), nil)
	created := f.now()
	ses := board.Session{IDHash: "s-1", Handle: "alice", CreatedAt: created, ExpiresAt: created.Add(12 * time.Hour)}
	other := board.Session{IDHash: "s-2", Handle: "alice", CreatedAt: created, ExpiresAt: created.Add(12 * time.Hour)}
	for _, s := range []board.Session{ses, other} {
		if err := f.s.CreateSession(f.ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.s.GetSession(f.ctx, "s-1", ses.ExpiresAt.Add(-time.Millisecond))
	if err != nil {
		t.Fatalf("GetSession before expiry: %v", err)
	}
	var d differ
	d.str("IDHash", ses.IDHash, got.IDHash)
	d.str("Handle", ses.Handle, got.Handle)
	d.time("CreatedAt", ses.CreatedAt, got.CreatedAt)
	d.time("ExpiresAt", ses.ExpiresAt, got.ExpiresAt)
	d.report(t, "GetSession")
	_, err = f.s.GetSession(f.ctx, "s-1", ses.ExpiresAt)
	assertIs(t, "GetSession at expiry", err, board.ErrNotFound)
	_, err = f.s.GetSession(f.ctx, "s-unknown", created)
	assertIs(t, "GetSession(unknown)", err, board.ErrNotFound)
	if err := f.s.DeleteSession(f.ctx, "s-1"); err != nil {
		t.Fatal(err)
	}
	_, err = f.s.GetSession(f.ctx, "s-1", created)
	assertIs(t, "GetSession after sign-out", err, board.ErrNotFound)
	if _, err := f.s.GetSession(f.ctx, "s-2", created); err != nil {
		t.Fatalf("the other session after s-1 signed out: %v", err)
	}
	if err := f.s.DeleteSession(f.ctx, "s-1"); err != nil {
		t.Fatalf("signing out twice: %v", err)
	}
}

func testAcceptVoidsOlder(t *testing.T, f *fixture) {
	p := person("alice", board.RoleMember, f.now())
	older := invitation("h-older", "alice", f.now(), time.Hour)
	f.createPerson(p, &older)
	used := invitation("h-used", "alice", f.now().Add(time.Minute), time.Hour)
	bobs := invitation("h-bob", "bob", f.now(), time.Hour)
	f.createPerson(person("bob", board.RoleMember, f.now()), nil)
	for _, inv := range []board.Invitation{used, bobs} {
		if err := f.s.CreateInvitation(f.ctx, inv); err != nil {
			t.Fatal(err)
		}
	}
	at := f.now().Add(2 * time.Minute)
	if _, err := f.s.AcceptInvitation(f.ctx, "h-used", "new-hash", at); err != nil {
		t.Fatal(err)
	}
	if got := f.person("alice").CredentialsNotBefore; !got.Equal(at) {
		t.Fatalf("CredentialsNotBefore = %v, want the acceptance %v", got, at)
	}
	_, err := f.s.AcceptInvitation(f.ctx, "h-older", "attacker-hash", at.Add(time.Minute))
	assertIs(t, "AcceptInvitation of an invitation older than the reset", err, board.ErrNotFound)
	if got := f.person("alice").PasswordHash; got != "new-hash" {
		t.Fatalf("password hash %q after a void invitation, want new-hash", got)
	}
	list, err := f.s.ListInvitations(f.ctx, at)
	if err != nil || len(list) != 1 || list[0].TokenHash != "h-bob" {
		t.Fatalf("ListInvitations after alice's reset = %v, %v; want bob's alone", list, err)
	}
	evs, err := f.s.ListPersonEvents(f.ctx, "alice", 10)
	if err != nil {
		t.Fatal(err)
	}
	assertPersonEvents(t, "alice's history", []board.PersonEvent{{Handle: "alice", Type: board.PersonPasswordSet, Actor: "human:alice", At: at}}, evs)
}

func testDisableVoidsInvitations(t *testing.T, f *fixture) {
	p := person("alice", board.RoleMember, f.now())
	inv := invitation("h-1", "alice", f.now(), time.Hour)
	f.createPerson(p, &inv)
	for _, disabled := range []bool{true, false} {
		if err := f.s.SetPersonDisabled(f.ctx, "alice", disabled, board.PersonEvent{Handle: "alice", Type: board.PersonDisabled,
			Actor: "human:root", At: f.now().Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.s.AcceptInvitation(f.ctx, "h-1", "x", f.now().Add(2*time.Minute))
	assertIs(t, "AcceptInvitation of a link made before a disable", err, board.ErrNotFound)
}

func testSignInSlots(t *testing.T, f *fixture) {
	start := f.now()
	since := start.Add(-15 * time.Minute)
	reserve := func(handle, id string, at, since time.Time) (int, bool) {
		t.Helper()
		slot, ok, err := f.s.ReserveSignInAttempt(f.ctx, handle, board.SignInAttempt{ID: id, At: at, KeepUntil: at.Add(time.Hour)}, since, 3)
		if err != nil {
			t.Fatal(err)
		}
		return slot, ok
	}
	slots := map[int]bool{}
	for i := range 3 {
		slot, ok := reserve("alice", fmt.Sprint("a", i), start.Add(time.Duration(i)*time.Minute), since)
		if !ok || slot < 0 || slot >= 3 || slots[slot] {
			t.Fatalf("attempt %d: slot %d, ok %v (taken %v)", i, slot, ok, slots)
		}
		slots[slot] = true
	}
	if _, ok := reserve("alice", "a3", start.Add(3*time.Minute), since); ok {
		t.Fatal("a fourth attempt within the window got a slot; the limit is 3")
	}
	if _, ok := reserve("bob", "b0", start, since); !ok {
		t.Fatal("bob's first attempt got no slot: slots are per handle")
	}
	// Releasing with another attempt's id frees nothing; with its own, the slot.
	first, _ := reserve("carol", "c0", start, since)
	if err := f.s.ReleaseSignInAttempt(f.ctx, "alice", first, "not-mine"); err != nil {
		t.Fatal(err)
	}
	if _, ok := reserve("alice", "a4", start.Add(4*time.Minute), since); ok {
		t.Fatal("a release with a stranger's id freed a slot")
	}
	if err := f.s.ReleaseSignInAttempt(f.ctx, "alice", 0, "a0"); err != nil {
		t.Fatal(err)
	}
	if slot, ok := reserve("alice", "a5", start.Add(5*time.Minute), since); !ok || slot != 0 {
		t.Fatalf("after releasing slot 0: slot %d, ok %v; want slot 0", slot, ok)
	}
	// Attempts age out of the window: a later since frees the old ones.
	if _, ok := reserve("alice", "a6", start.Add(20*time.Minute), start.Add(2*time.Minute+30*time.Second)); !ok {
		t.Fatal("an attempt after the window moved past the oldest got no slot")
	}
}

func testRaceSignInSlots(t *testing.T, f *fixture) {
	const n, limit = 12, 5
	var ok atomic.Int32
	at := f.now()
	Together(n, func(i int) {
		_, got, err := f.s.ReserveSignInAttempt(f.ctx, "alice", board.SignInAttempt{ID: fmt.Sprint("r", i), At: at, KeepUntil: at.Add(time.Hour)},
			at.Add(-time.Minute), limit)
		if err != nil {
			t.Errorf("attempt %d: %v", i, err)
		}
		if got {
			ok.Add(1)
		}
	})
	if ok.Load() != limit {
		t.Fatalf("%d of %d concurrent attempts got a slot, want exactly %d", ok.Load(), n, limit)
	}
}

func testInvitationTwice(t *testing.T, f *fixture) {
	f.createPerson(person("alice", board.RoleMember, f.now()), nil)
	inv := invitation("h-twice", "alice", f.now(), time.Hour)
	for i := range 2 {
		if err := f.s.CreateInvitation(f.ctx, inv); err != nil {
			t.Fatalf("CreateInvitation #%d: %v", i+1, err)
		}
	}
	got, err := f.s.ListInvitations(f.ctx, inv.CreatedAt)
	if err != nil || len(got) != 1 {
		t.Fatalf("ListInvitations = %v, %v; want the one invitation", got, err)
	}
}
