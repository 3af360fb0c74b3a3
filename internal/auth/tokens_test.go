package auth_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

func tokenAccounts(t *testing.T) *auth.Accounts {
	t.Helper()
	st, err := sqlite.Open(context.Background(), t.TempDir()+"/ledger.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := auth.NewAccounts(auth.Config{Store: st})
	op := board.WithPrincipal(context.Background(), auth.Operator)
	for _, h := range []string{"alice", "bob"} {
		role := board.RoleMember
		if h == "alice" {
			role = board.RoleAdmin
		}
		if _, err := a.AddPerson(op, auth.AddPersonInput{Handle: h, Role: role}); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

func as(author string, role board.Role) context.Context {
	return board.WithPrincipal(context.Background(), board.Principal{Author: author, Role: role})
}

// Who makes, lists and revokes whose tokens; what a token stands for.
func TestTokenUseCases(t *testing.T) {
	a := tokenAccounts(t)
	alice, bob := as("human:alice", board.RoleAdmin), as("human:bob", board.RoleMember)
	agent := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:claude", OnBehalfOf: "human:bob"})

	own, err := a.CreateToken(bob, auth.CreateTokenInput{Label: "laptop"})
	if err != nil || own.Token.Handle != "bob" || own.Token.Agent != "" || own.Token.CreatedBy != "human:bob" {
		t.Fatalf("bob's own token: %+v %v", own, err)
	}
	if !strings.HasPrefix(own.Secret, auth.TokenPrefix) || len(own.Secret) != len(auth.TokenPrefix)+43 || own.Token.ID != auth.TokenID(own.Secret) ||
		own.Token.Hash != auth.HashSecret(own.Secret) {
		t.Fatalf("token shape: %q %+v", own.Secret, own.Token)
	}
	forAgent, err := a.CreateToken(bob, auth.CreateTokenInput{Agent: "ai:claude"})
	if err != nil || forAgent.Token.Agent != "claude" {
		t.Fatalf("bob's agent token: %+v %v", forAgent, err)
	}
	for name, c := range map[string]struct {
		ctx  context.Context
		in   auth.CreateTokenInput
		want string
	}{
		"bob for alice":        {bob, auth.CreateTokenInput{Handle: "alice"}, "your own"},
		"an agent":             {agent, auth.CreateTokenInput{}, "agents cannot"},
		"for nobody":           {alice, auth.CreateTokenInput{Handle: "nobody"}, "no person"},
		"a bad agent name":     {bob, auth.CreateTokenInput{Agent: "claude code"}, "agent name"},
		"a two-line label":     {bob, auth.CreateTokenInput{Label: "a\nb"}, "label"},
		"a malformed secret":   {bob, auth.CreateTokenInput{Secret: "tl_short"}, "malformed"},
		"the operator, no one": {board.WithPrincipal(context.Background(), auth.Operator), auth.CreateTokenInput{}, "say whose"},
	} {
		if _, err := a.CreateToken(c.ctx, c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a refusal mentioning %q", name, err, c.want)
		}
	}
	// An admin makes anyone's.
	if _, err := a.CreateToken(alice, auth.CreateTokenInput{Handle: "bob", Agent: "ci"}); err != nil {
		t.Fatal(err)
	}
	// A web form's secret: submitted twice, one token, the same answer.
	secret := auth.NewTokenSecret()
	first, err := a.CreateToken(bob, auth.CreateTokenInput{Secret: secret, Label: "form"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := a.CreateToken(bob, auth.CreateTokenInput{Secret: secret, Label: "form"})
	if err != nil || second.Token.ID != first.Token.ID || second.Secret != secret {
		t.Fatalf("the form again: %+v %v", second, err)
	}
	if _, err := a.CreateToken(alice, auth.CreateTokenInput{Secret: secret}); err == nil {
		t.Fatal("another person's form with bob's secret made a token")
	}
	mine, err := a.Tokens(bob, "bob")
	if err != nil || len(mine) != 4 {
		t.Fatalf("bob lists %d tokens (%v), want 4", len(mine), err)
	}
	if _, err := a.Tokens(bob, "alice"); err == nil {
		t.Fatal("bob listed alice's tokens")
	}
	if _, err := a.Tokens(bob, ""); err == nil {
		t.Fatal("bob listed everyone's tokens")
	}
	if all, err := a.Tokens(alice, ""); err != nil || len(all) != 4 {
		t.Fatalf("alice lists %d tokens (%v), want 4", len(all), err)
	}

	// What a token stands for, through the resolver.
	r := auth.NewResolver(auth.ResolverConfig{Mode: auth.ModeRequired, Accounts: a})
	r.AddBearer(a.VerifyToken)
	resolve := func(tok string) (board.Principal, error) {
		req := httptest.NewRequest("GET", "/api/v1/workspaces", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		return r.Resolve(req, auth.SurfaceAPI)
	}
	if p, err := resolve(own.Secret); err != nil || p.Author != "human:bob" || p.OnBehalfOf != "" || p.Role != board.RoleMember || p.IsAI() {
		t.Fatalf("bob's own token is %+v %v", p, err)
	}
	p, err := resolve(forAgent.Secret)
	if err != nil || p.Author != "ai:claude" || p.OnBehalfOf != "human:bob" || p.Role != "" || !p.IsAI() || p.LedgerKey() != "ai:claude|human:bob" {
		t.Fatalf("bob's agent token is %+v %v", p, err)
	}
	// Revoking: bob cannot revoke alice's (it is "not found" to him), an
	// admin can revoke bob's, and a revoked token resolves no more.
	aliceTok, _ := a.CreateToken(alice, auth.CreateTokenInput{})
	if _, err := a.RevokeToken(bob, aliceTok.Token.ID); board.ErrorCode(err) != board.CodeNotFound {
		t.Fatalf("bob revoking alice's token: %v, want not_found", err)
	}
	if _, err := a.RevokeToken(agent, forAgent.Token.ID); board.ErrorCode(err) != board.CodeForbidden {
		t.Fatalf("an agent revoking: %v, want forbidden", err)
	}
	if _, err := a.RevokeToken(alice, forAgent.Token.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := resolve(forAgent.Secret); !auth.Unauthorized(err) {
		t.Fatalf("the revoked token resolves: %v", err)
	}
	if _, err := a.RevokeToken(bob, "nothex"); board.ErrorCode(err) != board.CodeNotFound {
		t.Fatalf("revoking a malformed id: %v", err)
	}
	// A well-formed token of ours that was never made, and one of another
	// kind, are both refused.
	for _, tok := range []string{auth.NewTokenSecret(), "tl_" + strings.Repeat("A", 43) + "x", "abc"} {
		if _, err := resolve(tok); !auth.Unauthorized(err) {
			t.Errorf("token %q: %v, want 401", tok, err)
		}
	}
}

// In loopback mode a bearer token is honoured (a script acts as its
// person); without one the API caller is the local agent.
func TestLoopbackHonoursTokens(t *testing.T) {
	a := tokenAccounts(t)
	made, err := a.CreateToken(as("human:bob", board.RoleMember), auth.CreateTokenInput{})
	if err != nil {
		t.Fatal(err)
	}
	r := auth.NewResolver(auth.ResolverConfig{Mode: auth.ModeLoopback, Accounts: a, LocalAgent: board.Principal{Author: "ai:local"}})
	r.AddBearer(a.VerifyToken)
	req := httptest.NewRequest("GET", "/mcp", nil)
	if p, _ := r.Resolve(req, auth.SurfaceAPI); p.Author != "ai:local" {
		t.Fatalf("no token in loopback: %+v", p)
	}
	req.Header.Set("Authorization", "Bearer "+made.Secret)
	if p, err := r.Resolve(req, auth.SurfaceAPI); err != nil || p.Author != "human:bob" {
		t.Fatalf("bob's token in loopback: %+v %v", p, err)
	}
	req.Header.Set("Authorization", "Bearer "+auth.NewTokenSecret())
	if _, err := r.Resolve(req, auth.SurfaceAPI); !auth.Unauthorized(err) {
		t.Fatalf("an unknown token in loopback: %v", err)
	}
	if p, _ := r.Resolve(req, auth.SurfaceWeb); p.Author != auth.LocalPerson.Author {
		t.Fatalf("the board in loopback: %+v", p)
	}
}
