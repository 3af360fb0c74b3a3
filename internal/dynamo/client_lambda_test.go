//go:build lambda

package dynamo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// The Lambda build's client takes region and credentials from the
// environment only (make lambda-test runs this with -tags lambda).
func TestLambdaClientFromEnvironment(t *testing.T) {
	ep := minidyn(t)
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"} {
		t.Setenv(k, "")
	}
	if _, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{}); err == nil || !strings.Contains(err.Error(), "AWS_REGION") {
		t.Fatalf("no region: %v", err)
	}
	t.Setenv("AWS_REGION", "eu-west-1")
	if _, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{}); err == nil || !strings.Contains(err.Error(), "credentials") {
		t.Fatalf("no credentials: %v", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_SESSION_TOKEN", "token")
	client, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: ep.url})
	if err != nil {
		t.Fatal(err)
	}
	o := client.Options()
	creds, err := o.Credentials.Retrieve(context.Background())
	if o.Region != "eu-west-1" || err != nil || creds.AccessKeyID != "AKIDTEST" || creds.SessionToken != "token" {
		t.Fatalf("region %q creds %+v %v", o.Region, creds, err)
	}
	s, err := dynamo.Connect(context.Background(), dynamo.Endpoint{URL: ep.url, Table: tableName(), CreateTable: true}, nil)
	if err != nil {
		t.Fatalf("Connect with the Lambda client: %v", err)
	}
	if ws, err := s.ListWorkspaces(context.Background()); err != nil || len(ws) != 3 {
		t.Fatalf("workspaces: %v %v", ws, err)
	}
}
