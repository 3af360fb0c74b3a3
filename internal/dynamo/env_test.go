package dynamo_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// TestOpenFromEnv: what the composition root calls for LEDGER_STORE=dynamodb,
// against a local endpoint with no AWS credentials configured.
func TestOpenFromEnv(t *testing.T) {
	ep := minidyn(t)
	env := map[string]string{
		"LEDGER_TABLE":        tableName(),
		"DYNAMODB_ENDPOINT":   ep.url,
		"LEDGER_CREATE_TABLE": "1",
	}
	getenv := func(k string) string { return env[k] }
	// No credentials and no region from the environment: a local endpoint
	// needs neither.
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")

	s, err := dynamo.OpenFromEnv(context.Background(), getenv, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("OpenFromEnv: %v", err)
	}
	svc := newService(t, s)
	if res := mustCreate(t, svc, "env-1", "via env"); res.Ticket.ID != "inbox-1" {
		t.Errorf("create: %s", res.Ticket.ID)
	}
	// A second process on the same table: no creation, the seed is there.
	env["LEDGER_CREATE_TABLE"] = "0"
	s2, err := dynamo.OpenFromEnv(context.Background(), getenv, nil)
	if err != nil {
		t.Fatalf("second OpenFromEnv: %v", err)
	}
	ws, err := s2.ListWorkspaces(context.Background())
	if err != nil || len(ws) != len(board.DefaultWorkspaces()) {
		t.Errorf("workspaces after a second open: %v %v", ws, err)
	}

	for name, bad := range map[string]map[string]string{
		"LEDGER_TABLE is not set": {"DYNAMODB_ENDPOINT": ep.url},
		"is not a boolean":        {"LEDGER_TABLE": "x", "DYNAMODB_ENDPOINT": ep.url, "LEDGER_CREATE_TABLE": "maybe"},
		"does not exist":          {"LEDGER_TABLE": "missing-table", "DYNAMODB_ENDPOINT": ep.url},
	} {
		_, err := dynamo.OpenFromEnv(context.Background(), func(k string) string { return bad[k] }, nil)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("OpenFromEnv(%v): %v, want an error saying %q", bad, err, name)
		}
	}
}
