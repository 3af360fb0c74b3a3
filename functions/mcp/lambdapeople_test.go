package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
)

// In Lambda every request needs a credential (LEDGER_AUTH=required). The
// tests sign a person in through the function's own sign-in form and send
// the session cookie with their MCP requests (lamRPCEvent adds it).

const (
	lamHandle   = "lambda-test"
	lamPassword = "correct horse battery staple"
)

// lamCookie is the Cookie header of the signed-in test person, set by
// lamSignIn before a test's board requests; lamToken is the agent's API
// token (ai:claude for the person), set by lamMakeToken before its MCP and
// REST calls. Tests in this package do not run in parallel.
var lamCookie, lamToken string

// lamCredential adds the request's credential: the agent's token once
// there is one, else the person's session.
func lamCredential(h map[string]string) {
	switch {
	case lamToken != "":
		h["authorization"] = "Bearer " + lamToken
	case lamCookie != "":
		h["cookie"] = lamCookie
	}
}

var (
	lamFormToken = regexp.MustCompile(`name="token" value="(tl_[A-Za-z0-9_-]{43})"`)
	lamNewToken  = regexp.MustCompile(`value="(tl_[A-Za-z0-9_-]{43})" aria-label="New API token"`)
	lamTokenID   = regexp.MustCompile(`action="/tokens/([0-9a-f]{16})/revoke"`)
)

// lamMakeToken makes the agent's token on the board's My tokens page, as
// the signed-in person, and keeps it for the following MCP and REST calls.
func lamMakeToken(t *testing.T, invoke lamInvoke) {
	t.Helper()
	page := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/tokens", map[string]string{"cookie": lamCookie}, nil))
	m := lamFormToken.FindStringSubmatch(page.HTTP.Body)
	if page.HTTP.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("My tokens: HTTP %d %q", page.HTTP.StatusCode, page.HTTP.Body)
	}
	saved := lamToken
	lamToken = ""
	r := lamSend(t, invoke, lamForm("/tokens", url.Values{"token": {m[1]}, "agent": {strings.TrimPrefix(lamAuthor, "ai:")}, "label": {"lambda test"}}))
	lamToken = saved
	made := lamNewToken.FindStringSubmatch(r.HTTP.Body)
	if r.HTTP.StatusCode != http.StatusOK || made == nil {
		t.Fatalf("make a token: HTTP %d %q", r.HTTP.StatusCode, r.HTTP.Body)
	}
	lamToken = made[1]
	t.Cleanup(func() { lamToken = "" })
}

// lamRevokeToken revokes the agent's token on the board; the next MCP call
// with it is a 401.
func lamRevokeToken(t *testing.T, invoke lamInvoke) {
	t.Helper()
	page := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/tokens", map[string]string{"cookie": lamCookie}, nil))
	m := lamTokenID.FindStringSubmatch(page.HTTP.Body)
	if m == nil {
		t.Fatalf("My tokens lists no token to revoke:\n%s", page.HTTP.Body)
	}
	token := lamToken
	lamToken = ""
	// confirm=yes: the confirmation page's form (a bare post only asks).
	r := lamSend(t, invoke, lamForm("/tokens/"+m[1]+"/revoke", url.Values{"confirm": {"yes"}}))
	lamToken = token
	if r.HTTP.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: HTTP %d %q", r.HTTP.StatusCode, r.HTTP.Body)
	}
	if r := lamSend(t, invoke, lamRPCEvent(lamLegacy, 1, "tools/list", nil)); r.HTTP.StatusCode != http.StatusUnauthorized {
		t.Fatalf("MCP with the revoked token: HTTP %d, want 401", r.HTTP.StatusCode)
	}
	lamToken = ""
}

// lamREST sends one REST request with the agent's token.
func lamREST(t *testing.T, invoke lamInvoke, method, path, key string, body any) lamReply {
	t.Helper()
	h := map[string]string{}
	lamCredential(h)
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
		h["content-type"] = "application/json"
	}
	if key != "" {
		h["idempotency-key"] = key
	}
	return lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, method, path, h, raw))
}

// lambdaRESTRequests drives REST on the function as the agent: a create
// and its replay, a change with If-Match, a move, a note, reads, the
// request lookup, the policy refusal, and the OpenAPI document.
func lambdaRESTRequests(t *testing.T, invoke lamInvoke) {
	t.Helper()
	ok := func(what string, r lamReply, status int) lamReply {
		t.Helper()
		if r.HTTP.StatusCode != status {
			t.Fatalf("REST %s: HTTP %d %q, want %d", what, r.HTTP.StatusCode, r.HTTP.Body, status)
		}
		return r
	}
	created := ok("create", lamREST(t, invoke, "POST", "/api/v1/workspaces/inbox/tickets", "rest-1", map[string]any{"title": "over REST"}), 201)
	var tr board.TicketResult
	json.Unmarshal([]byte(created.HTTP.Body), &tr)
	if tr.Ticket.CreatedBy != lamAuthor || lamHeader(created.HTTP, "Location") != "/api/v1/tickets/"+tr.Ticket.ID {
		t.Fatalf("REST create: %s %v", created.HTTP.Body, created.HTTP.Headers)
	}
	again := ok("replay", lamREST(t, invoke, "POST", "/api/v1/workspaces/inbox/tickets", "rest-1", map[string]any{"title": "over REST"}), 201)
	if lamHeader(again.HTTP, "Idempotent-Replayed") != "true" {
		t.Fatalf("REST replay: %v", again.HTTP.Headers)
	}
	path := "/api/v1/tickets/" + tr.Ticket.ID
	ok("get", lamREST(t, invoke, "GET", path, "", nil), 200)
	h := map[string]string{"if-match": `"1"`, "content-type": "application/json", "idempotency-key": "rest-2"}
	lamCredential(h)
	ok("patch", lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, "PATCH", path, h, []byte(`{"title":"over REST, changed"}`))), 200)
	ok("move", lamREST(t, invoke, "POST", path+"/move", "rest-3", map[string]any{"status": "doing"}), 200)
	ok("note", lamREST(t, invoke, "POST", path+"/notes", "rest-4", map[string]any{"body": "noted"}), 201)
	ok("list", lamREST(t, invoke, "GET", "/api/v1/workspaces/inbox/tickets?limit=5", "", nil), 200)
	ok("summary", lamREST(t, invoke, "GET", "/api/v1/workspaces/inbox", "", nil), 200)
	ok("workspaces", lamREST(t, invoke, "GET", "/api/v1/workspaces", "", nil), 200)
	ok("request", lamREST(t, invoke, "GET", "/api/v1/requests/rest-1", "", nil), 200)
	ok("read-only for AI", lamREST(t, invoke, "POST", "/api/v1/workspaces/reference/tickets", "rest-5", map[string]any{"title": "no"}), 403)
	ok("hidden from AI", lamREST(t, invoke, "GET", "/api/v1/workspaces/private", "", nil), 404)
	doc := ok("openapi", lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, "GET", "/api/v1/openapi.json", nil, nil)), 200)
	if !strings.Contains(doc.HTTP.Body, `"openapi":"3.1.0"`) {
		t.Fatalf("the OpenAPI document: %.200s", doc.HTTP.Body)
	}
}

// lamAddPerson puts the test person (an admin with lamPassword) into the
// table directly, as `people add --password-stdin` would.
func lamAddPerson(t *testing.T, ctx context.Context, endpoint, table string) {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	// CreateTable: the function may still be creating it in the background.
	st, err := dynamo.Open(ctx, dynamo.Config{Client: client, Table: table, CreateTable: true})
	if err != nil {
		t.Fatal(err)
	}
	hash, err := auth.HashPassword(ctx, lamPassword)
	if err != nil {
		t.Fatal(err)
	}
	err = st.CreatePerson(ctx, board.Person{Handle: lamHandle, Name: "Lambda Test", Role: board.RoleAdmin, PasswordHash: hash, CreatedAt: time.Now()}, nil)
	if err != nil && err != board.ErrExists {
		t.Fatal(err)
	}
}

// lamForm is a form POST as API Gateway delivers it.
func lamForm(path string, form url.Values) events.APIGatewayV2HTTPRequest {
	h := map[string]string{"content-type": "application/x-www-form-urlencoded"}
	if lamCookie != "" {
		h["cookie"] = lamCookie
	}
	return lambdatest.HTTPEvent(lamDomain, http.MethodPost, path, h, []byte(form.Encode()))
}

// lamSessionCookie finds the session cookie a response sets (payload 2.0
// carries Set-Cookie in its cookies list).
func lamSessionCookie(resp events.APIGatewayV2HTTPResponse) string {
	all := append([]string{}, resp.Cookies...)
	if v := lamHeader(resp, "Set-Cookie"); v != "" {
		all = append(all, v)
	}
	for _, c := range all {
		if strings.HasPrefix(c, auth.SessionCookie+"=") {
			nv, _, _ := strings.Cut(c, ";")
			return nv
		}
	}
	return ""
}

// lamSignIn signs the test person in through POST /signin and keeps the
// cookie for the following requests.
func lamSignIn(t *testing.T, invoke lamInvoke) {
	t.Helper()
	lamCookie = ""
	r := lamSend(t, invoke, lamForm("/signin", url.Values{"handle": {lamHandle}, "password": {lamPassword}}))
	c := lamSessionCookie(r.HTTP)
	if r.HTTP.StatusCode != http.StatusSeeOther || c == "" {
		t.Fatalf("sign-in: HTTP %d %v %v %q, want 303 with a session cookie", r.HTTP.StatusCode, r.HTTP.Headers, r.HTTP.Cookies, r.HTTP.Body)
	}
	lamCookie = c
	t.Cleanup(func() { lamCookie = "" })
}

// lambdaRequiresCredentials: without a session MCP is a 401 with a Bearer
// challenge, pages send the browser to sign in, and the sign-in page, the
// static assets and /healthz answer anyone.
func lambdaRequiresCredentials(t *testing.T, invoke lamInvoke) {
	t.Helper()
	saved, savedToken := lamCookie, lamToken
	lamCookie, lamToken = "", ""
	defer func() { lamCookie, lamToken = saved, savedToken }()
	r := lamSend(t, invoke, lamRPCEvent(lamLegacy, 1, "tools/list", nil))
	if r.HTTP.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(lamHeader(r.HTTP, "WWW-Authenticate"), "Bearer") || r.Error == nil {
		t.Errorf("MCP without a credential: HTTP %d %v %q, want 401, WWW-Authenticate: Bearer and a JSON-RPC error", r.HTTP.StatusCode, r.HTTP.Headers, r.HTTP.Body)
	}
	lamCookie = "__Host-session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	if r := lamSend(t, invoke, lamRPCEvent(lamLegacy, 1, "tools/list", nil)); r.HTTP.StatusCode != http.StatusUnauthorized {
		t.Errorf("MCP with an unknown session: HTTP %d, want 401", r.HTTP.StatusCode)
	}
	lamCookie, lamToken = "", "tl_"+strings.Repeat("A", 43)
	for _, path := range []string{"/mcp", "/api/v1/workspaces"} {
		ev := lamRPCEvent(lamLegacy, 1, "tools/list", nil)
		if path != "/mcp" {
			ev = lambdatest.HTTPEvent(lamDomain, http.MethodGet, path, map[string]string{"authorization": "Bearer " + lamToken}, nil)
		}
		r := lamSend(t, invoke, ev)
		if r.HTTP.StatusCode != http.StatusUnauthorized || !strings.Contains(lamHeader(r.HTTP, "WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("%s with an unknown token: HTTP %d %v, want 401 with error=invalid_token", path, r.HTTP.StatusCode, r.HTTP.Headers)
		}
	}
	lamToken = ""
	if r := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/api/v1/workspaces", nil, nil)); r.HTTP.StatusCode != http.StatusUnauthorized {
		t.Errorf("REST without a credential: HTTP %d, want 401", r.HTTP.StatusCode)
	}
	home := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/", nil, nil))
	if home.HTTP.StatusCode != http.StatusSeeOther || lamHeader(home.HTTP, "Location") != "/signin" {
		t.Errorf("GET / without a session: HTTP %d %v, want 303 to /signin", home.HTTP.StatusCode, home.HTTP.Headers)
	}
	for _, path := range []string{"/signin", "/healthz"} {
		if r := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, path, nil, nil)); r.HTTP.StatusCode != http.StatusOK {
			t.Errorf("GET %s without a session: HTTP %d, want 200", path, r.HTTP.StatusCode)
		}
	}
}

var lamRevokeForm = regexp.MustCompile(`/invitations/([0-9a-f]{64})/revoke`)

// lambdaPeopleRequests drives the board's people and workspace forms, so
// the policy test sees every request they send: a failed sign-in, adding a
// person with an invitation, a new link, revoking it, a new workspace, its
// settings, and sign-out (then signs in again).
func lambdaPeopleRequests(t *testing.T, invoke lamInvoke) {
	t.Helper()
	ok := func(what string, r lamReply, status int) {
		t.Helper()
		if r.HTTP.StatusCode != status {
			t.Fatalf("%s: HTTP %d %q, want %d", what, r.HTTP.StatusCode, r.HTTP.Body, status)
		}
	}
	saved := lamCookie
	lamCookie = ""
	ok("wrong password", lamSend(t, invoke, lamForm("/signin", url.Values{"handle": {lamHandle}, "password": {"wrong password!"}})), http.StatusUnauthorized)
	lamCookie = saved
	ok("add a person", lamSend(t, invoke, lamForm("/people", url.Values{"handle": {"newcomer"}, "secret": {auth.NewSecret()}})), http.StatusOK)
	ok("new invitation link", lamSend(t, invoke, lamForm("/people/newcomer/invite", url.Values{"secret": {auth.NewSecret()}})), http.StatusOK)
	page := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/people", map[string]string{"cookie": lamCookie}, nil))
	ok("people page", page, http.StatusOK)
	m := lamRevokeForm.FindStringSubmatch(page.HTTP.Body)
	if m == nil {
		t.Fatalf("the people page lists no invitation to revoke:\n%s", page.HTTP.Body)
	}
	ok("revoke", lamSend(t, invoke, lamForm("/invitations/"+m[1]+"/revoke", url.Values{})), http.StatusSeeOther)
	ok("new workspace", lamSend(t, invoke, lamForm("/workspaces", url.Values{"request_id": {"lam-ws-1"}, "slug": {"ops"}, "name": {"Ops"}})), http.StatusSeeOther)
	ok("settings", lamSend(t, invoke, lamForm("/w/ops/settings", url.Values{"request_id": {"lam-ws-2"}, "name": {"Operations"}, "ai_policy": {"hidden"}})), http.StatusSeeOther)
	ok("home", lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/", map[string]string{"cookie": lamCookie}, nil)), http.StatusOK)
	ok("sign out", lamSend(t, invoke, lamForm("/signout", url.Values{})), http.StatusSeeOther)
	if r := lamSend(t, invoke, lamRPCEvent(lamLegacy, 1, "tools/list", nil)); r.HTTP.StatusCode != http.StatusUnauthorized {
		t.Fatalf("MCP with a signed-out session: HTTP %d, want 401", r.HTTP.StatusCode)
	}
	lamSignIn(t, invoke)
}
