package main

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	miniserver "github.com/truora/minidyn/server"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestConfigDefaults(t *testing.T) {
	c, err := loadConfig(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.DataDir != "./data" || c.Store != "sqlite" || c.Retention != 24*time.Hour ||
		c.BaseURL != "http://127.0.0.1:8080" || c.Author != "" {
		t.Fatalf("defaults = %+v", c)
	}
	if p := c.principal(); p.Author != "" || !strings.Contains(p.NoAuthorReason, "LEDGER_AUTHOR=ai:<name>") {
		t.Fatalf("principal without author = %+v", p)
	}
}

func TestConfigRefusesBadValues(t *testing.T) {
	for _, c := range []struct {
		kv   map[string]string
		want string
	}{
		{map[string]string{"LEDGER_AUTHOR": "human"}, "must be ai:<name>"},
		{map[string]string{"LEDGER_AUTHOR": "ai:"}, "must be ai:<name>"},
		{map[string]string{"LEDGER_RETENTION": "30m"}, "below the minimum"},
		{map[string]string{"LEDGER_RETENTION": "a day"}, "not a duration"},
		{map[string]string{"LEDGER_STORE": "postgres"}, "sqlite or dynamodb"},
		{map[string]string{"LEDGER_CREATE_TABLE": "maybe"}, "is not a boolean"},
		{map[string]string{"LEDGER_DYNAMODB_SERIALIZE_WRITES": "yes please"}, "LEDGER_DYNAMODB_SERIALIZE_WRITES"},
	} {
		if _, err := loadConfig(env(c.kv)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.kv, err, c.want)
		}
	}
	c, err := loadConfig(env(map[string]string{"LEDGER_AUTHOR": "ai:claude", "LEDGER_RETENTION": "36h", "LEDGER_ALLOWED_ORIGINS": "https://a.test/, https://b.test"}))
	if err != nil || c.Author != "ai:claude" || c.Retention != 36*time.Hour || strings.Join(c.AllowedOrigins, ",") != "https://a.test,https://b.test" {
		t.Fatalf("config = %+v, %v", c, err)
	}
}

// Serialized DynamoDB writes are an explicit setting, off by default: an
// endpoint URL alone (a regional, FIPS or VPC endpoint is DynamoDB itself)
// never turns them on, and the store opened gets what the setting says.
func TestSerializeWritesIsExplicit(t *testing.T) {
	mini := httptest.NewServer(miniserver.NewServer())
	t.Cleanup(mini.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	for _, c := range []struct {
		setting string
		want    bool
	}{{"", false}, {"0", false}, {"1", true}, {"true", true}} {
		kv := map[string]string{"LEDGER_STORE": "dynamodb", "DYNAMODB_ENDPOINT": mini.URL, "LEDGER_CREATE_TABLE": "1",
			"LEDGER_TABLE": fmt.Sprintf("serialize-%d", time.Now().UnixNano())}
		if c.setting != "" {
			kv["LEDGER_DYNAMODB_SERIALIZE_WRITES"] = c.setting
		}
		cfg, err := loadConfig(env(kv))
		if err != nil {
			t.Fatal(err)
		}
		st, err := openStore(t.Context(), cfg, slog.New(slog.DiscardHandler), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.(*dynamo.Store).SerializesWrites(); got != c.want {
			t.Errorf("LEDGER_DYNAMODB_SERIALIZE_WRITES=%q with DYNAMODB_ENDPOINT set: store serializes writes = %v, want %v", c.setting, got, c.want)
		}
	}
}
