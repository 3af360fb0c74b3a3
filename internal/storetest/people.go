package storetest

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// People: CreatePerson, GetPerson, ListPeople, SetPersonDisabled.

func peopleTests() []contractTest {
	return []contractTest{
		{"a created person reads back whole", testPersonRoundTrip},
		{"CreatePerson of a taken handle is ErrExists and changes nothing", testPersonExists},
		{"GetPerson of an unknown handle is ErrNotFound", testPersonUnknown},
		{"ListPeople lists everyone by handle", testListPeople},
		{"SetPersonDisabled disables and re-enables", testDisablePerson},
		{"concurrent CreatePerson of one handle: exactly one wins", testRaceCreatePerson},
	}
}

func person(handle string, role board.Role, now time.Time) board.Person {
	return board.Person{Handle: handle, Name: "Name of " + handle, Role: role, PasswordHash: "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA", CreatedAt: now}
}

func assertPerson(t *testing.T, what string, want, got board.Person) {
	t.Helper()
	var d differ
	d.str("Handle", want.Handle, got.Handle)
	d.str("Name", want.Name, got.Name)
	d.str("Role", string(want.Role), string(got.Role))
	d.str("PasswordHash", want.PasswordHash, got.PasswordHash)
	if want.Disabled != got.Disabled {
		d.add("Disabled", want.Disabled, got.Disabled)
	}
	d.time("CreatedAt", want.CreatedAt, got.CreatedAt)
	d.time("CredentialsNotBefore", want.CredentialsNotBefore, got.CredentialsNotBefore)
	d.report(t, what)
}

func (f *fixture) createPerson(p board.Person, inv *board.Invitation) {
	f.t.Helper()
	if err := f.s.CreatePerson(f.ctx, p, inv); err != nil {
		f.t.Fatalf("CreatePerson(%s): %v", p.Handle, err)
	}
}

func (f *fixture) person(handle string) board.Person {
	f.t.Helper()
	p, err := f.s.GetPerson(f.ctx, handle)
	if err != nil {
		f.t.Fatalf("GetPerson(%s): %v", handle, err)
	}
	return p
}

func testPersonRoundTrip(t *testing.T, f *fixture) {
	admin := person("alice", board.RoleAdmin, f.now().Add(7*time.Millisecond))
	member := person("bob-2", board.RoleMember, f.now())
	member.PasswordHash = "" // invited, no password yet
	member.Name = "Bob <b> \"Zwei\" 日本"
	f.createPerson(admin, nil)
	f.createPerson(member, nil)
	assertPerson(t, "GetPerson(alice)", admin, f.person("alice"))
	assertPerson(t, "GetPerson(bob-2)", member, f.person("bob-2"))
}

func testPersonExists(t *testing.T, f *fixture) {
	first := person("alice", board.RoleMember, f.now())
	f.createPerson(first, nil)
	second := person("alice", board.RoleAdmin, f.now())
	second.Name = "Impostor"
	inv := &board.Invitation{TokenHash: "h-impostor", Handle: "alice", CreatedBy: "human:root", CreatedAt: f.now(), ExpiresAt: f.now().Add(time.Hour)}
	assertIs(t, "CreatePerson(alice) again", f.s.CreatePerson(f.ctx, second, inv), board.ErrExists)
	assertPerson(t, "GetPerson(alice) after the refused create", first, f.person("alice"))
	_, err := f.s.GetInvitation(f.ctx, "h-impostor", f.now())
	assertIs(t, "the refused create's invitation", err, board.ErrNotFound)
}

func testPersonUnknown(t *testing.T, f *fixture) {
	_, err := f.s.GetPerson(f.ctx, "nobody")
	assertIs(t, "GetPerson(nobody)", err, board.ErrNotFound)
}

func testListPeople(t *testing.T, f *fixture) {
	empty, err := f.s.ListPeople(f.ctx)
	if err != nil || len(empty) != 0 {
		t.Fatalf("ListPeople on a fresh store = %v, %v; want none", empty, err)
	}
	var want []board.Person
	for _, h := range []string{"zed", "alice", "mike", "a1"} {
		p := person(h, board.RoleMember, f.now())
		f.createPerson(p, nil)
		want = append(want, p)
	}
	got, err := f.s.ListPeople(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	order := []string{"a1", "alice", "mike", "zed"}
	if len(got) != len(order) {
		t.Fatalf("ListPeople = %d people, want %d", len(got), len(order))
	}
	for i, h := range order {
		for _, w := range want {
			if w.Handle == h {
				assertPerson(t, fmt.Sprintf("ListPeople[%d]", i), w, got[i])
			}
		}
	}
}

func testDisablePerson(t *testing.T, f *fixture) {
	p := person("alice", board.RoleMember, f.now())
	f.createPerson(p, nil)
	off := board.PersonEvent{Handle: "alice", Type: board.PersonDisabled, Actor: "human:root", At: f.now().Add(time.Minute)}
	if err := f.s.SetPersonDisabled(f.ctx, "alice", true, off); err != nil {
		t.Fatal(err)
	}
	p.Disabled, p.CredentialsNotBefore = true, off.At
	assertPerson(t, "after disabling", p, f.person("alice"))
	on := board.PersonEvent{Handle: "alice", Type: board.PersonEnabled, Actor: "human:root", At: f.now().Add(2 * time.Minute)}
	if err := f.s.SetPersonDisabled(f.ctx, "alice", false, on); err != nil {
		t.Fatal(err)
	}
	// Enabling keeps the mark: sessions from before the disable stay void.
	p.Disabled = false
	assertPerson(t, "after re-enabling", p, f.person("alice"))
	assertIs(t, "SetPersonDisabled(nobody)", f.s.SetPersonDisabled(f.ctx, "nobody", true,
		board.PersonEvent{Handle: "nobody", Type: board.PersonDisabled, Actor: "human:root", At: f.now()}), board.ErrNotFound)
	evs, err := f.s.ListPersonEvents(f.ctx, "alice", 10)
	if err != nil {
		t.Fatal(err)
	}
	assertPersonEvents(t, "alice's history", []board.PersonEvent{on, off}, evs)
	if evs, err := f.s.ListPersonEvents(f.ctx, "nobody", 10); err != nil || len(evs) != 0 {
		t.Fatalf("history of a refused disable = %v, %v; want none", evs, err)
	}
	if evs, err := f.s.ListPersonEvents(f.ctx, "alice", 1); err != nil || len(evs) != 1 || evs[0].Type != board.PersonEnabled {
		t.Fatalf("alice's newest event = %v, %v; want the enable alone", evs, err)
	}
}

func assertPersonEvents(t *testing.T, what string, want, got []board.PersonEvent) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d events %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i := range want {
		var d differ
		d.str("Handle", want[i].Handle, got[i].Handle)
		d.str("Type", string(want[i].Type), string(got[i].Type))
		d.str("Actor", want[i].Actor, got[i].Actor)
		d.time("At", want[i].At, got[i].At)
		d.report(t, fmt.Sprintf("%s[%d]", what, i))
	}
}

func testRaceCreatePerson(t *testing.T, f *fixture) {
	const n = 8
	var won, exists atomic.Int32
	now := f.now()
	Together(n, func(i int) {
		p := person("racer", board.RoleMember, now)
		p.Name = fmt.Sprintf("racer %d", i)
		switch err := f.s.CreatePerson(f.ctx, p, nil); {
		case err == nil:
			won.Add(1)
		case errors.Is(err, board.ErrExists):
			exists.Add(1)
		default:
			t.Errorf("CreatePerson %d: %v", i, err)
		}
	})
	if won.Load() != 1 || exists.Load() != n-1 {
		t.Fatalf("%d creates won and %d were told ErrExists, want 1 and %d", won.Load(), exists.Load(), n-1)
	}
}
