package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
)

// lambdaLivePoll is the live board's poll through API Gateway's event and
// the Lambda handler, as a browser sends it: the marker comes back as an
// ETag, 304 while nothing changed (the adapter passes an empty body and
// the header through), 200 with a new ETag after a change. Run inside
// TestLambdaPolicyCoversStoreRequests, so the IAM policy is checked
// against the poll's requests too.
func lambdaLivePoll(t *testing.T, invoke lamInvoke) {
	t.Helper()
	poll := func(path, etag string) lamReply {
		t.Helper()
		h := map[string]string{"cookie": lamCookie}
		if etag != "" {
			h["if-none-match"] = etag
		}
		return lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, path, h, nil))
	}
	first := poll("/w/reference/changes", "")
	etag := lamHeader(first.HTTP, "ETag")
	if first.HTTP.StatusCode != http.StatusOK || !strings.HasPrefix(etag, `"`) {
		t.Fatalf("GET /w/reference/changes on Lambda: HTTP %d, ETag %q; want 200 with a strong ETag", first.HTTP.StatusCode, etag)
	}
	if cc := lamHeader(first.HTTP, "Cache-Control"); !strings.Contains(cc, "no-cache") {
		t.Errorf("GET /w/reference/changes on Lambda: Cache-Control %q, want no-cache", cc)
	}
	if r := poll("/w/reference/changes", etag); r.HTTP.StatusCode != http.StatusNotModified || r.HTTP.Body != "" {
		t.Fatalf("an idle poll on Lambda: HTTP %d %q, want 304 with no body", r.HTTP.StatusCode, r.HTTP.Body)
	}
	page := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/w/reference", map[string]string{"cookie": lamCookie}, nil))
	created := lamSend(t, invoke, lamForm("/w/reference/tickets", url.Values{"request_id": {"lam-live-1"}, "title": {"Seen live"},
		"priority": {"normal"}}))
	if created.HTTP.StatusCode != http.StatusSeeOther || page.HTTP.StatusCode != http.StatusOK {
		t.Fatalf("the board page %d, a ticket from it %d %q", page.HTTP.StatusCode, created.HTTP.StatusCode, created.HTTP.Body)
	}
	if r := poll("/w/reference/changes", etag); r.HTTP.StatusCode != http.StatusOK || lamHeader(r.HTTP, "ETag") == etag {
		t.Fatalf("a poll after a change on Lambda: HTTP %d, ETag %q (was %q); want 200 with a new one", r.HTTP.StatusCode, lamHeader(r.HTTP, "ETag"), etag)
	}
	id := strings.TrimPrefix(lamHeader(created.HTTP, "Location"), "/tickets/")
	tp := poll("/tickets/"+id+"/changes", "")
	if tag := lamHeader(tp.HTTP, "ETag"); tp.HTTP.StatusCode != http.StatusOK || poll("/tickets/"+id+"/changes", tag).HTTP.StatusCode != http.StatusNotModified {
		t.Fatalf("the ticket %q's marker on Lambda: HTTP %d, ETag %q; want 200, then 304 to it", id, tp.HTTP.StatusCode, tag)
	}
}
