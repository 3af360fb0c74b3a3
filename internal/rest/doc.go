// Package rest is the REST adapter: /api/v1, JSON in and out, over the same
// board.Service use cases and policy as MCP (no rule is written here twice).
//
// Every POST and PATCH (and the DELETE of a relation) carries an
// Idempotency-Key, which is the use case's request_id: the same ledger and
// namespace as MCP's request_id and the web board's forms, so GET /api/v1/requests/{key} is find_request. Errors are
// RFC 9457 problem details (application/problem+json) with the domain's
// code and the same message text MCP gives. The OpenAPI 3.1 document at
// /api/v1/openapi.json is generated from the route table and the same Go
// types (internal/apischema) as the MCP tool schemas, once, on first use.
//
// Routing is the standard library's ServeMux (Go 1.22 patterns): see
// docs/decisions.md ("REST") for the measured comparison with huma.
package rest
