package oauth

import (
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

func TestRedirectMatching(t *testing.T) {
	registered := []string{"http://localhost/callback", "http://127.0.0.1:3000/cb?x=1", "https://claude.ai/api/mcp/auth_callback"}
	for given, want := range map[string]bool{
		"https://claude.ai/api/mcp/auth_callback":     true,
		"https://claude.ai/api/mcp/auth_callback/":    false,
		"https://claude.ai:443/api/mcp/auth_callback": false, // exact match, character for character
		"https://CLAUDE.ai/api/mcp/auth_callback":     false,
		"http://localhost:41234/callback":             true,
		"http://localhost/callback":                   true,
		"http://localhost:41234/callback2":            false,
		"http://127.0.0.1:41234/callback":             false, // another loopback name is another URI
		"http://127.0.0.1:9/cb?x=1":                   true,
		"http://127.0.0.1:9/cb?x=2":                   false,
		"https://localhost:41234/callback":            false,
		"http://evil.example/callback":                false,
	} {
		if got := redirectMatches(registered, given); got != want {
			t.Errorf("redirectMatches(%q) = %v, want %v", given, got, want)
		}
	}
}

func TestDefaultAgentName(t *testing.T) {
	for in, want := range map[string]string{"Claude": "claude", "Claude Code": "claude-code", "  My  App!! v2 ": "my-app-v2",
		"": "agent", "日本": "agent", "an unnamed app": "agent", "a.b_c": "a.b_c", strings.Repeat("x", 80): strings.Repeat("x", 64)} {
		if got := DefaultAgentName(in); got != want {
			t.Errorf("DefaultAgentName(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzDefaultAgentNameIsValid: whatever a client calls itself, the name
// the approval page suggests passes the agent name check, so approving
// without editing it never fails.
func FuzzDefaultAgentNameIsValid(f *testing.F) {
	for _, seed := range []string{"Claude", "Claude Code", "-x-", "a.-_b", strings.Repeat("é", 70), strings.Repeat("ab-", 30), "K", "\u212a"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, clientName string) {
		name := DefaultAgentName(clientName)
		if _, err := board.ValidateAgentName(name); err != nil {
			t.Fatalf("DefaultAgentName(%q) = %q, which the check refuses: %v", clientName, name, err)
		}
	})
}

func TestDocumentCacheLifetime(t *testing.T) {
	for cc, want := range map[string]time.Duration{"": time.Hour, "max-age=600": 10 * time.Minute, "public, max-age=10": 5 * time.Minute,
		"max-age=999999": 24 * time.Hour, "no-store": 5 * time.Minute, "max-age=7200, s-maxage=1200": 20 * time.Minute, "max-age=abc": time.Hour} {
		if got := cacheLifetime(cc); got != want {
			t.Errorf("cacheLifetime(%q) = %v, want %v", cc, got, want)
		}
	}
}

func TestTokenShape(t *testing.T) {
	tok := newToken(accessPrefix, "0123456789abcdef")
	if id, ok := parseToken(accessPrefix, tok); !ok || id != "0123456789abcdef" {
		t.Fatalf("parseToken(%q) = %q, %v", tok, id, ok)
	}
	for _, bad := range []string{tok[:len(tok)-1], tok + "A", strings.Replace(tok, ".", "_", 1), "tla_0123456789ABCDEF." + tok[21:],
		newToken(refreshPrefix, "0123456789abcdef")} {
		if _, ok := parseToken(accessPrefix, bad); ok {
			t.Errorf("parseToken(%q) accepted a malformed token", bad)
		}
	}
}
