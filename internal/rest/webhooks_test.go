package rest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// hookCall sends one request to a webhook route (they are not in the
// OpenAPI document, so the harness's validation is not used).
func (e *env) hookCall(method, path, token string, body any) (int, []byte) {
	e.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.url+"/api/v1/workspaces/inbox/webhooks"+path, r)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+e.tokens[token])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

func TestWebhookRoutes(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		received := make(chan string, 10)
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			received <- r.Header.Get("webhook-id")
			w.WriteHeader(http.StatusNoContent)
		}))
		defer receiver.Close()
		e := newEnv(t, backend, envOptions{hooks: func(store board.Store) *webhook.Service {
			ws, ok := store.(webhook.Store)
			if !ok {
				t.Skipf("the %s store keeps no webhooks", backend)
			}
			return webhook.New(webhook.Config{Store: ws, Secrets: store, Workspaces: store, BaseURL: "http://board.test", AllowPrivate: true})
		}})

		status, body := e.hookCall("POST", "", "alice", map[string]any{"url": receiver.URL, "events": []any{"ticket.created", map[string]string{"kind": "ticket.moved", "to": "waiting_human"}}})
		if status != http.StatusCreated {
			t.Fatalf("create: %d %s", status, body)
		}
		var created webhook.Created
		json.Unmarshal(body, &created)
		id := created.Subscription.ID
		if !strings.HasPrefix(created.Secret, "whsec_") || id == "" || created.Subscription.CreatedBy != "human:alice" || len(created.Subscription.Events) != 2 {
			t.Fatalf("create answered %s", body)
		}
		for _, who := range []string{"bob", "claude"} {
			if status, body := e.hookCall("POST", "", who, map[string]any{"url": receiver.URL}); status != http.StatusForbidden {
				t.Fatalf("%s created a webhook: %d %s", who, status, body)
			}
			if status, _ := e.hookCall("GET", "", who, nil); status != http.StatusForbidden {
				t.Fatalf("%s listed webhooks: %d", who, status)
			}
		}
		if status, body := e.hookCall("POST", "", "alice", map[string]any{"url": receiver.URL, "secret": "mine"}); status != http.StatusBadRequest {
			t.Fatalf("an unknown field: %d %s", status, body)
		}
		if status, body := e.hookCall("POST", "", "alice", map[string]any{"url": "ftp://x"}); status != http.StatusUnprocessableEntity && status != http.StatusBadRequest {
			t.Fatalf("a bad url: %d %s", status, body)
		}

		status, body = e.hookCall("GET", "", "alice", nil)
		if status != http.StatusOK || !strings.Contains(string(body), id) || strings.Contains(string(body), "whsec_") {
			t.Fatalf("list: %d %s", status, body)
		}
		status, body = e.hookCall("POST", "/"+id+"/test", "alice", nil)
		var a webhook.Attempt
		json.Unmarshal(body, &a)
		if status != http.StatusOK || !a.OK || a.Status != http.StatusNoContent {
			t.Fatalf("test event: %d %s", status, body)
		}
		if got := <-received; got != a.EventID {
			t.Fatalf("the receiver got %s, the attempt names %s", got, a.EventID)
		}
		status, body = e.hookCall("POST", "/"+id+"/pause", "alice", nil)
		if status != http.StatusOK || !strings.Contains(string(body), `"paused":true`) || !strings.Contains(string(body), "paused by human:alice") {
			t.Fatalf("pause: %d %s", status, body)
		}
		status, body = e.hookCall("POST", "/"+id+"/resume", "alice", nil)
		if status != http.StatusOK || !strings.Contains(string(body), `"paused":false`) {
			t.Fatalf("resume: %d %s", status, body)
		}
		status, body = e.hookCall("POST", "/"+id+"/redeliver", "alice", map[string]string{"event_id": "nope"})
		if status != http.StatusNotFound {
			t.Fatalf("redeliver of a missing event: %d %s", status, body)
		}
		status, body = e.hookCall("GET", "/"+id, "alice", nil)
		var d webhook.Detail
		json.Unmarshal(body, &d)
		if status != http.StatusOK || len(d.Deliveries) != 1 || d.Deliveries[0].Kind != webhook.AttemptTest {
			t.Fatalf("get: %d %s", status, body)
		}
		if status, body := e.hookCall("DELETE", "/"+id, "alice", nil); status != http.StatusNoContent {
			t.Fatalf("delete: %d %s", status, body)
		}
		if status, _ := e.hookCall("GET", "/"+id, "alice", nil); status != http.StatusNotFound {
			t.Fatalf("get after delete: %d", status)
		}
	})
}
