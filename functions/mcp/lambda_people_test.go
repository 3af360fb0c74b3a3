package main

import (
	"context"
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
// lamSignIn before a test's MCP calls; tests in this package do not run in
// parallel.
var lamCookie string

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
	saved := lamCookie
	lamCookie = ""
	defer func() { lamCookie = saved }()
	r := lamSend(t, invoke, lamRPCEvent(lamLegacy, 1, "tools/list", nil))
	if r.HTTP.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(lamHeader(r.HTTP, "WWW-Authenticate"), "Bearer") || r.Error == nil {
		t.Errorf("MCP without a credential: HTTP %d %v %q, want 401, WWW-Authenticate: Bearer and a JSON-RPC error", r.HTTP.StatusCode, r.HTTP.Headers, r.HTTP.Body)
	}
	lamCookie = "__Host-session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	if r := lamSend(t, invoke, lamRPCEvent(lamLegacy, 1, "tools/list", nil)); r.HTTP.StatusCode != http.StatusUnauthorized {
		t.Errorf("MCP with an unknown session: HTTP %d, want 401", r.HTTP.StatusCode)
	}
	lamCookie = ""
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
