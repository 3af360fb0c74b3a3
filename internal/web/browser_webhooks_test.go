package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// TestBrowserWebhooks drives the Webhooks page under a workspace's
// settings in a real browser: an admin subscribes a receiver, sees the
// secret once, sends a test event and sees it in the delivery log,
// pauses the webhook and sees why it is paused; then follows one person's
// inbox, refused for someone who is not there.
func TestBrowserWebhooks(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real browser; skipped with -short")
	}
	exe := browserPath(t)
	eachStore(t, func(t *testing.T, backend string) {
		if backend == "moto" {
			t.Skip("the browser scenarios run on SQLite and minidyn; moto adds nothing a browser can see")
		}
		var mu sync.Mutex
		var got []http.Header
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got = append(got, r.Header.Clone())
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		}))
		defer receiver.Close()
		e := &env{t: t, store: openStore(t, backend), clock: testbackends.NewClock(time.Now().UTC()), mode: auth.ModeRequired, hooks: true}
		e.serve(e.store)
		e.addPerson("alice", board.RoleAdmin)
		css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
		s := startSession(t, exe, e, backend)
		s.signIn("alice")

		s.run("open Webhooks from the settings",
			chromedp.Navigate(e.url+"/w/inbox/settings"), chromedp.WaitVisible(css(`#webhooks-link`)),
			chromedp.Click(css(`#webhooks-link`)), chromedp.WaitVisible(css(`input[name="url"]`)))
		s.run("subscribe the receiver to moves into waiting_human",
			chromedp.SendKeys(css(`input[name="url"]`), receiver.URL+"/hook"),
			chromedp.Click(css(`input[name="events"][value="ticket.moved"]`)),
			chromedp.SetValue(css(`select[name="moved_to"]`), "waiting_human"),
			chromedp.Click(css(`form[action="/w/inbox/webhooks"] button`)),
			chromedp.WaitVisible(css(`#new-secret`)))
		secret := eval[string](s, "the secret", `document.querySelector("#new-secret").value`)
		if !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("the page shows %q as the secret", secret)
		}
		summary := eval[string](s, "the webhook's line", `document.querySelector("section.webhook p").textContent`)
		if !strings.Contains(summary, "ticket.moved to") || !strings.Contains(summary, "Active") {
			t.Fatalf("the webhook reads %q", summary)
		}
		s.shot("webhooks-created.png")

		s.run("send a test event",
			chromedp.Click(css(`form[action$="/test"] button`)),
			chromedp.WaitVisible(css(`table.deliveries tr.ok`)))
		if flash := eval[string](s, "the flash", `document.body.textContent`); !strings.Contains(flash, "Test event delivered.") {
			t.Fatal("no word that the test event was delivered")
		}
		if html := eval[string](s, "the page", `document.body.innerHTML`); strings.Contains(html, secret) {
			t.Fatal("the secret is shown again after the creation's answer")
		}
		mu.Lock()
		if len(got) != 1 || got[0].Get("webhook-id") == "" || !strings.HasPrefix(got[0].Get("webhook-signature"), "v1,") {
			t.Fatalf("the receiver got %d requests: %v", len(got), got)
		}
		mu.Unlock()

		s.run("pause it",
			chromedp.Click(css(`form[action$="/pause"] button`)),
			chromedp.WaitVisible(css(`form[action$="/resume"] button`)))
		if state := eval[string](s, "the state", `document.querySelector("section.webhook p").textContent`); !strings.Contains(state, "Paused: paused by human:alice") {
			t.Fatalf("a paused webhook reads %q", state)
		}
		s.shot("webhooks-paused.png")

		s.run("follow the inbox of someone who is not there",
			chromedp.Click(css(`details.panel summary`)), chromedp.WaitVisible(css(`input[name="inbox"]`)),
			chromedp.SendKeys(css(`input[name="url"]`), receiver.URL+"/alice"),
			chromedp.SendKeys(css(`input[name="inbox"]`), "nobody"),
			chromedp.SetValue(css(`select[name="format"]`), "slack"),
			chromedp.Click(css(`form[action="/w/inbox/webhooks"] button`)),
			chromedp.WaitVisible(css(`input[name="inbox"][aria-invalid="true"]`)))
		if msg := eval[string](s, "the inbox's problem", `document.querySelector("p.field-error").textContent`); !strings.Contains(msg, `no person has the handle "nobody"`) {
			t.Fatalf("the refused inbox reads %q", msg)
		}
		if n := eval[int](s, "webhooks listed", `document.querySelectorAll("section.webhook").length`); n != 1 {
			t.Fatalf("a refused webhook was made: %d listed", n)
		}
		s.run("follow alice's inbox",
			chromedp.SetValue(css(`input[name="inbox"]`), "alice"),
			chromedp.SetValue(css(`select[name="format"]`), "slack"),
			chromedp.Click(css(`form[action="/w/inbox/webhooks"] button`)),
			chromedp.WaitVisible(css(`#new-secret`)))
		if inbox := eval[string](s, "the new webhook's inbox", `document.querySelector("section.webhook:last-of-type .webhook-inbox").textContent`); inbox != "alice's inbox" {
			t.Fatalf("the inbox webhook reads %q", inbox)
		}
	})
}
