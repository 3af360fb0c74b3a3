package storetest

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// API tokens: CreateToken, GetToken, ListTokens, RevokeToken, TouchToken.

func tokenTests() []contractTest {
	return []contractTest{
		{"a created token reads back whole", testTokenRoundTrip},
		{"CreateToken for an unknown person is ErrNotFound and stores nothing", testTokenUnknownPerson},
		{"CreateToken of a taken id is ErrExists and changes nothing", testTokenExists},
		{"ListTokens lists a person's tokens or everyone's, oldest first", testListTokens},
		{"RevokeToken sets revoked_at once; unknown is ErrNotFound", testRevokeToken},
		{"TouchToken records a use only when the last one is stale", testTouchToken},
		{"concurrent touches never undo a revocation", testTouchRevokeRace},
	}
}

func apiToken(id, handle, agent string, created time.Time) board.APIToken {
	return board.APIToken{ID: id, Hash: strings.Repeat(id, 4), Handle: handle, Agent: agent,
		Label: "label of " + id, CreatedBy: "human:" + handle, CreatedAt: created}
}

func assertToken(t *testing.T, what string, want, got board.APIToken) {
	t.Helper()
	var d differ
	d.str("ID", want.ID, got.ID)
	d.str("Hash", want.Hash, got.Hash)
	d.str("Handle", want.Handle, got.Handle)
	d.str("Agent", want.Agent, got.Agent)
	d.str("Label", want.Label, got.Label)
	d.str("CreatedBy", want.CreatedBy, got.CreatedBy)
	d.time("CreatedAt", want.CreatedAt, got.CreatedAt)
	d.timePtr("LastUsedAt", want.LastUsedAt, got.LastUsedAt)
	d.timePtr("RevokedAt", want.RevokedAt, got.RevokedAt)
	d.report(t, what)
}

func (f *fixture) createToken(tok board.APIToken) {
	f.t.Helper()
	if err := f.s.CreateToken(f.ctx, tok); err != nil {
		f.t.Fatalf("CreateToken(%s): %v", tok.ID, err)
	}
}

func (f *fixture) token(id string) board.APIToken {
	f.t.Helper()
	tok, err := f.s.GetToken(f.ctx, id)
	if err != nil {
		f.t.Fatalf("GetToken(%s): %v", id, err)
	}
	return tok
}

func testTokenRoundTrip(t *testing.T, f *fixture) {
	f.createPerson(person("alice", board.RoleMember, f.now()), nil)
	mine := apiToken("0123456789abcdef", "alice", "", f.now())
	agent := apiToken("fedcba9876543210", "alice", "claude", f.now())
	agent.Label = "Claude Code on the laptop \"work\" <b> 日本"
	agent.CreatedBy = "operator"
	f.createToken(mine)
	f.createToken(agent)
	assertToken(t, "GetToken(mine)", mine, f.token(mine.ID))
	assertToken(t, "GetToken(agent)", agent, f.token(agent.ID))
	_, err := f.s.GetToken(f.ctx, "0000000000000000")
	assertIs(t, "GetToken(unknown)", err, board.ErrNotFound)
}

func testTokenUnknownPerson(t *testing.T, f *fixture) {
	assertIs(t, "CreateToken(nobody)", f.s.CreateToken(f.ctx, apiToken("00000000000000aa", "nobody", "", f.now())), board.ErrNotFound)
	_, err := f.s.GetToken(f.ctx, "00000000000000aa")
	assertIs(t, "GetToken after the refused create", err, board.ErrNotFound)
	if all, err := f.s.ListTokens(f.ctx, ""); err != nil || len(all) != 0 {
		t.Fatalf("ListTokens after the refused create = %v, %v; want none", all, err)
	}
}

func testTokenExists(t *testing.T, f *fixture) {
	f.createPerson(person("alice", board.RoleMember, f.now()), nil)
	f.createPerson(person("bob", board.RoleMember, f.now()), nil)
	first := apiToken("00000000000000aa", "alice", "", f.now())
	f.createToken(first)
	second := apiToken("00000000000000aa", "bob", "claude", f.now())
	second.Hash = fmt.Sprintf("%064d", 1)
	assertIs(t, "CreateToken of a taken id", f.s.CreateToken(f.ctx, second), board.ErrExists)
	assertToken(t, "GetToken after the refused create", first, f.token(first.ID))
}

func testListTokens(t *testing.T, f *fixture) {
	if none, err := f.s.ListTokens(f.ctx, ""); err != nil || len(none) != 0 {
		t.Fatalf("ListTokens on a fresh store = %v, %v; want none", none, err)
	}
	f.createPerson(person("alice", board.RoleMember, f.now()), nil)
	f.createPerson(person("bob", board.RoleMember, f.now()), nil)
	// Ids out of time order, so the order must come from created_at.
	a1 := apiToken("ff00000000000001", "alice", "", f.now())
	b1 := apiToken("0000000000000002", "bob", "claude", f.now())
	a2 := apiToken("7700000000000003", "alice", "claude", f.now())
	for _, tok := range []board.APIToken{a2, b1, a1} {
		f.createToken(tok)
	}
	if err := f.s.RevokeToken(f.ctx, a1.ID, f.now()); err != nil {
		t.Fatal(err)
	}
	revoked := f.token(a1.ID)
	for _, c := range []struct {
		handle string
		want   []board.APIToken
	}{{"", []board.APIToken{revoked, b1, a2}}, {"alice", []board.APIToken{revoked, a2}}, {"bob", []board.APIToken{b1}}, {"carol", nil}} {
		got, err := f.s.ListTokens(f.ctx, c.handle)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) {
			t.Fatalf("ListTokens(%q) = %d tokens, want %d", c.handle, len(got), len(c.want))
		}
		for i := range got {
			assertToken(t, fmt.Sprintf("ListTokens(%q)[%d]", c.handle, i), c.want[i], got[i])
		}
	}
}

func testRevokeToken(t *testing.T, f *fixture) {
	f.createPerson(person("alice", board.RoleMember, f.now()), nil)
	tok := apiToken("00000000000000aa", "alice", "claude", f.now())
	f.createToken(tok)
	first := f.now()
	if err := f.s.RevokeToken(f.ctx, tok.ID, first); err != nil {
		t.Fatal(err)
	}
	tok.RevokedAt = &first
	assertToken(t, "after revoking", tok, f.token(tok.ID))
	if err := f.s.RevokeToken(f.ctx, tok.ID, f.now()); err != nil {
		t.Fatalf("revoking again: %v", err)
	}
	assertToken(t, "after revoking again (the first time stays)", tok, f.token(tok.ID))
	assertIs(t, "RevokeToken(unknown)", f.s.RevokeToken(f.ctx, "0000000000000000", f.now()), board.ErrNotFound)
}

func testTouchToken(t *testing.T, f *fixture) {
	f.createPerson(person("alice", board.RoleMember, f.now()), nil)
	tok := apiToken("00000000000000aa", "alice", "", f.now())
	f.createToken(tok)
	used := f.now()
	if err := f.s.TouchToken(f.ctx, tok.ID, used, used.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	tok.LastUsedAt = &used
	assertToken(t, "after the first use", tok, f.token(tok.ID))
	// Another use within the minute: the recorded one is not stale.
	soon := used.Add(30 * time.Second)
	if err := f.s.TouchToken(f.ctx, tok.ID, soon, soon.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	assertToken(t, "after a use within the minute", tok, f.token(tok.ID))
	// At exactly a minute the recorded use is stale.
	later := used.Add(time.Minute)
	if err := f.s.TouchToken(f.ctx, tok.ID, later, later.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	tok.LastUsedAt = &later
	assertToken(t, "after a use a minute later", tok, f.token(tok.ID))
	if err := f.s.TouchToken(f.ctx, "0000000000000000", later, later); err != nil {
		t.Fatalf("TouchToken(unknown) = %v, want no error", err)
	}
	if _, err := f.s.GetToken(f.ctx, "0000000000000000"); err == nil {
		t.Fatal("TouchToken of an unknown token created it")
	}
}

func testTouchRevokeRace(t *testing.T, f *fixture) {
	f.createPerson(person("alice", board.RoleMember, f.now()), nil)
	tok := apiToken("00000000000000aa", "alice", "claude", f.now())
	f.createToken(tok)
	base := f.now()
	revokedAt := base.Add(time.Millisecond)
	var failures atomic.Int32
	const n = 8
	Together(n+1, func(i int) {
		var err error
		if i == n {
			err = f.s.RevokeToken(f.ctx, tok.ID, revokedAt)
		} else {
			at := base.Add(time.Duration(i+2) * time.Minute)
			err = f.s.TouchToken(f.ctx, tok.ID, at, at.Add(-time.Minute))
		}
		if err != nil {
			failures.Add(1)
			t.Errorf("call %d: %v", i, err)
		}
	})
	got := f.token(tok.ID)
	if got.RevokedAt == nil || !got.RevokedAt.Equal(revokedAt) {
		t.Fatalf("RevokedAt = %v after concurrent touches, want %v", got.RevokedAt, revokedAt)
	}
	if got.LastUsedAt == nil {
		t.Fatal("no touch was recorded")
	}
}
