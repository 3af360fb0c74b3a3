package testbackends

import "testing"

// TestEndpointNames: the neutral name wins over moto's earlier one, which
// still works alone.
func TestEndpointNames(t *testing.T) {
	t.Setenv(EndpointEnv, "")
	t.Setenv(MotoEndpointEnv, "")
	if got := DynamoDBEndpoint(); got != "" {
		t.Fatalf("no variable: %q", got)
	}
	t.Setenv(MotoEndpointEnv, "http://127.0.0.1:1")
	if got := DynamoDBEndpoint(); got != "http://127.0.0.1:1" {
		t.Fatalf("the earlier name alone: %q", got)
	}
	t.Setenv(EndpointEnv, "http://127.0.0.1:2")
	if got := DynamoDBEndpoint(); got != "http://127.0.0.1:2" {
		t.Fatalf("both: %q, want the neutral name's", got)
	}
	if got := MotoEndpoint(t); got != "http://127.0.0.1:2" {
		t.Fatalf("MotoEndpoint: %q", got)
	}
}
