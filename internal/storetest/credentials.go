package storetest

import (
	"errors"
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
		{"sign-in failures are counted per handle after a time, up to a limit", testSignInFailures},
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
	p.PasswordHash = "new-hash"
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

func testSignInFailures(t *testing.T, f *fixture) {
	start := f.now()
	keep := start.Add(time.Hour)
	for i := range 4 {
		if err := f.s.RecordSignInFailure(f.ctx, "alice", start.Add(time.Duration(i)*time.Minute), keep); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.s.RecordSignInFailure(f.ctx, "bob", start, keep); err != nil {
		t.Fatal(err)
	}
	count := func(handle string, since time.Time, limit int) int {
		t.Helper()
		n, err := f.s.CountSignInFailures(f.ctx, handle, since, limit)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count("alice", start.Add(-time.Second), 10); n != 4 {
		t.Errorf("alice's failures = %d, want 4", n)
	}
	if n := count("alice", start.Add(90*time.Second), 10); n != 2 {
		t.Errorf("alice's failures after 1m30s = %d, want 2 (at 2m and 3m)", n)
	}
	if n := count("alice", start.Add(-time.Second), 3); n != 3 {
		t.Errorf("alice's failures counted up to 3 = %d, want 3", n)
	}
	if n := count("bob", start.Add(-time.Second), 10); n != 1 {
		t.Errorf("bob's failures = %d, want 1", n)
	}
	if n := count("carol", start.Add(-time.Second), 10); n != 0 {
		t.Errorf("carol's failures = %d, want 0", n)
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
