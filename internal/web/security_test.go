package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/web"
)

func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeRequired)
	b := e.browser()
	for _, path := range []string{"/signin", "/", "/nowhere"} {
		r := b.get(path)
		h := r.header
		csp := h.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") ||
			!strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", path, h)
		}
	}
	if r := b.get("/nowhere"); r.status != http.StatusNotFound {
		t.Errorf("an unknown page signed out: %d, want 404", r.status)
	}
	// No page has inline script: every <script> has a src.
	page := b.get("/signin").body
	if regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`).MatchString(page) || strings.Contains(page, " on") && regexp.MustCompile(`\son[a-z]+=`).MatchString(page) {
		t.Errorf("the sign-in page has inline script")
	}
}

// Forms posted from another site are refused and write nothing.
func TestCrossSiteFormsAreRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeLoopback)
		b := e.browser()
		for _, hdr := range []map[string]string{
			{"Sec-Fetch-Site": "cross-site"},
			{"Origin": "https://evil.example"},
		} {
			req, _ := http.NewRequest(http.MethodPost, e.url+"/w/inbox/tickets", strings.NewReader(url.Values{"request_id": {"x-1"}, "title": {"forged"}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			if r := b.do(req); r.status != http.StatusForbidden {
				t.Errorf("cross-site post with %v: %d, want 403", hdr, r.status)
			}
		}
		if n := e.ticketCount("inbox"); n != 0 {
			t.Fatalf("%d tickets after forged posts", n)
		}
	})
}

// In loopback mode (no sign-in) the board is the local person's without a
// sign-in page. (That other Host names are refused on every surface is
// the composition root's test: TestRebindingHostRefusedOnEverySurface.)
func TestLoopbackBoardNeedsNoSignIn(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeLoopback)
	b := e.browser()
	if r := b.get("/"); r.status != http.StatusOK || !strings.Contains(r.body, "human:local") {
		t.Fatalf("GET on loopback: %d", r.status)
	}
	if r := b.get("/signin"); r.status != http.StatusSeeOther {
		t.Fatalf("the sign-in page in loopback mode: %d, want a redirect home", r.status)
	}
}

// Everything people or agents write is escaped; Markdown has no raw HTML
// and no script links.
func TestUserTextIsInert(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeLoopback)
	b := e.browser()
	const xss = `<img src=x onerror=alert(1)>`
	b.post("/w/inbox/tickets", url.Values{"request_id": {"x-1"}, "title": {xss}, "tags": {"a"},
		"body": {"<script>alert(2)</script>\n\n[click](javascript:alert(3)) <b onmouseover=alert(4)>b</b>"}})
	b.post("/tickets/inbox-1/notes", url.Values{"request_id": {"x-2"}, "body": {"**ok**\n\n<iframe src=https://evil.example></iframe>"}})
	for _, path := range []string{"/tickets/inbox-1", "/w/inbox"} {
		body := b.get(path).body
		if strings.Contains(body, "<img src=x") || strings.Contains(body, "<script>alert") || strings.Contains(body, "<iframe") ||
			strings.Contains(body, `href="javascript:`) || strings.Contains(body, "<b onmouseover") {
			t.Errorf("%s renders user text as HTML:\n%s", path, body)
		}
		if !strings.Contains(body, "&lt;img src=x onerror=alert(1)&gt;") {
			t.Errorf("%s does not show the title as text", path)
		}
	}
	if body := b.get("/tickets/inbox-1").body; !strings.Contains(body, "<strong>ok</strong>") {
		t.Error("Markdown is not rendered")
	}
}

func TestStaticAssets(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeRequired)
	b := e.browser()
	page := b.get("/signin").body
	m := regexp.MustCompile(`src="(/static/[0-9a-f]+/htmx\.min\.js)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page does not load htmx from /static")
	}
	r := b.get(m[1])
	sum := sha256.Sum256([]byte(r.body))
	if r.status != http.StatusOK || hex.EncodeToString(sum[:]) != web.HTMXSHA256 || !strings.Contains(r.body, web.HTMXVersion) {
		t.Fatalf("htmx: %d, sha256 %x", r.status, sum)
	}
	if cc := r.header.Get("Cache-Control"); !strings.Contains(cc, "max-age=31536000") || !strings.Contains(cc, "immutable") {
		t.Errorf("htmx Cache-Control %q", cc)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("htmx Content-Type %q", ct)
	}
	if r := b.get("/static/000000000000/htmx.min.js"); r.status != http.StatusNotFound {
		t.Errorf("a stale asset URL: %d, want 404", r.status)
	}
	if strings.Contains(page, "//unpkg") || strings.Contains(page, "cdn") {
		t.Error("the page loads something from a CDN")
	}
}

// The vendored file is the pinned one.
func TestVendoredHTMX(t *testing.T) {
	b, err := os.ReadFile("static/htmx.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != web.HTMXSHA256 {
		t.Fatalf("static/htmx.min.js has sha256 %x, pinned %s (scripts/vendor-htmx.sh)", sum, web.HTMXSHA256)
	}
	script, err := os.ReadFile("../../scripts/vendor-htmx.sh")
	if err != nil || !strings.Contains(string(script), "HTMX_VERSION="+web.HTMXVersion) {
		t.Fatalf("scripts/vendor-htmx.sh does not pin %s", web.HTMXVersion)
	}
}

// MCP without a credential in required mode: 401 and a Bearer challenge.
// In loopback mode MCP runs as the configured agent, and what it writes
// appears on the board with its author.
func TestMCPCredentials(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, auth.ModeRequired)
		req, _ := http.NewRequest(http.MethodPost, e.url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		r := e.browser().do(req)
		if r.status != http.StatusUnauthorized || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") || !strings.Contains(r.body, `"error"`) {
			t.Fatalf("MCP without a credential: %d %v %s", r.status, r.header, r.body)
		}
		req.Header.Set("Authorization", "Bearer not-a-token")
		req.Body = http.NoBody
		if r := e.browser().do(req); r.status != http.StatusUnauthorized {
			t.Fatalf("MCP with an unknown token: %d", r.status)
		}

		local := newEnv(t, backend, auth.ModeLoopback)
		cs := mcpClient(t, local.url)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_ticket",
			Arguments: map[string]any{"request_id": "m-1", "workspace": "inbox", "title": "From an agent"}})
		if err != nil || res.IsError {
			t.Fatalf("create_ticket over MCP: %v %+v", err, res)
		}
		page := local.browser().get("/tickets/inbox-1")
		if !strings.Contains(page.body, "From an agent") || !strings.Contains(page.body, "ai:agent") {
			t.Fatal("the agent's ticket is not on the board with its author")
		}
	})
}

func mcpClient(t *testing.T, base string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "web-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A person signed in may use /mcp with the session cookie, as themselves:
// hidden workspaces are listed for people.
func TestSessionOnMCPIsThePerson(t *testing.T) {
	e := newEnv(t, "sqlite", auth.ModeRequired)
	e.addPerson("alice", board.RoleMember)
	b := e.browser()
	b.signIn("alice", testPassword)
	req, _ := http.NewRequest(http.MethodPost, e.url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_workspaces","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	r := b.do(req)
	if r.status != http.StatusOK || !strings.Contains(r.body, `\"slug\":\"private\"`) {
		t.Fatalf("list_workspaces with alice's session: %d %s", r.status, r.body)
	}
}
