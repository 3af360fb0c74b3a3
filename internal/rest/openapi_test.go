package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// The validation the other tests lean on has teeth: answers and requests
// that break the document are caught.
func TestOpenAPIValidationCatchesMismatches(t *testing.T) {
	e := newEnv(t, "sqlite")
	good := e.ok(call{method: "GET", path: "/api/v1/workspaces", token: e.tokens["alice"]}, 200)
	req := func(method, path, body string) *http.Request {
		r, _ := http.NewRequest(method, e.url+path, strings.NewReader(body))
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Idempotency-Key", "k")
		}
		return r
	}
	var ws map[string]any
	json.Unmarshal(good.body, &ws)
	for name, bad := range map[string]answer{
		"an undocumented status":       {status: http.StatusTeapot, header: good.header, body: good.body},
		"a missing required field":     {status: 200, header: good.header, body: []byte(`{}`)},
		"an unknown field":             {status: 200, header: good.header, body: bytes.Replace(good.body, []byte(`{"workspaces"`), []byte(`{"extra":1,"workspaces"`), 1)},
		"a problem that is no problem": {status: 404, header: http.Header{"Content-Type": {"application/problem+json"}}, body: []byte(`{"title":1}`)},
	} {
		if _, respErr, found := e.oapi.check(req("GET", "/api/v1/workspaces", ""), nil, bad); !found || respErr == nil {
			t.Errorf("%s: the validator accepted it", name)
		}
	}
	for name, r := range map[string]*http.Request{
		"an unknown body field": req("POST", "/api/v1/workspaces/inbox/tickets", `{"title":"x","colour":"red"}`),
		"a wrong enum":          req("POST", "/api/v1/workspaces/inbox/tickets", `{"title":"x","priority":"whenever"}`),
		"no title":              req("POST", "/api/v1/workspaces/inbox/tickets", `{}`),
	} {
		body := []byte{}
		if r.Body != nil {
			var buf bytes.Buffer
			buf.ReadFrom(r.Body)
			body = buf.Bytes()
		}
		if reqErr, _, found := e.oapi.check(r, body, answer{status: 400}); !found || reqErr == nil {
			t.Errorf("%s: the validator accepted the request", name)
		}
	}
	// Without a key, a write breaks the document.
	noKey := req("POST", "/api/v1/workspaces/inbox/tickets", `{"title":"x"}`)
	noKey.Header.Del("Idempotency-Key")
	if reqErr, _, _ := e.oapi.check(noKey, []byte(`{"title":"x"}`), answer{status: 400}); reqErr == nil {
		t.Error("a write without Idempotency-Key passed the document")
	}
}
