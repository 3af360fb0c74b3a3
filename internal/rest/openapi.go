package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ticket-ledger/ticket-ledger/internal/apischema"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// openAPI is the OpenAPI 3.1 document, built from the route table and the
// domain's Go types on the first request for it (never at start), then
// served from memory.
var openAPI = sync.OnceValues(func() ([]byte, error) { return json.Marshal(openAPIDocument()) })

func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	doc, err := openAPI()
	if err != nil {
		writeProblem(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("X-Content-Type-Options", "nosniff")
	w.Write(doc)
}

type obj = map[string]any

// apiVersion is the document's version of /api/v1: it changes when the
// API does.
const apiVersion = "1.0.0"

// openAPIDocument describes every route: parameters, bodies, results and
// problems, with the schemas apischema infers (the MCP tools' own).
func openAPIDocument() obj {
	paths := obj{}
	for _, rt := range routes() {
		item, _ := paths[rt.pattern].(obj)
		if item == nil {
			item = obj{}
			paths[rt.pattern] = item
		}
		item[strings.ToLower(rt.method)] = operation(rt)
	}
	addWebhookPaths(paths)
	paths["/openapi.json"] = obj{"get": obj{
		"operationId": "getOpenAPI", "summary": "This document", "security": []any{},
		"description": "The OpenAPI 3.1 document of this API, generated from the same Go types as the MCP tools' schemas. Needs no credential.",
		"responses":   obj{"200": obj{"description": "The document.", "content": obj{"application/json": obj{"schema": obj{"type": "object"}}}}},
	}}
	return obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":   "ticket-ledger REST API",
			"version": apiVersion,
			"description": "A shared ticket board for people and AI agents where every write happens exactly once. " +
				"Every POST and PATCH, and the DELETE of a relation, needs an Idempotency-Key (but the webhook actions pause, resume, redeliver and test: pausing twice is pausing, and a send is meant to send once more): the same key with the same body replays the first answer " +
				"(Idempotent-Replayed: true); with another body it is refused (422); while the first is still running, 409. " +
				"Keys share one namespace per caller with MCP's request_id. Errors are RFC 9457 problem details with the domain's code.",
		},
		"servers":  []any{obj{"url": Prefix}},
		"security": []any{obj{"bearer": []any{}}},
		"paths":    paths,
		"components": obj{
			"securitySchemes": obj{"bearer": obj{"type": "http", "scheme": "bearer",
				"description": "An API token (tl_…) from `tokens create` or the board's My tokens page. A signed-in person's session cookie is also accepted."}},
			"schemas": obj{"Problem": schemaJSON(apischema.For[Problem]())},
			"headers": obj{
				"ETag":                obj{"description": "The ticket's version as a strong entity-tag, for If-Match.", "schema": obj{"type": "string"}},
				"Location":            obj{"description": "Where the new resource is read (an import: its task).", "schema": obj{"type": "string"}},
				"Retry-After":         obj{"description": "While the task is working: seconds to wait before looking at it again (GET /tasks/{id}).", "schema": obj{"type": "string", "pattern": "^[0-9]+$"}},
				"Idempotent-Replayed": obj{"description": "true when this answer is the stored answer of an earlier request with the same Idempotency-Key.", "schema": obj{"type": "string", "enum": []any{"true"}}},
				"Link":                obj{"description": "The next page (rel=\"next\"), when there is one.", "schema": obj{"type": "string"}},
			},
		},
	}
}

func operation(rt route) obj {
	sch := rt.schemas()
	info := rt.spec
	var params []any
	for _, name := range sortedKeys(info.Path) {
		params = append(params, obj{"name": name, "in": "path", "required": true, "schema": schemaJSON(sch.input.Properties[info.Path[name]])})
	}
	if info.Query {
		for _, name := range sortedKeys(sch.part.Properties) {
			params = append(params, obj{"name": name, "in": "query", "required": slices.Contains(sch.part.Required, name),
				"schema": schemaJSON(sch.part.Properties[name])})
		}
	}
	if rt.write {
		params = append(params, idempotencyKeyParam())
	}
	if info.IfMatch {
		params = append(params, obj{"name": "If-Match", "in": "header", "required": false,
			"description": "The ETag of GET /tickets/{id}: the change is made only while the ticket is at that version (else 412). * or absent: any version.",
			"schema":      obj{"type": "string"}})
	}
	headers := obj{}
	if rt.write {
		headers["Idempotent-Replayed"] = obj{"$ref": "#/components/headers/Idempotent-Replayed"}
	}
	for _, h := range []struct {
		on   bool
		name string
	}{{info.ETag, "ETag"}, {info.Location, "Location"}, {info.Link, "Link"}, {info.RetryAfter, "Retry-After"}} {
		if h.on {
			headers[h.name] = obj{"$ref": "#/components/headers/" + h.name}
		}
	}
	ok := obj{"description": http.StatusText(info.Status), "content": obj{"application/json": obj{"schema": schemaJSON(sch.result())}}}
	if len(headers) > 0 {
		ok["headers"] = headers
	}
	responses := obj{strconv.Itoa(info.Status): ok}
	problems := append(slices.Clone(readProblems), info.Problems...)
	if rt.write {
		problems = append(problems, writeProblems...)
	}
	if info.Body {
		problems = append(problems, bodyProblems...)
	}
	for _, status := range problems {
		responses[strconv.Itoa(status)] = obj{"description": http.StatusText(status),
			"content": obj{"application/problem+json": obj{"schema": obj{"$ref": "#/components/schemas/Problem"}}}}
	}
	out := obj{"operationId": info.ID, "summary": info.Summary, "description": info.Description, "responses": responses}
	if len(params) > 0 {
		out["parameters"] = params
	}
	if info.Body {
		content := obj{}
		for _, mt := range info.MediaTypes {
			content[mt] = obj{"schema": schemaJSON(sch.part)}
		}
		out["requestBody"] = obj{"required": true, "content": content}
	}
	return out
}

// idempotencyKeyParam is the header every write requires.
func idempotencyKeyParam() obj {
	return obj{"name": "Idempotency-Key", "in": "header", "required": true,
		"description": "A new unique key (e.g. a UUID) for each new intent; the same key with the same body to retry. 1-128 of A-Z a-z 0-9 . _ : - (the request_id of MCP).",
		"schema":      obj{"type": "string", "pattern": fmt.Sprintf("^\"?[%s]{1,%d}\"?$", ledger.RequestIDChars, ledger.MaxRequestIDLength)}}
}

// schemaJSON embeds a JSON Schema as it marshals (OpenAPI 3.1 schemas are
// JSON Schema 2020-12, the dialect jsonschema-go writes).
func schemaJSON(s *jsonschema.Schema) json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // inferred schemas always marshal
	}
	return b
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
