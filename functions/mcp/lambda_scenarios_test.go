package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
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
	testbackends.FakeAWSCredentials(t)
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

// OAuth through API Gateway events, as deployed: the issuer is the API's
// own URL, learned from the event (LEDGER_BASE_URL is empty in these
// tests), the metadata documents name it, a 401 points to them, and a
// client registers, is approved by the signed-in person on the board,
// exchanges its code, calls MCP with the access token, refreshes, and
// revokes. lamCookie must hold a signed-in session.

const lamIssuer = "https://" + lamDomain

// lamQuery is a GET with a query string as API Gateway delivers it.
func lamQuery(path string, q url.Values, h map[string]string) events.APIGatewayV2HTTPRequest {
	ev := lambdatest.HTTPEvent(lamDomain, http.MethodGet, path, h, nil)
	ev.RawQueryString = q.Encode()
	return ev
}

var lamHidden = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

func lambdaOAuth(t *testing.T, invoke lamInvoke) {
	t.Helper()
	saved := lamToken
	lamToken = ""
	defer func() { lamToken = saved }()
	ok := func(what string, r lamReply, status int) lamReply {
		t.Helper()
		if r.HTTP.StatusCode != status {
			t.Fatalf("OAuth %s: HTTP %d %v %q, want %d", what, r.HTTP.StatusCode, r.HTTP.Headers, r.HTTP.Body, status)
		}
		return r
	}
	decode := func(what string, r lamReply, v any) {
		t.Helper()
		if err := json.Unmarshal([]byte(r.HTTP.Body), v); err != nil {
			t.Fatalf("OAuth %s: %v: %q", what, err, r.HTTP.Body)
		}
	}

	var asm oauthex.AuthServerMeta
	decode("AS metadata", ok("AS metadata", lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/.well-known/oauth-authorization-server", nil, nil)), http.StatusOK), &asm)
	if asm.Issuer != lamIssuer || asm.TokenEndpoint != lamIssuer+"/oauth/token" || asm.AuthorizationEndpoint != lamIssuer+"/oauth/authorize" ||
		asm.RegistrationEndpoint != lamIssuer+"/oauth/register" || !asm.ClientIDMetadataDocumentSupported {
		t.Fatalf("AS metadata behind API Gateway: %+v, want the API's own URL as issuer and endpoints", asm)
	}
	var prm oauthex.ProtectedResourceMetadata
	decode("resource metadata", ok("resource metadata", lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil, nil)), http.StatusOK), &prm)
	if prm.Resource != lamIssuer+"/mcp" || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != lamIssuer {
		t.Fatalf("resource metadata: %+v", prm)
	}
	cookie := lamCookie
	lamCookie = ""
	r := lamSend(t, invoke, lamRPCEvent(lamLegacy, 1, "tools/list", nil))
	lamCookie = cookie
	if want := `resource_metadata="` + lamIssuer + `/.well-known/oauth-protected-resource/mcp"`; r.HTTP.StatusCode != http.StatusUnauthorized ||
		!strings.Contains(lamHeader(r.HTTP, "WWW-Authenticate"), want) {
		t.Fatalf("MCP without a credential: HTTP %d, WWW-Authenticate %q, want 401 naming %s", r.HTTP.StatusCode, lamHeader(r.HTTP, "WWW-Authenticate"), want)
	}

	// Registration, as claude.ai sends it.
	redirect := "https://claude.ai/api/mcp/auth_callback"
	reg, _ := json.Marshal(map[string]any{"client_name": "Claude", "redirect_uris": []string{redirect},
		"grant_types": []string{"authorization_code", "refresh_token"}, "token_endpoint_auth_method": "client_secret_post"})
	var client oauthex.ClientRegistrationResponse
	decode("registration", ok("registration", lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodPost, "/oauth/register",
		map[string]string{"content-type": "application/json"}, reg)), http.StatusCreated), &client)

	// The person approves on the board.
	b := make([]byte, 32)
	rand.Read(b)
	verifier := base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {client.ClientID}, "redirect_uri": {redirect}, "state": {"lambda-state"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "resource": {lamIssuer + "/mcp"}}
	page := ok("approval page", lamSend(t, invoke, lamQuery("/oauth/authorize", q, map[string]string{"cookie": lamCookie})), http.StatusOK)
	form := url.Values{}
	for _, m := range lamHidden.FindAllStringSubmatch(page.HTTP.Body, -1) {
		form.Add(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	form.Set("agent_name", "claude")
	form.Set("decision", "allow")
	approved := ok("approve", lamSend(t, invoke, lamForm("/oauth/authorize", form)), http.StatusSeeOther)
	back, err := url.Parse(lamHeader(approved.HTTP, "Location"))
	if err != nil || !strings.HasPrefix(back.String(), redirect+"?") || back.Query().Get("iss") != lamIssuer || back.Query().Get("state") != "lambda-state" {
		t.Fatalf("approve redirected to %q, want the redirect URI with code, state and iss %s", lamHeader(approved.HTTP, "Location"), lamIssuer)
	}

	// The code exchange, through API Gateway.
	tokenEvent := func(f url.Values) events.APIGatewayV2HTTPRequest {
		return lambdatest.HTTPEvent(lamDomain, http.MethodPost, "/oauth/token", map[string]string{"content-type": "application/x-www-form-urlencoded"},
			[]byte(f.Encode()))
	}
	var tok struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
		TokenType    string `json:"token_type"`
	}
	exchanged := ok("code exchange", lamSend(t, invoke, tokenEvent(url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")},
		"redirect_uri": {redirect}, "client_id": {client.ClientID}, "code_verifier": {verifier}})), http.StatusOK)
	decode("code exchange", exchanged, &tok)
	if tok.TokenType != "Bearer" || lamHeader(exchanged.HTTP, "Cache-Control") != "no-store" {
		t.Fatalf("token answer %q %v", exchanged.HTTP.Body, exchanged.HTTP.Headers)
	}

	// MCP as ai:claude for the person, with the access token.
	lamToken = tok.AccessToken
	res := lamOK[board.TicketResult](t, invoke, lamLegacy, "create_ticket", map[string]any{"request_id": "lambda-oauth-1", "workspace": "inbox", "title": "Through a connector"})
	if res.Ticket.CreatedBy != lamAuthor {
		t.Fatalf("created by %s, want %s", res.Ticket.CreatedBy, lamAuthor)
	}
	lamToken = ""
	decode("refresh", ok("refresh", lamSend(t, invoke, tokenEvent(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken},
		"client_id": {client.ClientID}})), http.StatusOK), &tok)
	lamToken = tok.AccessToken
	if again := lamOK[board.TicketResult](t, invoke, lamLegacy, "create_ticket", map[string]any{"request_id": "lambda-oauth-1", "workspace": "inbox",
		"title": "Through a connector"}); !again.Replayed {
		t.Fatalf("the retry after the refresh = %+v, want the replay", again)
	}
	lamToken = ""
	ok("revoke", lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodPost, "/oauth/revoke",
		map[string]string{"content-type": "application/x-www-form-urlencoded"}, []byte(url.Values{"token": {tok.RefreshToken}, "client_id": {client.ClientID}}.Encode()))), http.StatusOK)
	lamToken = tok.AccessToken
	if r := lamSend(t, invoke, lamRPCEvent(lamLegacy, 1, "tools/list", nil)); r.HTTP.StatusCode != http.StatusUnauthorized ||
		!strings.Contains(lamHeader(r.HTTP, "WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("MCP after the revocation: HTTP %d %v, want 401 invalid_token", r.HTTP.StatusCode, r.HTTP.Headers)
	}
}

// lambdaLivePoll is the live board's poll through API Gateway's event and
// the Lambda handler, as a browser sends it: the marker comes back as an
// ETag, 304 while nothing changed (the adapter passes an empty body and
// the header through), 200 with a new ETag after a change. Run inside
// TestLambdaPolicyCoversStoreRequests, so the IAM policy is checked
// against the poll's requests too.
func lambdaLivePoll(t *testing.T, invoke lamInvoke) {
	t.Helper()
	poll := func(path, etag string) lamReply {
		t.Helper()
		h := map[string]string{"cookie": lamCookie}
		if etag != "" {
			h["if-none-match"] = etag
		}
		return lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, path, h, nil))
	}
	first := poll("/w/reference/changes", "")
	etag := lamHeader(first.HTTP, "ETag")
	if first.HTTP.StatusCode != http.StatusOK || !strings.HasPrefix(etag, `"`) {
		t.Fatalf("GET /w/reference/changes on Lambda: HTTP %d, ETag %q; want 200 with a strong ETag", first.HTTP.StatusCode, etag)
	}
	if cc := lamHeader(first.HTTP, "Cache-Control"); !strings.Contains(cc, "no-cache") {
		t.Errorf("GET /w/reference/changes on Lambda: Cache-Control %q, want no-cache", cc)
	}
	if r := poll("/w/reference/changes", etag); r.HTTP.StatusCode != http.StatusNotModified || r.HTTP.Body != "" {
		t.Fatalf("an idle poll on Lambda: HTTP %d %q, want 304 with no body", r.HTTP.StatusCode, r.HTTP.Body)
	}
	page := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/w/reference", map[string]string{"cookie": lamCookie}, nil))
	created := lamSend(t, invoke, lamForm("/w/reference/tickets", url.Values{"request_id": {"lam-live-1"}, "title": {"Seen live"},
		"priority": {"normal"}}))
	if created.HTTP.StatusCode != http.StatusSeeOther || page.HTTP.StatusCode != http.StatusOK {
		t.Fatalf("the board page %d, a ticket from it %d %q", page.HTTP.StatusCode, created.HTTP.StatusCode, created.HTTP.Body)
	}
	if r := poll("/w/reference/changes", etag); r.HTTP.StatusCode != http.StatusOK || lamHeader(r.HTTP, "ETag") == etag {
		t.Fatalf("a poll after a change on Lambda: HTTP %d, ETag %q (was %q); want 200 with a new one", r.HTTP.StatusCode, lamHeader(r.HTTP, "ETag"), etag)
	}
	id := strings.TrimPrefix(lamHeader(created.HTTP, "Location"), "/tickets/")
	tp := poll("/tickets/"+id+"/changes", "")
	if tag := lamHeader(tp.HTTP, "ETag"); tp.HTTP.StatusCode != http.StatusOK || poll("/tickets/"+id+"/changes", tag).HTTP.StatusCode != http.StatusNotModified {
		t.Fatalf("the ticket %q's marker on Lambda: HTTP %d, ETag %q; want 200, then 304 to it", id, tp.HTTP.StatusCode, tag)
	}
}

// lamGateway is API Gateway in front of the functions: each event goes to
// the function template.yaml routes its method and path to.
func lamGateway(t *testing.T, functions map[string]lamInvoke) lamInvoke {
	t.Helper()
	routes := gatewayRoutes(t, loadTemplate(t))
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		name := routedTo(routes, ev.RequestContext.HTTP.Method, ev.RawPath)
		invoke, ok := functions[name]
		if !ok {
			return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("%s %s is routed to %q, which this test did not start", ev.RequestContext.HTTP.Method, ev.RawPath, name)
		}
		return invoke(ctx, ev)
	}
}

// lambdaBoardIsNotFound: the agents' build has no board, so a board's path
// that reaches it (API Gateway sends none there) is not found, while its
// own paths answer.
func lambdaBoardIsNotFound(t *testing.T, invoke lamInvoke) {
	t.Helper()
	for _, c := range []struct {
		method, path string
	}{{http.MethodGet, "/"}, {http.MethodGet, "/signin"}, {http.MethodPost, "/signin"}, {http.MethodGet, "/static/board.css"}, {http.MethodGet, "/oauth/authorize"}} {
		r := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, c.method, c.path, nil, nil))
		if r.HTTP.StatusCode != http.StatusNotFound {
			t.Errorf("the agents' build: %s %s answers HTTP %d %q, want 404 (it has no board)", c.method, c.path, r.HTTP.StatusCode, r.HTTP.Body)
		}
	}
	if r := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/.well-known/oauth-authorization-server", nil, nil)); r.HTTP.StatusCode != http.StatusOK {
		t.Errorf("the agents' build: the OAuth metadata answers HTTP %d, want 200", r.HTTP.StatusCode)
	}
}
