package rest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// hookCall sends one request to a webhook route (they are not in the
// OpenAPI document, so the harness's validation is not used); a creation
// gets a fresh Idempotency-Key.
func (e *env) hookCall(method, path, token string, body any) (int, []byte) {
	e.t.Helper()
	key := ""
	if method == "POST" && path == "" {
		e.hookKeys++
		key = "hook-" + strconv.Itoa(e.hookKeys)
	}
	status, _, raw := e.hookCallKey(method, path, token, key, body)
	return status, raw
}

// hookCallKey sends one request with an Idempotency-Key ("" for none).
func (e *env) hookCallKey(method, path, token, key string, body any) (int, http.Header, []byte) {
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
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, raw
}

// hooksEnv is a server with webhooks on backend.
func hooksEnv(t *testing.T, backend string) *env {
	return newEnv(t, backend, envOptions{hooks: func(store board.Store) *webhook.Service {
		ws, ok := store.(webhook.Store)
		if !ok {
			t.Skipf("the %s store keeps no webhooks", backend)
		}
		return webhook.New(webhook.Config{Store: ws, Secrets: store, Workspaces: store, BaseURL: "http://board.test", AllowPrivate: true})
	}})
}

// A creation sent again with its Idempotency-Key answers the first answer,
// byte for byte, the signing secret included, marked Idempotent-Replayed,
// and makes no second subscription; without a key nothing is created;
// another body under the key is refused.
func TestWebhookCreationRetryAnswersTheFirstAnswer(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := hooksEnv(t, backend)
		body := map[string]any{"url": "http://127.0.0.1:9/hook", "format": "slack"}
		status, h, first := e.hookCallKey("POST", "", "alice", "make-hook", body)
		if status != http.StatusCreated || h.Get("Idempotent-Replayed") != "" {
			t.Fatalf("create: %d %v %s", status, h, first)
		}
		status, h, again := e.hookCallKey("POST", "", "alice", "make-hook", body)
		if status != http.StatusCreated || h.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first, again) {
			t.Fatalf("the retry answered %d %v\n%s\nwant 201, Idempotent-Replayed and\n%s", status, h, again, first)
		}
		if status, body := e.hookCall("GET", "", "alice", nil); status != http.StatusOK || strings.Count(string(body), `"url"`) != 1 {
			t.Fatalf("after the retry: %d %s, want one webhook", status, body)
		}
		status, _, refused := e.hookCallKey("POST", "", "alice", "make-hook", map[string]any{"url": "http://127.0.0.1:9/other"})
		if status != http.StatusUnprocessableEntity || !strings.Contains(string(refused), "request_id_reused") {
			t.Fatalf("another body under the key: %d %s", status, refused)
		}
		status, _, refused = e.hookCallKey("POST", "", "alice", "", body)
		if status != http.StatusBadRequest || !strings.Contains(string(refused), "Idempotency-Key") {
			t.Fatalf("no key: %d %s", status, refused)
		}
		if status, body := e.hookCall("GET", "", "alice", nil); strings.Count(string(body), `"url"`) != 1 {
			t.Fatalf("refused creations wrote: %d %s", status, body)
		}
	})
}

func TestWebhookRoutes(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		received := make(chan string, 10)
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			received <- r.Header.Get("webhook-id")
			w.WriteHeader(http.StatusNoContent)
		}))
		defer receiver.Close()
		e := hooksEnv(t, backend)

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
