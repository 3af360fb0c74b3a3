package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	miniserver "github.com/truora/minidyn/server"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
)

// What a team server adds leaves Lambda as it was: with a custom domain in
// LEDGER_BASE_URL the API's own name is still served (no public-host check
// there) and the OAuth documents name the custom domain; without it they
// name the API's own URL from the event. API Gateway's X-Forwarded-For is
// not believed (no trusted proxy): OAuth registration still counts the
// event's source address, however the header varies.
func TestTeamLambdaKeepsItsPublicURL(t *testing.T) {
	mini := httptest.NewServer(miniserver.NewServer())
	t.Cleanup(mini.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	ctx := context.Background()
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: mini.URL})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct{ baseURL, issuer string }{
		{"https://board.example.com", "https://board.example.com"},
		{"", "https://" + lamDomain},
	} {
		table := fmt.Sprintf("team-lambda-%d", i)
		if err := dynamo.CreateTable(ctx, client, table); err != nil {
			t.Fatal(err)
		}
		fn, err := newLambdaFunction(ctx, lambdaGetenv(mapEnv(map[string]string{envTable: table, envEndpoint: mini.URL, envBaseURL: c.baseURL})),
			slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		invoke := lamInvoke(fn.Handle)
		r := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/.well-known/oauth-authorization-server", nil, nil))
		var doc struct {
			Issuer string `json:"issuer"`
		}
		if r.HTTP.StatusCode != http.StatusOK || json.Unmarshal([]byte(r.HTTP.Body), &doc) != nil || doc.Issuer != c.issuer {
			t.Fatalf("LEDGER_BASE_URL=%q, reached as %s: HTTP %d %q; want 200 naming %s", c.baseURL, lamDomain, r.HTTP.StatusCode, r.HTTP.Body, c.issuer)
		}
		for n := range 11 {
			ev := lambdatest.HTTPEvent(lamDomain, http.MethodPost, "/oauth/register",
				map[string]string{"Content-Type": "application/json", "X-Forwarded-For": fmt.Sprintf("203.0.113.%d", n+1)}, []byte(`{}`))
			r := lamSend(t, invoke, ev)
			if limited := r.HTTP.StatusCode == http.StatusTooManyRequests; limited != (n == 10) {
				t.Fatalf("registration %d from one source address with a new X-Forwarded-For: HTTP %d; want 429 only for the 11th", n+1, r.HTTP.StatusCode)
			}
		}
	}
}
