package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
)

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
