package storetest

import (
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// LookupCredential: a credential of each kind, with and without its person.

func credentialLookupTests() []contractTest {
	return []contractTest{
		{"LookupCredential reads each kind of credential, and its person when asked", testLookupCredential},
		{"LookupCredential of a missing credential is ErrNotFound; of a missing person, no person", testLookupCredentialMissing},
		{"LookupCredential reads the current state: revoked, disabled", testLookupCredentialState},
	}
}

// lookupFixture stores alice, a token and a session of hers, and an OAuth
// grant of hers with its tokens.
func lookupFixture(f *fixture) (board.APIToken, board.Session, board.OAuthRedemption) {
	f.t.Helper()
	f.createPerson(person("alice", board.RoleMember, f.now()), nil)
	tok := apiToken("0123456789abcdef", "alice", "claude", f.now())
	f.createToken(tok)
	ses := board.Session{IDHash: "lookup-session", Handle: "alice", CreatedAt: f.now(), ExpiresAt: f.now().Add(time.Hour)}
	if err := f.s.CreateSession(f.ctx, ses); err != nil {
		f.t.Fatalf("CreateSession: %v", err)
	}
	return tok, ses, f.grantWithTokens("00000000000000b1")
}

func testLookupCredential(t *testing.T, f *fixture) {
	tok, ses, grant := lookupFixture(f)
	alice := f.person("alice")
	access := grant.Tokens[0]
	for _, handle := range []string{"", "alice"} {
		got, err := f.s.LookupCredential(f.ctx, board.CredentialLookup{Kind: board.CredentialToken, ID: tok.ID, Handle: handle})
		if err != nil {
			t.Fatalf("token, handle %q: %v", handle, err)
		}
		assertToken(t, "the token", tok, got.Token)
		checkLookupPerson(t, "the token's", handle, alice, got.Person)

		got, err = f.s.LookupCredential(f.ctx, board.CredentialLookup{Kind: board.CredentialSession, ID: ses.IDHash, Handle: handle, Now: f.now()})
		if err != nil {
			t.Fatalf("session, handle %q: %v", handle, err)
		}
		if got.Session.Handle != "alice" || got.Session.IDHash != ses.IDHash || !got.Session.CreatedAt.Equal(ses.CreatedAt) || !got.Session.ExpiresAt.Equal(ses.ExpiresAt) {
			t.Errorf("the session = %+v, want %+v", got.Session, ses)
		}
		checkLookupPerson(t, "the session's", handle, alice, got.Person)

		got, err = f.s.LookupCredential(f.ctx, board.CredentialLookup{Kind: board.CredentialGrant, ID: grant.Grant.ID, OAuthHash: access.Hash, Handle: handle})
		if err != nil {
			t.Fatalf("OAuth token, handle %q: %v", handle, err)
		}
		assertOAuthToken(t, "the OAuth token", access, got.OAuthToken)
		assertOAuthGrant(t, "its grant", grant.Grant, got.Grant)
		checkLookupPerson(t, "the grant's", handle, alice, got.Person)
	}
}

func checkLookupPerson(t *testing.T, whose, handle string, want board.Person, got *board.Person) {
	t.Helper()
	switch {
	case handle == "" && got != nil:
		t.Errorf("%s person read though none was asked for: %+v", whose, *got)
	case handle != "" && got == nil:
		t.Errorf("%s person not read", whose)
	case got != nil:
		assertPerson(t, whose+" person", want, *got)
	}
}

func testLookupCredentialMissing(t *testing.T, f *fixture) {
	tok, ses, grant := lookupFixture(f)
	for what, l := range map[string]board.CredentialLookup{
		"an unknown token":              {Kind: board.CredentialToken, ID: "00000000000000ff", Handle: "alice"},
		"an unknown session":            {Kind: board.CredentialSession, ID: "no-such-session", Handle: "alice", Now: f.now()},
		"an expired session":            {Kind: board.CredentialSession, ID: ses.IDHash, Handle: "alice", Now: ses.ExpiresAt},
		"an unknown OAuth token":        {Kind: board.CredentialGrant, ID: grant.Grant.ID, OAuthHash: oauthHash("nothing"), Handle: "alice"},
		"an OAuth token of other grant": {Kind: board.CredentialGrant, ID: "00000000000000b2", OAuthHash: grant.Tokens[0].Hash, Handle: "alice"},
	} {
		_, err := f.s.LookupCredential(f.ctx, l)
		assertIs(t, what, err, board.ErrNotFound)
	}
	got, err := f.s.LookupCredential(f.ctx, board.CredentialLookup{Kind: board.CredentialToken, ID: tok.ID, Handle: "nobody"})
	if err != nil || got.Person != nil || got.Token.ID != tok.ID {
		t.Errorf("the token with a person who does not exist = %+v, %v; want the token and no person", got, err)
	}
}

func testLookupCredentialState(t *testing.T, f *fixture) {
	tok, _, grant := lookupFixture(f)
	if err := f.s.RevokeToken(f.ctx, tok.ID, f.now()); err != nil {
		t.Fatal(err)
	}
	if err := f.s.RevokeOAuthGrant(f.ctx, grant.Grant.ID, f.now()); err != nil {
		t.Fatal(err)
	}
	if err := f.s.SetPersonDisabled(f.ctx, "alice", true, board.PersonEvent{Handle: "alice", Type: board.PersonDisabled, Actor: "operator", At: f.now()}); err != nil {
		t.Fatal(err)
	}
	got, err := f.s.LookupCredential(f.ctx, board.CredentialLookup{Kind: board.CredentialToken, ID: tok.ID, Handle: "alice"})
	if err != nil || got.Token.RevokedAt == nil || got.Person == nil || !got.Person.Disabled {
		t.Errorf("after revoking and disabling: %+v, %v; want the revoked token and the disabled person", got, err)
	}
	got, err = f.s.LookupCredential(f.ctx, board.CredentialLookup{Kind: board.CredentialGrant, ID: grant.Grant.ID, OAuthHash: grant.Tokens[0].Hash, Handle: "alice"})
	if err != nil || got.Grant.RevokedAt == nil || got.Person == nil || !got.Person.Disabled {
		t.Errorf("after revoking the grant and disabling: %+v, %v; want the revoked grant and the disabled person", got, err)
	}
}
