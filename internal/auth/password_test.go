package auth

import (
	"context"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

func TestPasswordHashing(t *testing.T) {
	ctx := context.Background()
	h, err := HashPassword(ctx, "correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=3,p=4$") {
		t.Fatalf("hash %q does not carry RFC 9106's second recommended parameters", h)
	}
	p, err := parseHash(h)
	if err != nil || len(p.salt) != 16 || len(p.key) != 32 {
		t.Fatalf("salt %d bytes, tag %d bytes (%v); want 16 and 32", len(p.salt), len(p.key), err)
	}
	if h2, _ := HashPassword(ctx, "correct horse battery staple"); h2 == h {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
	if ok, err := VerifyPassword(ctx, "correct horse battery staple", h); !ok || err != nil {
		t.Fatalf("the right password: %v %v", ok, err)
	}
	if ok, _ := VerifyPassword(ctx, "correct horse battery stapl", h); ok {
		t.Fatal("a wrong password verified")
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=65536,t=3,p=4$AAAA$AAAA", "$argon2id$v=19$m=9999999,t=3,p=4$" + strings.Repeat("A", 22) + "$" + strings.Repeat("A", 43)} {
		if _, err := VerifyPassword(ctx, "x", bad); err == nil {
			t.Errorf("hash %q accepted", bad)
		}
	}
	if _, err := parseHash(dummyHash); err != nil {
		t.Fatalf("the dummy hash must parse, so an unknown handle costs a real check: %v", err)
	}
}

// A bearer verifier plugs into the resolver: what API tokens and OAuth
// grants will do.
func TestResolverBearerVerifiers(t *testing.T) {
	r := NewResolver(ResolverConfig{Mode: ModeRequired})
	r.AddBearer(func(_ context.Context, tok string) (board.Principal, bool, error) {
		if !strings.HasPrefix(tok, "tl_") {
			return board.Principal{}, false, nil
		}
		if tok != "tl_good" {
			return board.Principal{}, true, ErrBadCredential
		}
		return board.Principal{Author: "ai:claude", OnBehalfOf: "human:alice"}, true, nil
	})
	req := httptest.NewRequest("POST", "/mcp", nil)
	if _, err := r.Resolve(req, SurfaceAPI); err != ErrNoCredential {
		t.Fatalf("no credential: %v", err)
	}
	for tok, want := range map[string]bool{"tl_good": true, "tl_bad": false, "other": false} {
		req.Header.Set("Authorization", "Bearer "+tok)
		p, err := r.Resolve(req, SurfaceAPI)
		if ok := err == nil; ok != want || (ok && p.LedgerKey() != "ai:claude|human:alice") || (!ok && !Unauthorized(err)) {
			t.Errorf("token %s: %+v %v", tok, p, err)
		}
	}
	// The web board does not take bearer tokens.
	req.Header.Set("Authorization", "Bearer tl_good")
	if _, err := r.Resolve(req, SurfaceWeb); err != ErrNoCredential {
		t.Fatalf("bearer on the web board: %v", err)
	}
}

// BenchmarkHashPassword is the cost of one sign-in's hash: time, and the
// memory argon2id touches (64 MiB per hash).
func BenchmarkHashPassword(b *testing.B) {
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		if _, err := HashPassword(ctx, "correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MiB/op")
}
