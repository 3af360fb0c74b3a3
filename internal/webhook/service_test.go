package webhook_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

func TestOnlyAdminsManageWebhooks(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true})
	r := newReceiver(t)
	sub := f.subscribe(t, r, webhook.CreateInput{})
	for name, p := range map[string]board.Principal{
		"member": {Author: "human:bob", Role: board.RoleMember},
		"agent":  {Author: "ai:claude", OnBehalfOf: "human:alice"},
	} {
		ctx := board.WithPrincipal(t.Context(), p)
		_, err := f.hooks.Create(ctx, webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: r.URL})
		if board.ErrorCode(err) != board.CodeForbidden {
			t.Fatalf("%s: create answered %v, want forbidden", name, err)
		}
		if _, err := f.hooks.List(ctx, "inbox"); board.ErrorCode(err) != board.CodeForbidden {
			t.Fatalf("%s: list answered %v", name, err)
		}
		if err := f.hooks.Delete(ctx, "inbox", sub.ID); board.ErrorCode(err) != board.CodeForbidden {
			t.Fatalf("%s: delete answered %v", name, err)
		}
	}
	if subs, _ := f.store.ListSubscriptions(t.Context(), ""); len(subs) != 1 {
		t.Fatalf("refused calls changed the subscriptions: %d", len(subs))
	}
}

func TestTheSecretIsShownOnceAndKeptSealed(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true})
	c, err := f.hooks.Create(f.admin, webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "http://127.0.0.1:9/hook"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Secret, webhook.SecretPrefix) || len(c.Secret) < len(webhook.SecretPrefix)+40 {
		t.Fatalf("secret %q is not whsec_ and 32 random bytes", c.Secret)
	}
	stored := f.sub(t, c.Subscription.ID)
	if strings.Contains(string(stored.SealedSecret), c.Secret) || strings.Contains(string(stored.SealedSecret), c.Secret[6:]) {
		t.Fatal("the store keeps the secret in the clear")
	}
	list, _ := f.hooks.List(f.admin, "inbox")
	detail, _ := f.hooks.Get(f.admin, "inbox", c.Subscription.ID)
	for _, v := range []any{list, detail, c.Subscription} {
		b, _ := json.Marshal(v)
		if strings.Contains(string(b), c.Secret[6:]) || strings.Contains(string(b), "whsec_") {
			t.Fatalf("an answer after creation shows the secret: %s", b)
		}
	}
}

func TestCreateRefusesBadInput(t *testing.T) {
	f := newFixture(t, webhook.Config{})
	for _, tc := range []struct {
		in   webhook.CreateInput
		code board.Code
		say  string
	}{
		{webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "http://hooks.example.com/x"}, board.CodeInvalid, "must be https"},
		{webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "https://127.0.0.1/x"}, board.CodeInvalid, "not a public address"},
		{webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "https://10.1.2.3/x"}, board.CodeInvalid, "not a public address"},
		{webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "https://[::1]/x"}, board.CodeInvalid, "not a public address"},
		{webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "https://169.254.169.254/latest"}, board.CodeInvalid, "not a public address"},
		{webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "https://user:pw@hooks.example.com/"}, board.CodeInvalid, "user information"},
		{webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "hooks.example.com"}, board.CodeInvalid, "absolute URL"},
		{webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "https://hooks.example.com/", Format: "xml"}, board.CodeInvalid, "json or slack"},
		{webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "https://hooks.example.com/", Events: []webhook.EventFilter{{Kind: "ticket.deleted"}}}, board.CodeInvalid, "no event kind"},
		{webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "https://hooks.example.com/", Events: []webhook.EventFilter{{Kind: "note.added", To: "done"}}}, board.CodeInvalid, "narrows only ticket.moved"},
		{webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "https://hooks.example.com/", Events: []webhook.EventFilter{{Kind: "ticket.moved", To: "gone"}}}, board.CodeInvalid, "no status"},
		{webhook.CreateInput{RequestID: f.rid(), Workspace: "nowhere", URL: "https://hooks.example.com/"}, board.CodeNotFound, "does not exist"},
	} {
		_, err := f.hooks.Create(f.admin, tc.in)
		if board.ErrorCode(err) != tc.code || !strings.Contains(err.Error(), tc.say) {
			t.Errorf("%+v: got %v, want %s saying %q", tc.in, err, tc.code, tc.say)
		}
	}
	if subs, _ := f.store.ListSubscriptions(t.Context(), ""); len(subs) != 0 {
		t.Fatalf("refused input wrote %d subscriptions", len(subs))
	}
	var filters []webhook.EventFilter
	if err := json.Unmarshal([]byte(`["note.added", {"kind": "ticket.moved", "to": "waiting_human"}]`), &filters); err != nil ||
		filters[0] != (webhook.EventFilter{Kind: "note.added"}) || filters[1] != (webhook.EventFilter{Kind: "ticket.moved", To: "waiting_human"}) {
		t.Fatalf("filters read as %+v, %v", filters, err)
	}
}

func TestSendsOnlyToPublicAddresses(t *testing.T) {
	// A name is checked where the connection is made: localhost passes
	// the URL check (it is a name) but the dialer refuses 127.0.0.1, so a
	// name that resolves (or rebinds) to a private address gets nothing.
	r := newReceiver(t)
	f := newFixture(t, webhook.Config{})
	port := r.Listener.Addr().String()[strings.LastIndex(r.Listener.Addr().String(), ":"):]
	c, err := f.hooks.Create(f.admin, webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "https://localhost" + port + "/hook"})
	if err != nil {
		t.Fatal(err)
	}
	f.create(t, "secret plans")
	f.hooks.RunOnce(t.Context())
	if n := len(r.deliveries()); n != 0 {
		t.Fatalf("a private address received %d requests", n)
	}
	d, _ := f.hooks.Get(f.admin, "inbox", c.Subscription.ID)
	if len(d.Deliveries) != 1 || d.Deliveries[0].OK || !strings.Contains(d.Deliveries[0].Answer, "not a public address") {
		t.Fatalf("the log says %+v, want the refusal", d.Deliveries)
	}
	a, err := f.hooks.SendTest(f.admin, "inbox", c.Subscription.ID)
	if err != nil || a.OK || !strings.Contains(a.Answer, "not a public address") {
		t.Fatalf("a test event to a private address: %+v, %v", a, err)
	}
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	inner := newReceiver(t)
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/private", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(outer.Close)
	f := newFixture(t, webhook.Config{AllowPrivate: true})
	c, err := f.hooks.Create(f.admin, webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: outer.URL})
	if err != nil {
		t.Fatal(err)
	}
	a, err := f.hooks.SendTest(f.admin, "inbox", c.Subscription.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.OK || a.Status != http.StatusTemporaryRedirect || !strings.Contains(a.Answer, "not followed") {
		t.Fatalf("a redirect answered %+v, want a failure naming it", a)
	}
	if n := len(inner.deliveries()); n != 0 {
		t.Fatalf("the redirect was followed: %d requests", n)
	}
}

func TestSendAgainAndTestEvent(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true})
	r := newReceiver(t)
	sub := f.subscribe(t, r, webhook.CreateInput{})
	f.create(t, "again")
	f.hooks.RunOnce(t.Context())
	first := r.deliveries()[0]

	a, err := f.hooks.Redeliver(f.admin, "inbox", sub.ID, first.ID)
	if err != nil || !a.OK || a.Kind != webhook.AttemptRedelivery {
		t.Fatalf("send again: %+v, %v", a, err)
	}
	again := r.deliveries()[1]
	if again.ID != first.ID || string(again.Body) != string(first.Body) || again.Err != nil {
		t.Fatalf("sent again as %s %s, want the same id and body, signed", again.ID, again.Body)
	}
	if _, err := f.hooks.Redeliver(f.admin, "inbox", sub.ID, "no-such-event"); board.ErrorCode(err) != board.CodeNotFound {
		t.Fatalf("send again of a missing event: %v", err)
	}
	a, err = f.hooks.SendTest(f.admin, "inbox", sub.ID)
	if err != nil || !a.OK || a.Kind != webhook.AttemptTest {
		t.Fatalf("test event: %+v, %v", a, err)
	}
	var p webhook.Payload
	json.Unmarshal(r.deliveries()[2].Body, &p)
	if p.Type != webhook.TestEventType || p.Data.Author != "human:alice" || r.deliveries()[2].Err != nil {
		t.Fatalf("the test event is %+v", p)
	}
	if _, err := f.hooks.SendTest(f.admin, "reference", sub.ID); board.ErrorCode(err) != board.CodeNotFound {
		t.Fatalf("a subscription named under another workspace: %v", err)
	}
	d, _ := f.hooks.Get(f.admin, "inbox", sub.ID)
	if len(d.Deliveries) != 3 || d.Deliveries[0].Kind != webhook.AttemptTest || d.Deliveries[1].Kind != webhook.AttemptRedelivery {
		t.Fatalf("the log is %+v", d.Deliveries)
	}
	if err := f.hooks.Delete(f.admin, "inbox", sub.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.hooks.Get(f.admin, "inbox", sub.ID); board.ErrorCode(err) != board.CodeNotFound {
		t.Fatalf("after delete: %v", err)
	}
}

// A creation happens once per request_id: a retry with the same key and
// body answers the first answer, the same subscription and the same
// secret (opened again from its sealed copy, no second one minted), even
// when the workspace has since reached its bound; another body under the
// key is refused, and nothing is written without a key.
func TestCreationIsOncePerRequest(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true})
	in := webhook.CreateInput{RequestID: "make-hook", Workspace: "inbox", URL: "http://127.0.0.1:9/hook", Format: webhook.FormatSlack}
	first, err := f.hooks.Create(f.admin, in)
	if err != nil || first.WasReplayed() {
		t.Fatalf("first creation: %+v, %v", first, err)
	}
	for i := 1; i < webhook.MaxPerWorkspace; i++ {
		if _, err := f.hooks.Create(f.admin, webhook.CreateInput{RequestID: f.rid(), Workspace: "inbox", URL: "http://127.0.0.1:9/other"}); err != nil {
			t.Fatal(err)
		}
	}
	again, err := f.hooks.Create(f.admin, in)
	if err != nil {
		t.Fatalf("the retry: %v", err)
	}
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(again)
	if !again.WasReplayed() || string(a) != string(b) {
		t.Fatalf("the retry answered\n%s\nwant the first answer\n%s", b, a)
	}
	if subs, _ := f.store.ListSubscriptions(t.Context(), "inbox"); len(subs) != webhook.MaxPerWorkspace {
		t.Fatalf("%d subscriptions after the retry, want %d", len(subs), webhook.MaxPerWorkspace)
	}

	other := in
	other.URL = "http://127.0.0.1:9/elsewhere"
	if _, err := f.hooks.Create(f.admin, other); board.ErrorCode(err) != board.CodeRequestReused || !strings.Contains(err.Error(), "url") {
		t.Fatalf("another body under the key: %v, want request_id_reused naming url", err)
	}
	// The key is the caller's own: another admin's same key is a new call.
	bob := board.WithPrincipal(t.Context(), board.Principal{Author: "human:bob", Role: board.RoleAdmin, Source: board.SourceREST})
	if f.hooks.Delete(f.admin, "inbox", first.Subscription.ID) != nil {
		t.Fatal("delete")
	}
	theirs, err := f.hooks.Create(bob, in)
	if err != nil || theirs.WasReplayed() || theirs.Subscription.ID == first.Subscription.ID || theirs.Secret == first.Secret {
		t.Fatalf("another admin's call under the same key: %+v, %v; want a new subscription", theirs, err)
	}
	// A replay after the subscription was deleted still answers the first
	// answer: the record keeps it.
	if late, err := f.hooks.Create(f.admin, in); err != nil || late.Secret != first.Secret || !late.WasReplayed() {
		t.Fatalf("a replay after delete: %+v, %v", late, err)
	}

	for _, id := range []string{"", "has space"} {
		n, _ := f.store.ListSubscriptions(t.Context(), "inbox")
		_, err := f.hooks.Create(f.admin, webhook.CreateInput{RequestID: id, Workspace: "inbox", URL: "http://127.0.0.1:9/x"})
		m, _ := f.store.ListSubscriptions(t.Context(), "inbox")
		if board.ErrorCode(err) != board.CodeInvalid || len(m) != len(n) {
			t.Fatalf("request_id %q: %v and %d→%d subscriptions, want invalid and nothing written", id, err, len(n), len(m))
		}
	}
}

// The creation's request record keeps the secret sealed, never in the
// clear.
func TestTheCreationRecordKeepsTheSecretSealed(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true})
	c, err := f.hooks.Create(f.admin, webhook.CreateInput{RequestID: "sealed", Workspace: "inbox", URL: "http://127.0.0.1:9/hook"})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := f.store.GetRequest(t.Context(), board.RequestKey(board.PrincipalFrom(f.admin), "sealed"), f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if rec.Tool != webhook.ToolCreateWebhook || strings.Contains(string(rec.Result), c.Secret[len(webhook.SecretPrefix):]) || strings.Contains(string(rec.Result), "whsec_") {
		t.Fatalf("the record (%s) keeps %s", rec.Tool, rec.Result)
	}
}

// Retries racing each other under one key make one subscription, and every
// one of them answers its secret.
func TestConcurrentRetriesMakeOneSubscription(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true})
	in := webhook.CreateInput{RequestID: "raced", Workspace: "inbox", URL: "http://127.0.0.1:9/hook"}
	const n = 8
	answers := make(chan webhook.Created, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := f.hooks.Create(f.admin, in)
			if err != nil {
				t.Error(err)
			}
			answers <- c
		}()
	}
	wg.Wait()
	close(answers)
	var secrets []string
	for c := range answers {
		secrets = append(secrets, c.Secret)
	}
	if distinct := slices.Compact(secrets); len(distinct) != 1 || distinct[0] == "" {
		t.Fatalf("%d callers got the secrets %q, want one", n, distinct)
	}
	if subs, _ := f.store.ListSubscriptions(t.Context(), "inbox"); len(subs) != 1 {
		t.Fatalf("%d racing retries made %d subscriptions", n, len(subs))
	}
}
