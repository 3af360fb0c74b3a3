package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The store's part in moving connected agents (boardfile.OAuthTransferStore), in
// RunTransfer: puts write only what is absent and need the parent, a
// moved grant and its tokens work as the authorization server uses them,
// and the exports stream what can still be used.

// transferredGrant is a grant as a file carries it, used and not yet revoked.
func transferredGrant(id string, now time.Time) board.OAuthGrant {
	used := now.Add(-time.Minute)
	return board.OAuthGrant{ID: id, ClientID: "tlc_" + strings.Repeat("ab", 16), ClientName: "Claude", Handle: "alice", Agent: "claude",
		Resource: "https://board.example/mcp", Scope: "offline_access", CreatedAt: now.Add(-time.Hour), ExpiresAt: now.Add(30 * 24 * time.Hour),
		LastUsedAt: &used}
}

func moveOAuthGrantAndTokens(t *testing.T, f *fixture) {
	m := f.s
	now := f.now()
	g := transferredGrant("00000000000000b1", now)
	_, err := m.PutOAuthGrant(f.ctx, g)
	assertIs(t, "a grant whose person is missing", err, board.ErrNotFound)
	if _, err := f.s.GetOAuthGrant(f.ctx, g.ID); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("the refused grant was stored: %v", err)
	}
	f.createPerson(person("alice", board.RoleMember, now), nil)
	out, err := m.PutOAuthGrant(f.ctx, g)
	wantPut(t, "new grant", out, err, board.Added)
	assertOAuthGrant(t, "the moved grant", g, f.oauthGrant(g.ID))

	used := now.Add(-30 * time.Minute)
	tokens := []board.OAuthToken{
		{Hash: oauthHash("moved-access"), GrantID: g.ID, Kind: board.OAuthAccess, CreatedAt: used, ExpiresAt: used.Add(time.Hour)},
		{Hash: oauthHash("moved-old-refresh"), GrantID: g.ID, Kind: board.OAuthRefresh, CreatedAt: g.CreatedAt, ExpiresAt: g.ExpiresAt, UsedAt: &used},
		{Hash: oauthHash("moved-refresh"), GrantID: g.ID, Kind: board.OAuthRefresh, CreatedAt: used, ExpiresAt: g.ExpiresAt},
	}
	orphan := tokens[0]
	orphan.Hash, orphan.GrantID = oauthHash("orphan"), "00000000000000b2"
	_, err = m.PutOAuthToken(f.ctx, orphan)
	assertIs(t, "a token whose grant is missing", err, board.ErrNotFound)
	for _, tok := range tokens {
		out, err := m.PutOAuthToken(f.ctx, tok)
		wantPut(t, "new "+string(tok.Kind)+" token", out, err, board.Added)
		got, _ := f.oauthToken(g.ID, tok.Hash)
		assertOAuthToken(t, "the moved token", tok, got)
	}

	// The moved used refresh token is a reuse; the unused one rotates.
	next := []board.OAuthToken{{Hash: oauthHash("after-move"), GrantID: g.ID, Kind: board.OAuthRefresh, CreatedAt: now, ExpiresAt: now.Add(30 * 24 * time.Hour)}}
	assertIs(t, "rotating the moved used refresh token", f.s.RotateOAuthRefresh(f.ctx,
		board.OAuthRotation{GrantID: g.ID, UsedHash: tokens[1].Hash, Next: next, GrantExpiresAt: next[0].ExpiresAt, Now: now}), board.ErrUsed)
	if err := f.s.RotateOAuthRefresh(f.ctx, board.OAuthRotation{GrantID: g.ID, UsedHash: tokens[2].Hash, Next: next,
		GrantExpiresAt: next[0].ExpiresAt, Now: now}); err != nil {
		t.Fatalf("rotating the moved refresh token: %v", err)
	}

	// Again, after the target used them: the same grant and tokens.
	out, err = m.PutOAuthGrant(f.ctx, g)
	wantPut(t, "the same grant again, used since", out, err, board.AlreadyThere)
	out, err = m.PutOAuthToken(f.ctx, tokens[2])
	wantPut(t, "the same token again, used since", out, err, board.AlreadyThere)
	other := g
	other.Agent = "other"
	out, err = m.PutOAuthGrant(f.ctx, other)
	wantPut(t, "another grant under the id", out, err, board.Collision)
	otherTok := tokens[0]
	otherTok.Kind = board.OAuthRefresh
	out, err = m.PutOAuthToken(f.ctx, otherTok)
	wantPut(t, "another token under the hash", out, err, board.Collision)
	if got := f.oauthGrant(g.ID); got.Agent != g.Agent {
		t.Fatalf("a collision changed the grant: %+v", got)
	}

	// Revoking the moved grant stops its tokens.
	if err := f.s.RevokeOAuthGrant(f.ctx, g.ID, now); err != nil {
		t.Fatal(err)
	}
	if _, got := f.oauthToken(g.ID, tokens[0].Hash); got.RevokedAt == nil {
		t.Fatal("the moved access token's grant is not revoked")
	}
}

// moveOAuthExport: the exports stream the grants unrevoked and unexpired
// and the tokens unexpired, used ones included, exactly as stored.
func moveOAuthExport(t *testing.T, f *fixture) {
	m := f.s
	live := f.grantWithTokens("00000000000000c1")
	revoked := f.grantWithTokens("00000000000000c2")
	if err := f.s.RevokeOAuthGrant(f.ctx, revoked.Grant.ID, f.now()); err != nil {
		t.Fatal(err)
	}
	code := oauthCode(f, "00000000000000c3")
	code.Hash = oauthHash("code-short")
	if err := f.s.CreateOAuthCode(f.ctx, code); err != nil {
		t.Fatal(err)
	}
	short := redemption(code, f.now())
	short.Grant.ExpiresAt = short.Now.Add(time.Minute)
	for i := range short.Tokens {
		short.Tokens[i].Hash = oauthHash("short-" + string(short.Tokens[i].Kind))
		short.Tokens[i].ExpiresAt = short.Grant.ExpiresAt
	}
	if err := f.s.RedeemOAuthCode(f.ctx, short); err != nil {
		t.Fatal(err)
	}
	now := f.now()
	next := []board.OAuthToken{
		{Hash: oauthHash("c1-access-2"), GrantID: live.Grant.ID, Kind: board.OAuthAccess, CreatedAt: now, ExpiresAt: now.Add(time.Hour)},
		{Hash: oauthHash("c1-refresh-2"), GrantID: live.Grant.ID, Kind: board.OAuthRefresh, CreatedAt: now, ExpiresAt: now.Add(30 * 24 * time.Hour)},
	}
	if err := f.s.RotateOAuthRefresh(f.ctx, board.OAuthRotation{GrantID: live.Grant.ID, UsedHash: live.Tokens[1].Hash, Next: next,
		GrantExpiresAt: next[1].ExpiresAt, Now: now}); err != nil {
		t.Fatal(err)
	}

	// Two hours on: the short grant and every first access token expired.
	at := now.Add(2 * time.Hour)
	var grants []board.OAuthGrant
	if err := m.TransferOAuthGrants(f.ctx, at, func(g board.OAuthGrant) error { grants = append(grants, g); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(grants) != 1 {
		t.Fatalf("exported grants %+v; want %s alone", grants, live.Grant.ID)
	}
	assertOAuthGrant(t, "the exported grant", f.oauthGrant(live.Grant.ID), grants[0])
	got := map[string]board.OAuthToken{}
	if err := m.TransferOAuthTokens(f.ctx, at, func(tok board.OAuthToken) error { got[tok.Hash] = tok; return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{live.Tokens[1].Hash, next[1].Hash, revoked.Tokens[1].Hash}
	if keys := mapKeys(got); !sameSet(keys, want) {
		t.Fatalf("exported tokens %v; want %v (unexpired refresh tokens, the used one included)", keys, want)
	}
	for _, h := range want {
		stored, _ := f.oauthToken(got[h].GrantID, h)
		assertOAuthToken(t, "the exported token", stored, got[h])
	}
	if got[live.Tokens[1].Hash].UsedAt == nil {
		t.Error("the used refresh token was exported without its use")
	}
	stop := errors.New("stop")
	if err := m.TransferOAuthTokens(f.ctx, at, func(board.OAuthToken) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("TransferOAuthTokens returned %v, want fn's error", err)
	}
}

func mapKeys(m map[string]board.OAuthToken) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
