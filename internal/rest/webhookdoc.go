package rest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ticket-ledger/ticket-ledger/internal/apischema"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// The webhook routes are served by webhooks.go, not declared as operations
// (they are no MCP tools), so their part of the document is declared here:
// the schemas still come from the Go types the routes read and answer, and
// the REST tests validate every webhook exchange against this document, so
// the two cannot drift apart unnoticed.

// webhookRoute is one webhook route as the document describes it.
type webhookRoute struct {
	method, pattern, id, summary, description string
	status                                    int
	// write: an Idempotency-Key is required and a retry replays (only a
	// creation; the other actions are safe to repeat or send once more
	// by design).
	write    bool
	body     *jsonschema.Schema // nil: no body
	result   *jsonschema.Schema // nil: no content (204)
	problems []int
}

// webhookBase is where a workspace's webhooks are, under Prefix.
const webhookBase = "/workspaces/{slug}/webhooks"

func webhookRoutes() []webhookRoute {
	sub := subscriptionSchema()
	attempt := apischema.For[webhook.Attempt]()
	created := apischema.For[webhook.Created]()
	created.Properties["subscription"] = sub
	created.Properties["secret"].Description = "the signing secret (whsec_…): shown in this answer only (and its replays)"
	detail := apischema.For[webhook.Detail]()
	detail.Properties["subscription"] = sub
	detail.Properties["deliveries"].Items = attempt
	list := &jsonschema.Schema{Type: "object", Required: []string{"webhooks"}, AdditionalProperties: falseSchema(),
		Properties: map[string]*jsonschema.Schema{"webhooks": {Type: "array", Items: sub}}}
	redeliver := &jsonschema.Schema{Type: "object", Required: []string{"event_id"}, AdditionalProperties: falseSchema(),
		Properties: map[string]*jsonschema.Schema{"event_id": {Type: "string", MinLength: jsonschema.Ptr(1),
			Description: "the id of the event to send again: the webhook-id of its delivery in the log"}}}
	admin := "Admins only (403 for anyone else). Served where the server delivers webhooks (the local and team server; elsewhere 404)."
	one := []int{http.StatusForbidden, http.StatusNotFound}
	return []webhookRoute{
		{method: "POST", pattern: webhookBase, id: "createWebhook", summary: "Subscribe a URL to the workspace's events",
			description: "Deliveries are signed (Standard Webhooks) and start with the workspace's next event. The answer carries the signing secret, the one time it is shown: a retry with the same Idempotency-Key and body replays this answer, the same subscription and the same secret (never a second one). " +
				"A workspace has at most " + strconv.Itoa(webhook.MaxPerWorkspace) + " webhooks (409 beyond). " + admin,
			status: http.StatusCreated, write: true, body: createWebhookSchema(), result: created,
			problems: []int{http.StatusForbidden, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType}},
		{method: "GET", pattern: webhookBase, id: "listWebhooks", summary: "List the workspace's webhooks",
			description: "Oldest first, without their secrets. " + admin, status: http.StatusOK, result: list, problems: one},
		{method: "GET", pattern: webhookBase + "/{id}", id: "getWebhook", summary: "A webhook and its delivery log",
			description: "The subscription and its newest delivery attempts (up to " + strconv.Itoa(webhook.KeepAttempts) + ", newest first): time, status, latency, the start of the answer. " + admin,
			status:      http.StatusOK, result: detail, problems: one},
		{method: "DELETE", pattern: webhookBase + "/{id}", id: "deleteWebhook", summary: "Delete a webhook",
			description: "Deletes the subscription and its delivery log; nothing more is sent to it. " + admin, status: http.StatusNoContent, problems: one},
		{method: "POST", pattern: webhookBase + "/{id}/pause", id: "pauseWebhook", summary: "Pause a webhook",
			description: "Nothing is sent until it is resumed; events meanwhile wait (the cursor stays). Safe to repeat, so it takes no Idempotency-Key. " + admin,
			status:      http.StatusOK, result: sub, problems: one},
		{method: "POST", pattern: webhookBase + "/{id}/resume", id: "resumeWebhook", summary: "Resume a webhook",
			description: "Clears the failures and tries the held event at once. Safe to repeat, so it takes no Idempotency-Key. " + admin,
			status:      http.StatusOK, result: sub, problems: one},
		{method: "POST", pattern: webhookBase + "/{id}/redeliver", id: "redeliverWebhookEvent", summary: "Send one event again",
			description: "Posts the event now with its own webhook-id (receivers that drop duplicates drop it) and logs the attempt. Each call sends once more, so it takes no Idempotency-Key. " + admin,
			status:      http.StatusOK, body: redeliver, result: attempt,
			problems: []int{http.StatusForbidden, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType}},
		{method: "POST", pattern: webhookBase + "/{id}/test", id: "testWebhook", summary: "Send a test event",
			description: "Posts a webhook.test event now and logs the attempt. Each call sends once more, so it takes no Idempotency-Key. " + admin,
			status:      http.StatusOK, result: attempt, problems: one},
	}
}

// subscriptionSchema is a subscription as answers show it.
func subscriptionSchema() *jsonschema.Schema {
	s := apischema.For[webhook.Subscription]()
	s.Properties["format"] = formatSchema()
	return s
}

// createWebhookSchema is the body of createWebhook. An event filter is a
// kind, or an object naming a kind (and for ticket.moved the status moved
// to): EventFilter takes both.
func createWebhookSchema() *jsonschema.Schema {
	s := apischema.For[webhook.CreateInput]()
	kinds := &jsonschema.Schema{Type: "string"}
	for _, k := range webhook.Kinds {
		kinds.Enum = append(kinds.Enum, k)
	}
	object := apischema.For[webhook.EventFilter]()
	object.Properties["kind"] = kinds
	s.Properties["events"] = &jsonschema.Schema{Type: "array", Description: "the events to send (all when absent or empty): a kind, or {\"kind\": \"ticket.moved\", \"to\": \"waiting_human\"}",
		Items: &jsonschema.Schema{OneOf: []*jsonschema.Schema{kinds, object}}}
	s.Properties["format"] = formatSchema()
	s.Properties["format"].Description = "json (the default) or slack (a Slack incoming-webhook message)"
	s.Properties["url"].Description = "where deliveries are posted: https on a public address"
	s.Properties["inbox"].Description = "a person's handle (alice): only the events that put an item in that person's inbox are sent (mentions, assignments, their tickets waiting for a person, notes and moves on their tickets); a Slack message then addresses them (\"ai:claude needs you on ops-42\"). The person must exist (400 invalid otherwise)"
	return s
}

func formatSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Enum: []any{string(webhook.FormatJSON), string(webhook.FormatSlack)}}
}

func falseSchema() *jsonschema.Schema { return &jsonschema.Schema{Not: &jsonschema.Schema{}} }

// addWebhookPaths puts the webhook routes into the document's paths.
func addWebhookPaths(paths obj) {
	for _, rt := range webhookRoutes() {
		item, _ := paths[rt.pattern].(obj)
		if item == nil {
			item = obj{}
			paths[rt.pattern] = item
		}
		item[strings.ToLower(rt.method)] = rt.operation()
	}
}

func (rt webhookRoute) operation() obj {
	params := []any{obj{"name": "slug", "in": "path", "required": true, "schema": obj{"type": "string", "description": "the workspace's slug"}}}
	if rt.pattern != webhookBase {
		params = append(params, obj{"name": "id", "in": "path", "required": true, "schema": obj{"type": "string", "description": "the webhook's id (wh_…)"}})
	}
	problems := append(slices.Clone(readProblems), rt.problems...)
	ok := obj{"description": http.StatusText(rt.status)}
	if rt.result != nil {
		ok["content"] = obj{"application/json": obj{"schema": schemaJSON(rt.result)}}
	}
	if rt.write {
		params = append(params, idempotencyKeyParam())
		ok["headers"] = obj{"Idempotent-Replayed": obj{"$ref": "#/components/headers/Idempotent-Replayed"}}
		problems = append(problems, writeProblems...)
	}
	responses := obj{strconv.Itoa(rt.status): ok}
	slices.Sort(problems)
	for _, status := range slices.Compact(problems) {
		responses[strconv.Itoa(status)] = obj{"description": http.StatusText(status),
			"content": obj{"application/problem+json": obj{"schema": obj{"$ref": "#/components/schemas/Problem"}}}}
	}
	out := obj{"operationId": rt.id, "summary": rt.summary, "description": rt.description,
		"parameters": params, "responses": responses}
	if rt.body != nil {
		out["requestBody"] = obj{"required": true, "content": obj{"application/json": obj{"schema": schemaJSON(rt.body)}}}
	}
	return out
}
