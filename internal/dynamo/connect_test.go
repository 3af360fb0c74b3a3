package dynamo_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// TestConnect: what the composition root calls for LEDGER_STORE=dynamodb,
// against a local endpoint with no AWS credentials configured.
func TestConnect(t *testing.T) {
	ep := minidyn(t)
	// No credentials and no region from the environment: a local endpoint
	// needs neither.
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")

	table := tableName()
	s, err := dynamo.Connect(context.Background(), dynamo.Endpoint{URL: ep.url, Table: table, CreateTable: true}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	// An endpoint URL alone never serializes writes (a regional, FIPS or VPC
	// endpoint is DynamoDB itself); only the explicit setting does.
	if s.SerializesWrites() {
		t.Error("Connect with an endpoint URL serializes writes without being asked")
	}
	svc := newService(t, s)
	if res := mustCreate(t, svc, "connect-1", "via Connect"); res.Ticket.ID != "inbox-1" {
		t.Errorf("create: %s", res.Ticket.ID)
	}
	// A second process on the same table: no creation, the seed is there.
	s2, err := dynamo.Connect(context.Background(), dynamo.Endpoint{URL: ep.url, Table: table, SerializeWrites: true}, nil)
	if err != nil {
		t.Fatalf("second Connect: %v", err)
	}
	if !s2.SerializesWrites() {
		t.Error("Endpoint.SerializeWrites did not reach the store")
	}
	ws, err := s2.ListWorkspaces(context.Background())
	if err != nil || len(ws) != len(board.DefaultWorkspaces()) {
		t.Errorf("workspaces after a second open: %v %v", ws, err)
	}

	for want, bad := range map[string]dynamo.Endpoint{
		"Table is required": {URL: ep.url},
		"does not exist":    {URL: ep.url, Table: "missing-table"},
	} {
		_, err := dynamo.Connect(context.Background(), bad, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Connect(%+v): %v, want an error saying %q", bad, err, want)
		}
	}
}
