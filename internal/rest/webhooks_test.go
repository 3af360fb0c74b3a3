package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// hookCall sends one request to a webhook route of the inbox workspace,
// validated against the OpenAPI document like every call of these tests;
// a creation gets a fresh Idempotency-Key.
func (e *env) hookCall(method, path, token string, body any) (int, []byte) {
	e.t.Helper()
	key := ""
	if method == "POST" && path == "" {
		e.hookKeys++
		key = "hook-" + strconv.Itoa(e.hookKeys)
	}
	a := e.do(call{method: method, path: hooksPath + path, token: e.tokens[token], key: key, body: body})
	return a.status, a.body
}

// hookCallKey sends one request with an Idempotency-Key ("" for none);
// malformed says it breaks the document on purpose.
func (e *env) hookCallKey(method, path, token, key string, body any, malformed bool) (int, http.Header, []byte) {
	e.t.Helper()
	a := e.do(call{method: method, path: hooksPath + path, token: e.tokens[token], key: key, body: body, malformed: malformed})
	return a.status, a.header, a.body
}

const hooksPath = "/api/v1/workspaces/inbox/webhooks"

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
		status, h, first := e.hookCallKey("POST", "", "alice", "make-hook", body, false)
		if status != http.StatusCreated || h.Get("Idempotent-Replayed") != "" {
			t.Fatalf("create: %d %v %s", status, h, first)
		}
		status, h, again := e.hookCallKey("POST", "", "alice", "make-hook", body, false)
		if status != http.StatusCreated || h.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first, again) {
			t.Fatalf("the retry answered %d %v\n%s\nwant 201, Idempotent-Replayed and\n%s", status, h, again, first)
		}
		if status, body := e.hookCall("GET", "", "alice", nil); status != http.StatusOK || strings.Count(string(body), `"url"`) != 1 {
			t.Fatalf("after the retry: %d %s, want one webhook", status, body)
		}
		status, _, refused := e.hookCallKey("POST", "", "alice", "make-hook", map[string]any{"url": "http://127.0.0.1:9/other"}, false)
		if status != http.StatusUnprocessableEntity || !strings.Contains(string(refused), "request_id_reused") {
			t.Fatalf("another body under the key: %d %s", status, refused)
		}
		status, _, refused = e.hookCallKey("POST", "", "alice", "", body, true)
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
		if status, _, body := e.hookCallKey("POST", "", "alice", "unknown-field", map[string]any{"url": receiver.URL, "secret": "mine"}, true); status != http.StatusBadRequest {
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

// Every webhook route is in the OpenAPI document, and what each answers,
// its refusals included (problem details), matches it: every exchange
// below is validated, none is skipped as undocumented.
func TestWebhookRoutesMatchTheDocument(t *testing.T) {
	e := hooksEnv(t, "sqlite")
	doc := decodeAs[struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}](t, e.ok(call{method: "GET", path: "/api/v1/openapi.json"}, http.StatusOK))
	for _, op := range []struct{ method, path, id string }{
		{"post", "/workspaces/{slug}/webhooks", "createWebhook"}, {"get", "/workspaces/{slug}/webhooks", "listWebhooks"},
		{"get", "/workspaces/{slug}/webhooks/{id}", "getWebhook"}, {"delete", "/workspaces/{slug}/webhooks/{id}", "deleteWebhook"},
		{"post", "/workspaces/{slug}/webhooks/{id}/pause", "pauseWebhook"}, {"post", "/workspaces/{slug}/webhooks/{id}/resume", "resumeWebhook"},
		{"post", "/workspaces/{slug}/webhooks/{id}/redeliver", "redeliverWebhookEvent"}, {"post", "/workspaces/{slug}/webhooks/{id}/test", "testWebhook"},
	} {
		if got := doc.Paths[op.path][op.method].OperationID; got != op.id {
			t.Errorf("%s %s: operationId %q, want %q", op.method, op.path, got, op.id)
		}
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer receiver.Close()
	alice := e.tokens["alice"]
	before := e.oapi.responses.Load()
	calls := int64(0)
	send := func(c call, status int, code string) answer {
		t.Helper()
		calls++
		a := e.ok(c, status)
		if code != "" {
			if p := a.problem(t); p.Code != code {
				t.Fatalf("%s %s: code %q, want %q", c.method, c.path, p.Code, code)
			}
		}
		return a
	}
	made := decodeAs[webhook.Created](t, send(call{method: "POST", path: hooksPath, token: alice, key: "doc-1", body: map[string]any{"url": receiver.URL}}, http.StatusCreated, ""))
	one := hooksPath + "/" + made.Subscription.ID
	send(call{method: "POST", path: hooksPath, token: alice, key: "doc-1", body: map[string]any{"url": receiver.URL}}, http.StatusCreated, "")
	send(call{method: "POST", path: hooksPath, token: alice, key: "doc-1", body: map[string]any{"url": receiver.URL + "/x"}}, http.StatusUnprocessableEntity, "request_id_reused")
	send(call{method: "POST", path: hooksPath, token: alice, body: map[string]any{"url": receiver.URL}, malformed: true}, http.StatusBadRequest, "invalid")
	send(call{method: "POST", path: hooksPath, token: alice, key: "doc-2", body: map[string]any{"url": "ftp://x"}}, http.StatusBadRequest, "invalid")
	send(call{method: "POST", path: hooksPath, token: alice, key: "doc-3", body: map[string]any{"url": receiver.URL, "format": "xml"}, malformed: true}, http.StatusBadRequest, "invalid")
	send(call{method: "POST", path: hooksPath, token: alice, key: "doc-4", body: `{"url": "` + strings.Repeat("a", 17<<10) + `"}`}, http.StatusRequestEntityTooLarge, "invalid")
	send(call{method: "POST", path: hooksPath, token: alice, key: "doc-5", body: "url=x", header: map[string]string{"Content-Type": "text/plain"}, malformed: true}, http.StatusUnsupportedMediaType, "invalid")
	send(call{method: "POST", path: hooksPath, token: e.tokens["bob"], key: "doc-6", body: map[string]any{"url": receiver.URL}}, http.StatusForbidden, "forbidden")
	send(call{method: "POST", path: "/api/v1/workspaces/nowhere/webhooks", token: alice, key: "doc-7", body: map[string]any{"url": receiver.URL}}, http.StatusNotFound, "not_found")
	send(call{method: "GET", path: hooksPath, token: ""}, http.StatusUnauthorized, "")
	send(call{method: "GET", path: hooksPath, token: alice}, http.StatusOK, "")
	send(call{method: "GET", path: one, token: alice}, http.StatusOK, "")
	send(call{method: "GET", path: hooksPath + "/wh_none", token: alice}, http.StatusNotFound, "not_found")
	send(call{method: "POST", path: one + "/pause", token: alice}, http.StatusOK, "")
	send(call{method: "POST", path: one + "/resume", token: alice}, http.StatusOK, "")
	send(call{method: "POST", path: one + "/test", token: alice}, http.StatusOK, "")
	send(call{method: "POST", path: hooksPath + "/wh_none/test", token: alice}, http.StatusNotFound, "not_found")

	e.createTicket(alice, "inbox", "doc-ticket", map[string]any{"title": "Something to send again"})
	evs, err := e.b.store.ListEvents(t.Context(), "inbox", 1)
	if err != nil || len(evs) != 1 {
		t.Fatalf("the ticket's event: %v %v", evs, err)
	}
	calls++ // createTicket's call
	send(call{method: "POST", path: one + "/redeliver", token: alice, body: map[string]string{"event_id": evs[0].ID}}, http.StatusOK, "")
	send(call{method: "POST", path: one + "/redeliver", token: alice, body: map[string]string{}, malformed: true}, http.StatusBadRequest, "invalid")

	for i := 1; i < webhook.MaxPerWorkspace; i++ {
		send(call{method: "POST", path: hooksPath, token: alice, key: "fill-" + strconv.Itoa(i), body: map[string]any{"url": receiver.URL}}, http.StatusCreated, "")
	}
	send(call{method: "POST", path: hooksPath, token: alice, key: "one-too-many", body: map[string]any{"url": receiver.URL}}, http.StatusConflict, "conflict")
	send(call{method: "DELETE", path: one, token: alice}, http.StatusNoContent, "")
	send(call{method: "DELETE", path: one, token: alice}, http.StatusNotFound, "not_found")
	if got := e.oapi.responses.Load() - before; got != calls {
		t.Fatalf("%d of %d answers were validated against the document", got, calls)
	}
}

// A webhook may follow one person's inbox: the person must exist (400
// naming the field and what to do, nothing written), and the subscription
// says whose inbox it follows.
func TestWebhookOfOnePersonsInbox(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := hooksEnv(t, backend)
		for _, handle := range []string{"nobody", "human:bob"} {
			status, body := e.hookCall("POST", "", "alice", map[string]any{"url": "http://127.0.0.1:9/hook", "format": "slack", "inbox": handle})
			if status != http.StatusBadRequest || !strings.Contains(string(body), `"code":"invalid"`) || !strings.Contains(string(body), "leave inbox out") {
				t.Fatalf("inbox %q: %d %s, want 400 invalid saying what to do", handle, status, body)
			}
		}
		if status, body := e.hookCall("GET", "", "alice", nil); status != http.StatusOK || strings.Contains(string(body), `"url"`) {
			t.Fatalf("refused creations wrote: %d %s", status, body)
		}
		status, body := e.hookCall("POST", "", "alice", map[string]any{"url": "http://127.0.0.1:9/hook", "format": "slack", "inbox": "bob"})
		var created webhook.Created
		json.Unmarshal(body, &created)
		if status != http.StatusCreated || created.Subscription.Inbox != "bob" {
			t.Fatalf("create for bob's inbox: %d %s", status, body)
		}
		if status, body := e.hookCall("GET", "/"+created.Subscription.ID, "alice", nil); status != http.StatusOK || !strings.Contains(string(body), `"inbox":"bob"`) {
			t.Fatalf("get: %d %s", status, body)
		}
	})
}
