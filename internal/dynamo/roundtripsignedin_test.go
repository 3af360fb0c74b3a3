package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
)

// signedIn is one instance (one store, as one Lambda instance has) serving
// calls that carry a bearer token: each call is the resolver's check of the
// credential, then the tool call as the principal it gives, as the /mcp
// handler runs them.
type signedIn struct {
	instance
	resolver *auth.Resolver
}

func newSignedIn(t *testing.T, ep endpoint, table string, c *dynamo.RequestCounter) signedIn {
	t.Helper()
	// Opened as a Lambda instance opens it: the table exists.
	s, err := dynamo.Open(context.Background(), dynamo.Config{Client: testClient(t, ep, c), Table: table})
	if err != nil {
		t.Fatal(err)
	}
	accounts := auth.NewAccounts(auth.Config{Store: s})
	r := auth.NewResolver(auth.ResolverConfig{Mode: auth.ModeRequired, Accounts: accounts})
	r.AddBearer(accounts.VerifyToken)
	r.AddBearer(oauth.New(oauth.Config{Store: s, Accounts: accounts, Issuer: "https://board.example"}).VerifyAccessToken)
	return signedIn{instance: instance{counter: c, svc: newService(t, s)}, resolver: r}
}

// as resolves token as the /mcp handler does and runs fn as its principal.
func (si signedIn) as(token string, fn func(ctx context.Context, svc *board.Service) error) func() error {
	return func() error {
		req := httptest.NewRequest("POST", "https://board.example/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		p, err := si.resolver.Resolve(req, auth.SurfaceAPI)
		if err != nil {
			return fmt.Errorf("resolving the token: %w", err)
		}
		p.Source = board.SourceMCP
		return fn(board.WithPrincipal(context.Background(), p), si.svc)
	}
}

// signedInCredentials makes alice, an API token of hers for an agent, and
// an OAuth access token of a grant of hers, and returns the two tokens.
func signedInCredentials(t *testing.T, s *dynamo.Store) (apiToken, accessToken string, revoke func(), disable func()) {
	t.Helper()
	admin := board.WithPrincipal(context.Background(), auth.Operator)
	accounts := auth.NewAccounts(auth.Config{Store: s})
	pw := "correct horse battery"
	if _, err := accounts.AddPerson(admin, auth.AddPersonInput{Handle: "alice", Password: &pw}); err != nil {
		t.Fatal(err)
	}
	tok, err := accounts.CreateToken(admin, auth.CreateTokenInput{Handle: "alice", Agent: "claude", Label: "round trips"})
	if err != nil {
		t.Fatal(err)
	}
	grantID := "00000000000000a1"
	accessToken = "tla_" + grantID + "." + auth.NewSecret()
	now := time.Now().UTC()
	code := board.OAuthCode{Hash: auth.HashSecret("code"), ClientID: "tlc_client", ClientName: "Claude",
		RedirectURI: "https://claude.example/cb", Challenge: "c", Resource: "https://board.example/mcp",
		Handle: "alice", Agent: "claude", GrantID: grantID, CreatedAt: now, ExpiresAt: now.Add(time.Minute)}
	if err := s.CreateOAuthCode(context.Background(), code); err != nil {
		t.Fatal(err)
	}
	g := board.OAuthGrant{ID: grantID, ClientID: code.ClientID, ClientName: code.ClientName, Handle: "alice", Agent: "claude",
		Resource: code.Resource, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := s.RedeemOAuthCode(context.Background(), board.OAuthRedemption{CodeHash: code.Hash, Grant: g, Now: now,
		Tokens: []board.OAuthToken{{Hash: auth.HashSecret(accessToken), GrantID: grantID, Kind: board.OAuthAccess, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}}}); err != nil {
		t.Fatal(err)
	}
	revoke = func() {
		if _, err := accounts.RevokeToken(admin, tok.Token.ID); err != nil {
			t.Fatal(err)
		}
	}
	disable = func() {
		if err := accounts.SetDisabled(admin, "alice", true); err != nil {
			t.Fatal(err)
		}
	}
	return tok.Secret, accessToken, revoke, disable
}

// measureSignedIn counts the requests of calls made with an API token and
// with an OAuth access token. The credential and its person are read on
// every call (a revoked token, a disconnected app or a disabled person is
// refused at the next call on every instance); an instance that has seen
// the credential before reads both in one request.
func measureSignedIn(t *testing.T, ep endpoint) []rtRow {
	table := tableName()
	apiToken, accessToken, revoke, disable := signedInCredentials(t, openStore(t, ep, nil, dynamo.Config{Table: table}))

	var rows []rtRow
	var instances []signedIn
	measure := func(c *dynamo.RequestCounter, call string, b budget, note string, fn func() error) {
		t.Helper()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", call, err)
		}
		rows = append(rows, rtRow{call: call, requests: c.Total(), ops: c.Ops(), budget: b.on(ep), note: note})
		c.Reset()
	}
	// One title word looked up by similarity, so its Query round is one
	// request.
	create := func(id string) func(ctx context.Context, svc *board.Service) error {
		return func(ctx context.Context, svc *board.Service) error {
			_, err := svc.CreateTicketFindingSimilar(ctx, board.CreateTicketInput{RequestID: id, Workspace: "inbox", NewTicket: board.NewTicket{Title: "ticket"}})
			return err
		}
	}
	replay := func(id string) func(ctx context.Context, svc *board.Service) error {
		return func(ctx context.Context, svc *board.Service) error {
			res, err := svc.CreateTicketFindingSimilar(ctx, board.CreateTicketInput{RequestID: id, Workspace: "inbox", NewTicket: board.NewTicket{Title: "ticket"}})
			if err == nil && !res.Replayed {
				err = fmt.Errorf("not a replay")
			}
			return err
		}
	}
	get := func(ctx context.Context, svc *board.Service) error {
		_, err := svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-1"})
		return err
	}

	for _, cred := range []struct {
		name, token, first, id string
		firstBudget            int
	}{
		{"an API token", apiToken, "Open's read, the token, its person, then at once the similar Query (and the policy it has not cached) and the record with the policy, the similar tickets' BatchGetItem, the lease of a block of numbers, the transaction, the token's first use recorded (once a minute)", "api", 8},
		{"an OAuth access token", accessToken, "Open's read, token and grant, the person, then at once the similar Query (and the policy it has not cached) and the record with the policy, the similar tickets' BatchGetItem, the lease of a block of numbers, the transaction, the grant's first use recorded (once a minute)", "oauth", 9},
	} {
		// A cold instance: Open counted with its first call.
		c := &dynamo.RequestCounter{}
		si := newSignedIn(t, ep, table, c)
		measure(c, "first call with "+cred.name+" of a cold instance (Open included)", same(cred.firstBudget), cred.first, si.as(cred.token, create("first-"+cred.id)))
		measure(c, "create_ticket with "+cred.name+", warm", same(5), "the credential with its person (one BatchGetItem), then the similar Query beside the record with the workspace's policy (one consistent BatchGetItem), the similar tickets' BatchGetItem and the transaction: four round trips", si.as(cred.token, create("warm-"+cred.id)))
		measure(c, "create_ticket replay with "+cred.name+", warm", same(2),
			"the credential with its person, then the record (one GetItem) of a request this instance answered", si.as(cred.token, replay("warm-"+cred.id)))
		measure(c, "get_ticket with "+cred.name+", warm", same(3), "the credential with its person, then the ticket, then its relations", si.as(cred.token, get))
		instances = append(instances, si)
	}

	// What the warm instances remember (whose each credential is) never
	// lets a revoked token or a disabled person through: each is refused at
	// the very next call.
	revoke()
	if err := instances[0].as(apiToken, get)(); !errors.Is(err, auth.ErrBadCredential) {
		t.Errorf("a warm instance's next call with a revoked API token: %v, want %v", err, auth.ErrBadCredential)
	}
	if err := instances[1].as(accessToken, get)(); err != nil {
		t.Fatalf("the OAuth token, before its person is disabled: %v", err)
	}
	disable()
	if err := instances[1].as(accessToken, get)(); !errors.Is(err, auth.ErrBadCredential) {
		t.Errorf("a warm instance's next call with the OAuth token of a disabled person: %v, want %v", err, auth.ErrBadCredential)
	}
	return rows
}
