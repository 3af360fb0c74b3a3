package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"

	ledgerauth "github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
	"github.com/ticket-ledger/ticket-ledger/internal/tasks"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// Revocation against a running import, at the composition root in
// required mode with the local runner, as under `make run`. A 10 000-row
// import by an agent's token used to keep writing after the token was
// revoked. Now every chunk re-reads the credential the import was started
// with: a chunk is held, the credential is revoked (token revoked, app
// disconnected, person disabled, password reset), the chunk is released,
// and the import ends cancelled having imported exactly the held chunk.

// heldChunk lets chunks through until armed; the next chunk that commits
// is then held until release.
type heldChunk struct {
	storetest.Store
	mu        sync.Mutex
	armed     bool
	committed chan board.Task
	release   chan struct{}
}

func (g *heldChunk) arm() (<-chan board.Task, func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed, g.committed, g.release = true, make(chan board.Task, 1), make(chan struct{})
	return g.committed, sync.OnceFunc(func() { close(g.release) })
}

func (g *heldChunk) ImportChunk(ctx context.Context, tx board.ChunkTx) (board.Task, error) {
	t, err := g.Store.ImportChunk(ctx, tx)
	g.mu.Lock()
	hold := g.armed && err == nil
	committed, release := g.committed, g.release
	if hold {
		g.armed = false
	}
	g.mu.Unlock()
	if hold {
		committed <- t
		<-release
	}
	return t, err
}

// serveWithRunner is the server as run() builds it: a local runner takes
// imports over the inline threshold.
func serveWithRunner(t *testing.T, store storetest.Store) string {
	t.Helper()
	ts := httptest.NewServer(nil)
	t.Cleanup(ts.Close)
	log := slog.New(slog.DiscardHandler)
	cfg := config{Auth: ledgerauth.ModeRequired, BaseURL: ts.URL, Retention: 24 * time.Hour, Store: storeSQLite}
	svc, err := newService(cfg, store, log)
	if err != nil {
		t.Fatal(err)
	}
	runner := tasks.NewLocal(svc, log)
	t.Cleanup(runner.Close)
	svc.SetRunner(runner)
	cfg.tasks = runner
	ts.Config.Handler = routes(cfg, store, svc, log, mcpserver.HandlerOptions{})
	return ts.URL
}

// restImport starts an import over REST with a bearer token or a session
// cookie (auth is "Bearer …" or "Cookie: …") and returns its task id.
func restImport(t *testing.T, base, credential, key string, rows int) string {
	t.Helper()
	var tickets []map[string]any
	for i := range rows {
		tickets = append(tickets, map[string]any{"title": fmt.Sprintf("%s row %d", key, i)})
	}
	body, _ := json.Marshal(map[string]any{"tickets": tickets})
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/workspaces/inbox/imports", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	if cookie, ok := strings.CutPrefix(credential, "Cookie: "); ok {
		req.Header.Set("Cookie", cookie)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	} else {
		req.Header.Set("Authorization", credential)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out board.ImportResult
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusAccepted || out.Status != board.TaskWorking {
		t.Fatalf("the import answered %d %+v, want 202 working (the runner imports it)", resp.StatusCode, out)
	}
	return out.TaskID
}

// oauthAccessToken goes through the authorization code flow as a person
// would (register, sign in, approve, exchange) and returns the access
// token of the new grant, for the agent claude acting for handle.
func oauthAccessToken(t *testing.T, base, handle string) string {
	t.Helper()
	const redirect = "http://127.0.0.1:9/callback"
	_, client := registerClient(t, base, redirect)
	p := newPerson(t, "claude")
	if resp, _, err := p.do(http.MethodPost, base+"/signin", url.Values{"handle": {handle}, "password": {e2ePassword}}); err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %v %v", err, resp)
	}
	verifier := oauth2.GenerateVerifier()
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "state": {"s"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}, "resource": {base + "/api/v1"}}
	res, err := p.fetch(context.Background(), &auth.AuthorizationArgs{URL: base + oauth.PathAuthorize + "?" + q.Encode()})
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {res.Code}, "code_verifier": {verifier},
		"client_id": {client}, "redirect_uri": {redirect}, "resource": {base + "/api/v1"}}
	resp, err := http.PostForm(base+oauth.PathToken, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	if resp.StatusCode != http.StatusOK || tok.AccessToken == "" {
		t.Fatalf("token exchange: %d", resp.StatusCode)
	}
	return tok.AccessToken
}

func TestRevocationStopsRunningImport(t *testing.T) {
	for _, backend := range testbackends.Names() {
		t.Run(backend, func(t *testing.T) {
			gate := &heldChunk{Store: e2eStore(t, backend)}
			base := serveWithRunner(t, gate)
			ctx := context.Background()
			op := board.WithPrincipal(ctx, ledgerauth.Operator)
			accounts := ledgerauth.NewAccounts(ledgerauth.Config{Store: gate})
			// Over SQLite's 500-row chunks, and over a few of DynamoDB's
			// (about 30 rows each) without paying moto's slow transactions
			// for rows that are never imported.
			rows := 1200
			if backend != "sqlite" {
				rows = 150
			}
			newPerson := func(handle string) {
				pw := e2ePassword
				if _, err := accounts.AddPerson(op, ledgerauth.AddPersonInput{Handle: handle, Password: &pw}); err != nil {
					t.Fatal(err)
				}
			}
			agentToken := func(handle string) (string, string) {
				made, err := accounts.CreateToken(op, ledgerauth.CreateTokenInput{Handle: handle, Agent: "claude"})
				if err != nil {
					t.Fatal(err)
				}
				return "Bearer " + made.Secret, made.Token.ID
			}

			cases := []struct {
				name string
				// start makes a credential for a new person and returns
				// it with the revocation to run while a chunk is held.
				start func(handle string) (credential string, revoke func())
			}{
				{"token revoked", func(handle string) (string, func()) {
					bearer, id := agentToken(handle)
					return bearer, func() {
						if _, err := accounts.RevokeToken(op, id); err != nil {
							t.Fatal(err)
						}
					}
				}},
				{"app disconnected", func(handle string) (string, func()) {
					access := oauthAccessToken(t, base, handle)
					return "Bearer " + access, func() {
						grants, err := gate.ListOAuthGrants(ctx, handle, time.Now())
						if err != nil || len(grants) != 1 {
							t.Fatalf("grants of %s: %v %v", handle, grants, err)
						}
						if err := gate.RevokeOAuthGrant(ctx, grants[0].ID, time.Now()); err != nil {
							t.Fatal(err)
						}
					}
				}},
				{"person disabled", func(handle string) (string, func()) {
					bearer, _ := agentToken(handle)
					return bearer, func() {
						if err := accounts.SetDisabled(op, handle, true); err != nil {
							t.Fatal(err)
						}
					}
				}},
				{"password reset ends the session's import", func(handle string) (string, func()) {
					p := signedInAs(t, base, handle)
					return "Cookie: " + p, func() {
						link, err := accounts.Invite(op, handle, "")
						if err != nil {
							t.Fatal(err)
						}
						if _, err := accounts.AcceptInvitation(ctx, secretOf(link), "another long password"); err != nil {
							t.Fatal(err)
						}
					}
				}},
			}
			for i, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					handle := fmt.Sprintf("person%d", i)
					newPerson(handle)
					credential, revoke := c.start(handle)
					before := candidates(t, gate)
					committed, release := gate.arm()
					defer release()
					id := restImport(t, base, credential, "revoke-"+handle, rows)
					var held board.Task
					select {
					case held = <-committed:
					case <-time.After(2 * time.Minute):
						t.Fatal("the runner committed no chunk within two minutes")
					}
					revoke()
					release()
					end := waitTaskEnds(t, gate, id, 2*time.Minute)
					if end.Status != board.TaskCancelled || end.Imported != held.Imported || end.Imported == 0 || end.Imported >= rows {
						t.Fatalf("after the revocation the task is %s with %d of %d rows imported; the held chunk had imported %d (%s)",
							end.Status, end.Imported, rows, held.Imported, end.Message)
					}
					if !strings.Contains(end.Message, "revoked") || !strings.Contains(end.Message, fmt.Sprintf("the %d tickets imported before stay", end.Imported)) {
						t.Errorf("status message %q does not say why it stopped and what stays", end.Message)
					}
					if n := candidates(t, gate) - before; n != end.Imported {
						t.Fatalf("the store holds %d new tickets, the task says %d", n, end.Imported)
					}
				})
			}
		})
	}
}

// signedInAs signs handle in on the board and returns the session's
// Cookie header value.
func signedInAs(t *testing.T, base, handle string) string {
	t.Helper()
	resp, err := noRedirects.PostForm(base+"/signin", url.Values{"handle": {handle}, "password": {e2ePassword}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == ledgerauth.SessionCookie {
			return c.Name + "=" + c.Value
		}
	}
	t.Fatalf("sign-in as %s answered %d without a session", handle, resp.StatusCode)
	return ""
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func candidates(t *testing.T, store storetest.Store) int {
	t.Helper()
	w, err := store.GetWorkspace(context.Background(), "inbox")
	if err != nil {
		t.Fatal(err)
	}
	return w.Counts[board.StatusCandidate]
}

// waitTaskEnds polls the stored task until it ends, with a deadline.
func waitTaskEnds(t *testing.T, store storetest.Store, id string, limit time.Duration) board.Task {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		task, err := store.GetTask(context.Background(), id, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if task.Status.Terminal() {
			return task
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s still %s after %v: %s", id, task.Status, limit, task.Message)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// `tokens revoke`, run as the admin command (a second process on the same
// SQLite file) while a 10 000-row import by that token runs, used to wait
// for the write lock behind the import's chunks and often landed only
// after the whole import. Now it succeeds while the import still runs,
// and the import stops within one chunk of the moment the command
// returned. (How soon the command gets in between chunks depends on their
// timing here; internal/sqlite's TestAdminCommandIsNotStarvedByServerWrites
// pins that down with a server that never pauses.)
func TestCommandLineRevocationLandsMidImport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildServer(t)
	data := t.TempDir()
	ctx := context.Background()
	store, err := sqlite.OpenDir(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	base := serveWithRunner(t, store)
	op := board.WithPrincipal(ctx, ledgerauth.Operator)
	accounts := ledgerauth.NewAccounts(ledgerauth.Config{Store: store})
	pw := e2ePassword
	if _, err := accounts.AddPerson(op, ledgerauth.AddPersonInput{Handle: "alice", Password: &pw}); err != nil {
		t.Fatal(err)
	}
	made, err := accounts.CreateToken(op, ledgerauth.CreateTokenInput{Handle: "alice", Agent: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	const rows, chunk = 10000, 500
	id := restImport(t, base, "Bearer "+made.Secret, "cli-revoke", rows)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		task, err := store.GetTask(ctx, id, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if task.Cursor > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the import committed no chunk within a minute")
		}
	}
	env := []string{"LEDGER_DATA=" + data, "LEDGER_STORE=sqlite", "LEDGER_ADDR=127.0.0.1:8080", "LEDGER_BASE_URL="}
	_, errOut, code := admin(t, bin, env, "", "tokens", "revoke", made.Token.ID)
	if code != 0 {
		t.Fatalf("tokens revoke beside the running import: exit %d: %s", code, errOut)
	}
	atReturn, err := store.GetTask(ctx, id, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if atReturn.Status == board.TaskCompleted {
		t.Fatalf("the revocation landed only after the whole import: %s", atReturn.Message)
	}
	end := waitTaskEnds(t, store, id, 2*time.Minute)
	if end.Status != board.TaskCancelled || end.Imported > atReturn.Imported+chunk || !strings.Contains(end.Message, "revoked") {
		t.Fatalf("the task ended %s with %d rows imported, %d when the command returned (one chunk is %d): %s",
			end.Status, end.Imported, atReturn.Imported, chunk, end.Message)
	}
	t.Logf("revoked at row %d of %d; the import stopped at row %d", atReturn.Imported, rows, end.Imported)
}
