package boardfile_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
	"github.com/ticket-ledger/ticket-ledger/internal/rest"
)

// Connected agents made and used through the real authorization server:
// registration and the token endpoint over HTTP, the approval as the
// board's page makes it (ParseAuthorization, Approve), the tokens checked
// by the resolver on /api/v1.

// issuer is every server's issuer, the fixtures' base URL: a moved token
// is bound to it, so the new store is served under the same address.
const issuer = "http://board.test"

// agentServer is the authorization server and REST API on one fixture.
type agentServer struct {
	t   *testing.T
	f   *fixture
	as  *oauth.Server
	url string
}

// serveAgents serves f's store; refreshTTL 0 is the default lifetime.
func serveAgents(t *testing.T, f *fixture, refreshTTL time.Duration) *agentServer {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	accounts := auth.NewAccounts(auth.Config{Store: f.store, Now: f.clock.Now, Logger: log})
	as := oauth.New(oauth.Config{Store: f.store, Accounts: accounts, Issuer: issuer, RefreshTTL: refreshTTL, Now: f.clock.Now, Logger: log})
	resolver := auth.NewResolver(auth.ResolverConfig{Mode: auth.ModeRequired, Accounts: accounts, ResourceMetadata: as.ResourceMetadataURL})
	resolver.AddBearer(accounts.VerifyToken)
	resolver.AddBearer(as.VerifyAccessToken)
	mux := http.NewServeMux()
	as.Register(mux)
	mux.Handle(rest.Prefix+"/", rest.New(rest.Config{Service: f.svc, Resolver: resolver}))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return &agentServer{t: t, f: f, as: as, url: ts.URL}
}

// agentTokens is what a client holds after a token answer.
type agentTokens struct{ access, refresh, clientID string }

func (s *agentServer) post(path, contentType, body string) (int, map[string]any) {
	s.t.Helper()
	resp, err := http.Post(s.url+path, contentType, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := map[string]any{}
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, m
}

func (s *agentServer) form(path string, v url.Values) (int, map[string]any) {
	return s.post(path, "application/x-www-form-urlencoded", v.Encode())
}

// connect registers a client and runs the code flow with PKCE: handle
// approves agent.
func (s *agentServer) connect(handle, agent string) agentTokens {
	s.t.Helper()
	redirect := "http://127.0.0.1:53682/callback"
	reg, _ := json.Marshal(map[string]any{"client_name": "Agent app " + agent, "redirect_uris": []string{redirect},
		"grant_types": []string{"authorization_code", "refresh_token"}, "token_endpoint_auth_method": "none"})
	status, m := s.post(oauth.PathRegister, "application/json", string(reg))
	if status != http.StatusCreated {
		s.t.Fatalf("register: HTTP %d %v", status, m)
	}
	clientID := m["client_id"].(string)
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier := base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "state": {"st"}}
	ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "human:" + handle, Role: board.RoleMember, Source: board.SourceWeb})
	a, err := s.as.ParseAuthorization(ctx, q)
	if err != nil {
		s.t.Fatalf("authorization request: %v", err)
	}
	loc, err := s.as.Approve(ctx, a, agent)
	if err != nil {
		s.t.Fatalf("approval: %v", err)
	}
	u, _ := url.Parse(loc)
	status, m = s.form(oauth.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")},
		"redirect_uri": {redirect}, "client_id": {clientID}, "code_verifier": {verifier}})
	if status != http.StatusOK {
		s.t.Fatalf("code exchange: HTTP %d %v", status, m)
	}
	return agentTokens{access: m["access_token"].(string), refresh: m["refresh_token"].(string), clientID: clientID}
}

// refresh exchanges a refresh token: the new tokens, or the error answer.
func (s *agentServer) refresh(tok agentTokens) (agentTokens, int, map[string]any) {
	s.t.Helper()
	status, m := s.form(oauth.PathToken, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.refresh}, "client_id": {tok.clientID}})
	if status != http.StatusOK {
		return agentTokens{}, status, m
	}
	return agentTokens{access: m["access_token"].(string), refresh: m["refresh_token"].(string), clientID: tok.clientID}, status, m
}

// mustRefresh exchanges a refresh token that must work.
func (s *agentServer) mustRefresh(what string, tok agentTokens) agentTokens {
	s.t.Helper()
	next, status, m := s.refresh(tok)
	if status != http.StatusOK {
		s.t.Fatalf("%s: HTTP %d %v", what, status, m)
	}
	return next
}

// refused checks that a refresh token is refused as invalid_grant.
func (s *agentServer) refused(what string, tok agentTokens) {
	s.t.Helper()
	if _, status, m := s.refresh(tok); status != http.StatusBadRequest || m["error"] != "invalid_grant" {
		s.t.Fatalf("%s: HTTP %d %v, want 400 invalid_grant", what, status, m)
	}
}

// gone checks that a connection that did not move is refused: its grant
// (invalid_grant) or, when no moved grant needed it, its client
// (invalid_client) is unknown to the target.
func (s *agentServer) gone(what string, tok agentTokens) {
	s.t.Helper()
	_, status, m := s.refresh(tok)
	if !(status == http.StatusBadRequest && m["error"] == "invalid_grant") && !(status == http.StatusUnauthorized && m["error"] == "invalid_client") {
		s.t.Fatalf("%s: HTTP %d %v, want 400 invalid_grant or 401 invalid_client", what, status, m)
	}
}

func (s *agentServer) revoke(token, clientID string) {
	s.t.Helper()
	if status, m := s.form(oauth.PathRevoke, url.Values{"token": {token}, "client_id": {clientID}}); status != http.StatusOK {
		s.t.Fatalf("revoke: HTTP %d %v", status, m)
	}
}

// api is the status of GET /api/v1/workspaces with a bearer token.
func (s *agentServer) api(token string) int {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.url+rest.Prefix+"/workspaces", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func (s *agentServer) wantAPI(what, token string, status int) {
	s.t.Helper()
	if got := s.api(token); got != status {
		s.t.Fatalf("%s: HTTP %d, want %d", what, got, status)
	}
}

// agents are the connections connectAgents makes on the source.
type agents struct {
	live agentTokens // connected, used, refreshed once
	// usedRefresh is live's first refresh token, exchanged on the source.
	usedRefresh agentTokens
	revoked     agentTokens // revoked by its client
	expired     agentTokens // its refresh token's lifetime is over
}

// connectAgents adds a person, cy, with three connections through the
// authorization server: one live (used and refreshed), one revoked, one
// expired. The clock moves two minutes past the expired one's end.
func connectAgents(t *testing.T, f *fixture) agents {
	t.Helper()
	if err := f.store.CreatePerson(context.Background(), board.Person{Handle: "cy", Name: "Cy", Role: board.RoleMember,
		PasswordHash: "$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA", CreatedAt: f.clock.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	s := serveAgents(t, f, 0)
	var a agents
	first := s.connect("cy", "claude")
	s.wantAPI("the source takes the first access token", first.access, http.StatusOK)
	a.usedRefresh = first
	a.live = s.mustRefresh("refreshing on the source", first)
	s.wantAPI("the source takes the refreshed access token", a.live.access, http.StatusOK)
	a.revoked = s.connect("cy", "revoked")
	s.revoke(a.revoked.refresh, a.revoked.clientID)
	s.wantAPI("the revoked grant's access token", a.revoked.access, http.StatusUnauthorized)
	a.expired = serveAgents(t, f, time.Minute).connect("cy", "brief")
	f.clock.Add(2 * time.Minute)
	return a
}

// checkAgents: on a store a file was imported into, the live connection
// works (its access token, then a refresh and the new access token) and
// the revoked and expired ones do not. With reuse, the refresh token
// exchanged on the source before the move is presented again: a reuse,
// which revokes the grant; otherwise the client revokes the grant through
// the revocation endpoint. Either way every token of the grant stops.
func checkAgents(t *testing.T, f *fixture, a agents, reuse bool) {
	t.Helper()
	s := serveAgents(t, f, 0)
	s.wantAPI("the moved access token", a.live.access, http.StatusOK)
	s.gone("the revoked grant's refresh token", a.revoked)
	s.wantAPI("the revoked grant's access token", a.revoked.access, http.StatusUnauthorized)
	s.gone("the expired grant's refresh token", a.expired)
	next := s.mustRefresh("refreshing with the moved refresh token", a.live)
	s.wantAPI("the access token the target issued", next.access, http.StatusOK)
	if reuse {
		s.refused("the refresh token used on the source, again", a.usedRefresh)
		s.refused("the newest refresh token after the reuse", next)
	} else {
		s.revoke(next.refresh, next.clientID)
		s.refused("the newest refresh token after the revocation", next)
	}
	s.wantAPI("the target's access token after that", next.access, http.StatusUnauthorized)
	s.wantAPI("the moved access token after that", a.live.access, http.StatusUnauthorized)
}

// agentCounts counts a file's lines of each OAuth kind.
func agentCounts(file []byte) (clients, grants, tokens int) {
	for _, l := range bytes.Split(file, []byte("\n")) {
		switch {
		case bytes.HasPrefix(l, []byte(`{"kind":"oauth_client"`)):
			clients++
		case bytes.HasPrefix(l, []byte(`{"kind":"oauth_grant"`)):
			grants++
		case bytes.HasPrefix(l, []byte(`{"kind":"oauth_token"`)):
			tokens++
		}
	}
	return
}
