package storetest

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The OAuth authorization server's records: clients, codes, grants and
// their tokens (oauth.Store).

func oauthTests() []contractTest {
	return []contractTest{
		{"a client reads back whole; a put replaces it", testOAuthClientRoundTrip},
		{"a client is not found once expired", testOAuthClientExpiry},
		{"a code reads back whole until it expires; a taken hash is ErrExists", testOAuthCodeRoundTrip},
		{"redeeming a code stores the grant and its tokens and uses the code up", testOAuthRedeem},
		{"a code redeemed twice at once: one wins, the other is ErrUsed and writes nothing", testOAuthRedeemRace},
		{"redeeming an expired code is ErrUsed; for a client that is gone ErrNotFound", testOAuthRedeemRefused},
		{"redeeming keeps the client for good", testOAuthRedeemKeepsClient},
		{"a token is found only with its own grant", testOAuthTokenLookup},
		{"a rotation uses the refresh token up, stores the next tokens, moves the grant's expiry", testOAuthRotate},
		{"a refresh token rotated twice at once: one wins, the other is ErrUsed", testOAuthRotateRace},
		{"a revoked grant's refresh token does not rotate", testOAuthRotateRevoked},
		{"grants are listed per person or all, unexpired, oldest first", testOAuthListGrants},
		{"a grant is revoked once; unknown is ErrNotFound", testOAuthRevokeGrant},
		{"a grant's use is recorded only when the last one is stale", testOAuthTouchGrant},
		{"registrations counted at once in one window: exactly the limit are ok; another window counts apart", testOAuthRegistrationWindow},
	}
}

func oauthClient(id string, now time.Time) board.OAuthClient {
	return board.OAuthClient{ID: id, Kind: board.OAuthClientRegistered, Name: "Claude \"Code\" <b> 日本", URI: "https://claude.example/about",
		RedirectURIs: []string{"http://localhost/callback", "https://claude.example/api/mcp/auth_callback?x=1&y=2"}, CreatedAt: now}
}

func assertOAuthClient(t *testing.T, what string, want, got board.OAuthClient) {
	t.Helper()
	var d differ
	d.str("ID", want.ID, got.ID)
	d.str("Kind", string(want.Kind), string(got.Kind))
	d.str("Name", want.Name, got.Name)
	d.str("URI", want.URI, got.URI)
	d.strs("RedirectURIs", want.RedirectURIs, got.RedirectURIs)
	d.time("CreatedAt", want.CreatedAt, got.CreatedAt)
	d.time("ExpiresAt", want.ExpiresAt, got.ExpiresAt)
	d.report(t, what)
}

// oauthHash is a stand-in for a SHA-256: 64 hex digits from a seed.
func oauthHash(seed string) string {
	h := fmt.Sprintf("%x", seed)
	for len(h) < 64 {
		h += "0"
	}
	return h[:64]
}

func oauthCode(f *fixture, grantID string) board.OAuthCode {
	now := f.now()
	return board.OAuthCode{Hash: oauthHash("code-" + grantID), ClientID: "tlc_client", ClientName: "Claude",
		RedirectURI: "https://claude.example/api/mcp/auth_callback", Challenge: strings.Repeat("c", 43),
		Resource: "https://board.example/mcp", Scope: "offline_access", Handle: "alice", Agent: "claude",
		GrantID: grantID, CreatedAt: now, ExpiresAt: now.Add(5 * time.Minute)}
}

func assertOAuthCode(t *testing.T, what string, want, got board.OAuthCode) {
	t.Helper()
	var d differ
	d.str("Hash", want.Hash, got.Hash)
	d.str("ClientID", want.ClientID, got.ClientID)
	d.str("ClientName", want.ClientName, got.ClientName)
	d.str("RedirectURI", want.RedirectURI, got.RedirectURI)
	d.str("Challenge", want.Challenge, got.Challenge)
	d.str("Resource", want.Resource, got.Resource)
	d.str("Scope", want.Scope, got.Scope)
	d.str("Handle", want.Handle, got.Handle)
	d.str("Agent", want.Agent, got.Agent)
	d.str("GrantID", want.GrantID, got.GrantID)
	d.time("CreatedAt", want.CreatedAt, got.CreatedAt)
	d.time("ExpiresAt", want.ExpiresAt, got.ExpiresAt)
	d.timePtr("UsedAt", want.UsedAt, got.UsedAt)
	d.report(t, what)
}

func assertOAuthGrant(t *testing.T, what string, want, got board.OAuthGrant) {
	t.Helper()
	var d differ
	d.str("ID", want.ID, got.ID)
	d.str("ClientID", want.ClientID, got.ClientID)
	d.str("ClientName", want.ClientName, got.ClientName)
	d.str("Handle", want.Handle, got.Handle)
	d.str("Agent", want.Agent, got.Agent)
	d.str("Resource", want.Resource, got.Resource)
	d.str("Scope", want.Scope, got.Scope)
	d.time("CreatedAt", want.CreatedAt, got.CreatedAt)
	d.time("ExpiresAt", want.ExpiresAt, got.ExpiresAt)
	d.timePtr("LastUsedAt", want.LastUsedAt, got.LastUsedAt)
	d.timePtr("RevokedAt", want.RevokedAt, got.RevokedAt)
	d.report(t, what)
}

func assertOAuthToken(t *testing.T, what string, want, got board.OAuthToken) {
	t.Helper()
	var d differ
	d.str("Hash", want.Hash, got.Hash)
	d.str("GrantID", want.GrantID, got.GrantID)
	d.str("Kind", string(want.Kind), string(got.Kind))
	d.time("CreatedAt", want.CreatedAt, got.CreatedAt)
	d.time("ExpiresAt", want.ExpiresAt, got.ExpiresAt)
	d.timePtr("UsedAt", want.UsedAt, got.UsedAt)
	d.report(t, what)
}

// redemption is the grant a code makes, with one access and one refresh token.
func redemption(code board.OAuthCode, now time.Time) board.OAuthRedemption {
	g := board.OAuthGrant{ID: code.GrantID, ClientID: code.ClientID, ClientName: code.ClientName, Handle: code.Handle,
		Agent: code.Agent, Resource: code.Resource, Scope: code.Scope, CreatedAt: now, ExpiresAt: now.Add(30 * 24 * time.Hour)}
	return board.OAuthRedemption{CodeHash: code.Hash, Grant: g, Now: now, Tokens: []board.OAuthToken{
		{Hash: oauthHash("access-" + g.ID), GrantID: g.ID, Kind: board.OAuthAccess, CreatedAt: now, ExpiresAt: now.Add(time.Hour)},
		{Hash: oauthHash("refresh-" + g.ID), GrantID: g.ID, Kind: board.OAuthRefresh, CreatedAt: now, ExpiresAt: g.ExpiresAt},
	}}
}

// grantWithTokens stores a code for alice and redeems it.
func (f *fixture) grantWithTokens(grantID string) board.OAuthRedemption {
	f.t.Helper()
	code := oauthCode(f, grantID)
	if err := f.s.CreateOAuthCode(f.ctx, code); err != nil {
		f.t.Fatalf("CreateOAuthCode: %v", err)
	}
	r := redemption(code, f.now())
	if err := f.s.RedeemOAuthCode(f.ctx, r); err != nil {
		f.t.Fatalf("RedeemOAuthCode: %v", err)
	}
	return r
}

func (f *fixture) oauthGrant(id string) board.OAuthGrant {
	f.t.Helper()
	g, err := f.s.GetOAuthGrant(f.ctx, id)
	if err != nil {
		f.t.Fatalf("GetOAuthGrant(%s): %v", id, err)
	}
	return g
}

func (f *fixture) oauthToken(grantID, hash string) (board.OAuthToken, board.OAuthGrant) {
	f.t.Helper()
	tok, g, err := f.s.GetOAuthToken(f.ctx, grantID, hash)
	if err != nil {
		f.t.Fatalf("GetOAuthToken(%s, %s…): %v", grantID, hash[:8], err)
	}
	return tok, g
}

func testOAuthClientRoundTrip(t *testing.T, f *fixture) {
	c := oauthClient("tlc_0123456789abcdef0123456789abcdef", f.now())
	if err := f.s.PutOAuthClient(f.ctx, c); err != nil {
		t.Fatal(err)
	}
	doc := board.OAuthClient{ID: "https://claude.example/oauth/client-metadata.json?v=1", Kind: board.OAuthClientMetadataDocument,
		Name: "Claude", RedirectURIs: []string{"https://claude.example/cb"}, CreatedAt: f.now()}
	doc.ExpiresAt = doc.CreatedAt.Add(time.Hour)
	if err := f.s.PutOAuthClient(f.ctx, doc); err != nil {
		t.Fatal(err)
	}
	now := f.now()
	for _, want := range []board.OAuthClient{c, doc} {
		got, err := f.s.GetOAuthClient(f.ctx, want.ID, now)
		if err != nil {
			t.Fatalf("GetOAuthClient(%s): %v", want.ID, err)
		}
		assertOAuthClient(t, "GetOAuthClient("+want.ID+")", want, got)
	}
	// A fresh copy of the document replaces the cached one.
	doc.Name, doc.RedirectURIs, doc.ExpiresAt = "Claude 2", []string{"https://claude.example/cb2"}, now.Add(2*time.Hour)
	if err := f.s.PutOAuthClient(f.ctx, doc); err != nil {
		t.Fatal(err)
	}
	got, err := f.s.GetOAuthClient(f.ctx, doc.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	assertOAuthClient(t, "after the put that replaced it", doc, got)
	_, err = f.s.GetOAuthClient(f.ctx, "tlc_unknown", now)
	assertIs(t, "GetOAuthClient(unknown)", err, board.ErrNotFound)
}

func testOAuthClientExpiry(t *testing.T, f *fixture) {
	c := oauthClient("tlc_expiring", f.now())
	c.ExpiresAt = c.CreatedAt.Add(24 * time.Hour)
	if err := f.s.PutOAuthClient(f.ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.GetOAuthClient(f.ctx, c.ID, c.ExpiresAt.Add(-time.Millisecond)); err != nil {
		t.Fatalf("a millisecond before it expires: %v", err)
	}
	_, err := f.s.GetOAuthClient(f.ctx, c.ID, c.ExpiresAt)
	assertIs(t, "GetOAuthClient at its expiry", err, board.ErrNotFound)
}

func testOAuthCodeRoundTrip(t *testing.T, f *fixture) {
	code := oauthCode(f, "00000000000000a1")
	if err := f.s.CreateOAuthCode(f.ctx, code); err != nil {
		t.Fatal(err)
	}
	got, err := f.s.GetOAuthCode(f.ctx, code.Hash, code.CreatedAt)
	if err != nil {
		t.Fatal(err)
	}
	assertOAuthCode(t, "GetOAuthCode", code, got)
	again := code
	again.ClientID = "tlc_other"
	assertIs(t, "CreateOAuthCode of a taken hash", f.s.CreateOAuthCode(f.ctx, again), board.ErrExists)
	got, _ = f.s.GetOAuthCode(f.ctx, code.Hash, code.CreatedAt)
	assertOAuthCode(t, "after the refused create", code, got)
	_, err = f.s.GetOAuthCode(f.ctx, code.Hash, code.ExpiresAt)
	assertIs(t, "GetOAuthCode at its expiry", err, board.ErrNotFound)
	_, err = f.s.GetOAuthCode(f.ctx, oauthHash("unknown"), code.CreatedAt)
	assertIs(t, "GetOAuthCode(unknown)", err, board.ErrNotFound)
}

func testOAuthRedeem(t *testing.T, f *fixture) {
	r := f.grantWithTokens("00000000000000a1")
	code, err := f.s.GetOAuthCode(f.ctx, r.CodeHash, r.Now)
	if err != nil {
		t.Fatal(err)
	}
	if code.UsedAt == nil || !code.UsedAt.Equal(r.Now) {
		t.Fatalf("the code's UsedAt = %v after redeeming, want %v", code.UsedAt, r.Now)
	}
	assertOAuthGrant(t, "GetOAuthGrant", r.Grant, f.oauthGrant(r.Grant.ID))
	for _, want := range r.Tokens {
		tok, g := f.oauthToken(r.Grant.ID, want.Hash)
		assertOAuthToken(t, "GetOAuthToken("+string(want.Kind)+")", want, tok)
		assertOAuthGrant(t, "GetOAuthToken's grant", r.Grant, g)
	}
	// Used up: a second redemption (another grant) is refused and writes nothing.
	second := redemption(oauthCode(f, "00000000000000a2"), f.now())
	second.CodeHash = r.CodeHash
	assertIs(t, "redeeming the code again", f.s.RedeemOAuthCode(f.ctx, second), board.ErrUsed)
	_, err = f.s.GetOAuthGrant(f.ctx, second.Grant.ID)
	assertIs(t, "the second redemption's grant", err, board.ErrNotFound)
	_, _, err = f.s.GetOAuthToken(f.ctx, second.Grant.ID, second.Tokens[0].Hash)
	assertIs(t, "the second redemption's token", err, board.ErrNotFound)
}

func testOAuthRedeemRace(t *testing.T, f *fixture) {
	code := oauthCode(f, "00000000000000a0")
	if err := f.s.CreateOAuthCode(f.ctx, code); err != nil {
		t.Fatal(err)
	}
	const n = 6
	var won atomic.Int32
	ids := make([]string, n)
	Together(n, func(i int) {
		c := code
		c.GrantID = fmt.Sprintf("00000000000000b%d", i)
		ids[i] = c.GrantID
		err := f.s.RedeemOAuthCode(f.ctx, redemption(c, code.CreatedAt.Add(time.Second)))
		switch {
		case err == nil:
			won.Add(1)
		case !errors.Is(err, board.ErrUsed):
			t.Errorf("redemption %d: %v, want nil or ErrUsed", i, err)
		}
	})
	if won.Load() != 1 {
		t.Fatalf("%d redemptions succeeded, want exactly 1", won.Load())
	}
	grants := 0
	for _, id := range ids {
		if _, err := f.s.GetOAuthGrant(f.ctx, id); err == nil {
			grants++
		}
	}
	if grants != 1 {
		t.Fatalf("%d grants stored, want 1", grants)
	}
}

func testOAuthRedeemRefused(t *testing.T, f *fixture) {
	code := oauthCode(f, "00000000000000a1")
	if err := f.s.CreateOAuthCode(f.ctx, code); err != nil {
		t.Fatal(err)
	}
	assertIs(t, "redeeming at its expiry", f.s.RedeemOAuthCode(f.ctx, redemption(code, code.ExpiresAt)), board.ErrUsed)
	assertIs(t, "redeeming an unknown code", f.s.RedeemOAuthCode(f.ctx, redemption(oauthCode(f, "00000000000000a9"), code.CreatedAt)), board.ErrUsed)
	r := redemption(code, code.CreatedAt.Add(time.Second))
	r.KeepClient = "tlc_gone"
	assertIs(t, "redeeming for a client that is gone", f.s.RedeemOAuthCode(f.ctx, r), board.ErrNotFound)
	for _, id := range []string{"00000000000000a1", "00000000000000a9"} {
		if _, err := f.s.GetOAuthGrant(f.ctx, id); !errors.Is(err, board.ErrNotFound) {
			t.Fatalf("grant %s after refused redemptions: %v, want ErrNotFound", id, err)
		}
	}
	got, err := f.s.GetOAuthCode(f.ctx, code.Hash, code.CreatedAt)
	if err != nil || got.UsedAt != nil {
		t.Fatalf("the code after refused redemptions: %+v %v, want it unused", got, err)
	}
	if err := f.s.RedeemOAuthCode(f.ctx, redemption(code, code.CreatedAt.Add(time.Second))); err != nil {
		t.Fatalf("redeeming after the refusals: %v", err)
	}
}

func testOAuthRedeemKeepsClient(t *testing.T, f *fixture) {
	c := oauthClient("tlc_client", f.now())
	c.ExpiresAt = c.CreatedAt.Add(24 * time.Hour)
	if err := f.s.PutOAuthClient(f.ctx, c); err != nil {
		t.Fatal(err)
	}
	code := oauthCode(f, "00000000000000a1")
	if err := f.s.CreateOAuthCode(f.ctx, code); err != nil {
		t.Fatal(err)
	}
	r := redemption(code, f.now())
	r.KeepClient = c.ID
	if err := f.s.RedeemOAuthCode(f.ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := f.s.GetOAuthClient(f.ctx, c.ID, c.ExpiresAt.Add(365*24*time.Hour))
	if err != nil {
		t.Fatalf("the client a year after it would have expired: %v", err)
	}
	c.ExpiresAt = time.Time{}
	assertOAuthClient(t, "the kept client", c, got)
}

func testOAuthTokenLookup(t *testing.T, f *fixture) {
	a := f.grantWithTokens("00000000000000a1")
	b := f.grantWithTokens("00000000000000a2")
	_, _, err := f.s.GetOAuthToken(f.ctx, b.Grant.ID, a.Tokens[0].Hash)
	assertIs(t, "a's token under b's grant", err, board.ErrNotFound)
	_, _, err = f.s.GetOAuthToken(f.ctx, "00000000000000ff", a.Tokens[0].Hash)
	assertIs(t, "a's token under an unknown grant", err, board.ErrNotFound)
	_, _, err = f.s.GetOAuthToken(f.ctx, a.Grant.ID, oauthHash("unknown"))
	assertIs(t, "an unknown token", err, board.ErrNotFound)
}

func testOAuthRotate(t *testing.T, f *fixture) {
	r := f.grantWithTokens("00000000000000a1")
	refresh := r.Tokens[1]
	now := f.now()
	next := []board.OAuthToken{
		{Hash: oauthHash("access-2"), GrantID: r.Grant.ID, Kind: board.OAuthAccess, CreatedAt: now, ExpiresAt: now.Add(time.Hour)},
		{Hash: oauthHash("refresh-2"), GrantID: r.Grant.ID, Kind: board.OAuthRefresh, CreatedAt: now, ExpiresAt: now.Add(30 * 24 * time.Hour)},
	}
	rot := board.OAuthRotation{GrantID: r.Grant.ID, UsedHash: refresh.Hash, Next: next, GrantExpiresAt: next[1].ExpiresAt, Now: now}
	if err := f.s.RotateOAuthRefresh(f.ctx, rot); err != nil {
		t.Fatal(err)
	}
	used, g := f.oauthToken(r.Grant.ID, refresh.Hash)
	refresh.UsedAt = &now
	assertOAuthToken(t, "the used refresh token", refresh, used)
	want := r.Grant
	want.ExpiresAt = next[1].ExpiresAt
	assertOAuthGrant(t, "the grant after the rotation", want, g)
	for _, n := range next {
		tok, _ := f.oauthToken(r.Grant.ID, n.Hash)
		assertOAuthToken(t, "the next "+string(n.Kind)+" token", n, tok)
	}
	// The used token again: refused, nothing written.
	again := rot
	again.Next = []board.OAuthToken{{Hash: oauthHash("access-3"), GrantID: r.Grant.ID, Kind: board.OAuthAccess, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}}
	assertIs(t, "rotating the used token again", f.s.RotateOAuthRefresh(f.ctx, again), board.ErrUsed)
	_, _, err := f.s.GetOAuthToken(f.ctx, r.Grant.ID, oauthHash("access-3"))
	assertIs(t, "the refused rotation's token", err, board.ErrNotFound)
}

func testOAuthRotateRace(t *testing.T, f *fixture) {
	r := f.grantWithTokens("00000000000000a1")
	now := f.now()
	const n = 6
	var won atomic.Int32
	Together(n, func(i int) {
		tok := board.OAuthToken{Hash: oauthHash(fmt.Sprintf("next-%d", i)), GrantID: r.Grant.ID, Kind: board.OAuthRefresh,
			CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		err := f.s.RotateOAuthRefresh(f.ctx, board.OAuthRotation{GrantID: r.Grant.ID, UsedHash: r.Tokens[1].Hash,
			Next: []board.OAuthToken{tok}, GrantExpiresAt: tok.ExpiresAt, Now: now})
		switch {
		case err == nil:
			won.Add(1)
		case !errors.Is(err, board.ErrUsed):
			t.Errorf("rotation %d: %v, want nil or ErrUsed", i, err)
		}
	})
	if won.Load() != 1 {
		t.Fatalf("%d rotations succeeded, want exactly 1", won.Load())
	}
	stored := 0
	for i := range n {
		if _, _, err := f.s.GetOAuthToken(f.ctx, r.Grant.ID, oauthHash(fmt.Sprintf("next-%d", i))); err == nil {
			stored++
		}
	}
	if stored != 1 {
		t.Fatalf("%d next tokens stored, want 1", stored)
	}
}

func testOAuthRotateRevoked(t *testing.T, f *fixture) {
	r := f.grantWithTokens("00000000000000a1")
	if err := f.s.RevokeOAuthGrant(f.ctx, r.Grant.ID, f.now()); err != nil {
		t.Fatal(err)
	}
	now := f.now()
	next := board.OAuthToken{Hash: oauthHash("next"), GrantID: r.Grant.ID, Kind: board.OAuthAccess, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	err := f.s.RotateOAuthRefresh(f.ctx, board.OAuthRotation{GrantID: r.Grant.ID, UsedHash: r.Tokens[1].Hash,
		Next: []board.OAuthToken{next}, GrantExpiresAt: now.Add(time.Hour), Now: now})
	assertIs(t, "rotating a revoked grant's token", err, board.ErrUsed)
	tok, _ := f.oauthToken(r.Grant.ID, r.Tokens[1].Hash)
	if tok.UsedAt != nil {
		t.Fatal("the refused rotation marked the token used")
	}
}

func testOAuthListGrants(t *testing.T, f *fixture) {
	mk := func(id, handle string, created time.Time, expires time.Time) board.OAuthGrant {
		code := oauthCode(f, id)
		code.Handle = handle
		if err := f.s.CreateOAuthCode(f.ctx, code); err != nil {
			t.Fatal(err)
		}
		r := redemption(code, created)
		r.Grant.ExpiresAt = expires
		if err := f.s.RedeemOAuthCode(f.ctx, r); err != nil {
			t.Fatal(err)
		}
		return r.Grant
	}
	base := f.now()
	far := base.Add(30 * 24 * time.Hour)
	// Ids out of time order: the order must come from created_at.
	a1 := mk("ff00000000000001", "alice", base.Add(1*time.Second), far)
	b1 := mk("0000000000000002", "bob", base.Add(2*time.Second), far)
	a2 := mk("7700000000000003", "alice", base.Add(3*time.Second), far)
	expired := mk("0000000000000004", "alice", base.Add(4*time.Second), base.Add(time.Minute))
	_ = expired
	revokedAt := base.Add(5 * time.Second)
	if err := f.s.RevokeOAuthGrant(f.ctx, a2.ID, revokedAt); err != nil {
		t.Fatal(err)
	}
	a2.RevokedAt = &revokedAt
	now := base.Add(time.Hour) // the expired grant is past its expiry
	for _, c := range []struct {
		handle string
		want   []board.OAuthGrant
	}{{"", []board.OAuthGrant{a1, b1, a2}}, {"alice", []board.OAuthGrant{a1, a2}}, {"bob", []board.OAuthGrant{b1}}, {"carol", nil}} {
		got, err := f.s.ListOAuthGrants(f.ctx, c.handle, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) {
			t.Fatalf("ListOAuthGrants(%q) = %d grants, want %d", c.handle, len(got), len(c.want))
		}
		for i := range got {
			assertOAuthGrant(t, fmt.Sprintf("ListOAuthGrants(%q)[%d]", c.handle, i), c.want[i], got[i])
		}
	}
}

func testOAuthRevokeGrant(t *testing.T, f *fixture) {
	r := f.grantWithTokens("00000000000000a1")
	first := f.now()
	if err := f.s.RevokeOAuthGrant(f.ctx, r.Grant.ID, first); err != nil {
		t.Fatal(err)
	}
	if err := f.s.RevokeOAuthGrant(f.ctx, r.Grant.ID, f.now()); err != nil {
		t.Fatalf("revoking again: %v", err)
	}
	want := r.Grant
	want.RevokedAt = &first
	assertOAuthGrant(t, "after revoking twice (the first time stays)", want, f.oauthGrant(r.Grant.ID))
	_, g := f.oauthToken(r.Grant.ID, r.Tokens[0].Hash)
	assertOAuthGrant(t, "the grant read with its token", want, g)
	assertIs(t, "RevokeOAuthGrant(unknown)", f.s.RevokeOAuthGrant(f.ctx, "00000000000000ff", f.now()), board.ErrNotFound)
}

func testOAuthTouchGrant(t *testing.T, f *fixture) {
	r := f.grantWithTokens("00000000000000a1")
	want := r.Grant
	used := f.now()
	if err := f.s.TouchOAuthGrant(f.ctx, want.ID, used, used.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	want.LastUsedAt = &used
	assertOAuthGrant(t, "after the first use", want, f.oauthGrant(want.ID))
	soon := used.Add(30 * time.Second)
	if err := f.s.TouchOAuthGrant(f.ctx, want.ID, soon, soon.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	assertOAuthGrant(t, "after a use within the minute", want, f.oauthGrant(want.ID))
	later := used.Add(time.Minute)
	if err := f.s.TouchOAuthGrant(f.ctx, want.ID, later, later.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	want.LastUsedAt = &later
	assertOAuthGrant(t, "after a use a minute later", want, f.oauthGrant(want.ID))
	if err := f.s.TouchOAuthGrant(f.ctx, "00000000000000ff", later, later); err != nil {
		t.Fatalf("TouchOAuthGrant(unknown) = %v, want no error", err)
	}
	if _, err := f.s.GetOAuthGrant(f.ctx, "00000000000000ff"); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("TouchOAuthGrant of an unknown grant created it (%v)", err)
	}
}

func testOAuthRegistrationWindow(t *testing.T, f *fixture) {
	window := f.now().Truncate(time.Minute)
	keep := window.Add(time.Hour)
	const limit, callers = 7, 20
	var ok atomic.Int32
	Together(callers, func(i int) {
		counted, err := f.s.CountOAuthRegistration(f.ctx, window, keep, limit)
		if err != nil {
			t.Errorf("count %d: %v", i, err)
		}
		if counted {
			ok.Add(1)
		}
	})
	if ok.Load() != limit {
		t.Fatalf("%d of %d concurrent counts were ok with a limit of %d", ok.Load(), callers, limit)
	}
	if counted, err := f.s.CountOAuthRegistration(f.ctx, window, keep, limit); err != nil || counted {
		t.Fatalf("a count in a full window: ok %v, %v; want refused", counted, err)
	}
	next := window.Add(time.Minute)
	if counted, err := f.s.CountOAuthRegistration(f.ctx, next, next.Add(time.Hour), limit); err != nil || !counted {
		t.Fatalf("the first count of the next window: ok %v, %v; want counted", counted, err)
	}
	if counted, err := f.s.CountOAuthRegistration(f.ctx, next, next.Add(time.Hour), 0); err != nil || counted {
		t.Fatalf("a limit of 0: ok %v, %v; want refused", counted, err)
	}
}
