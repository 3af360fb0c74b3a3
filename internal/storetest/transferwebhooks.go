package storetest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// moveWebhooks moves a board with two webhook subscriptions through
// boardfile.Export and boardfile.Load into fresh stores: without people
// they arrive paused without a secret (and cannot be resumed); with
// people they arrive with the same signing secret, sealed again under
// a target's own key, which the target then signs with; a rerun writes
// nothing twice. Each starts at the target's newest event.
func moveWebhooks(t *testing.T, f *fixture, newStore func(t *testing.T) Store) {
	admin := board.WithPrincipal(f.ctx, board.Principal{Author: "human:admin", Role: board.RoleAdmin, Source: board.SourceREST})
	hooksOn := func(s Store) *webhook.Service {
		return webhook.New(webhook.Config{Store: s, Secrets: s, Workspaces: s, BaseURL: "https://ledger.example", AllowPrivate: true})
	}
	signedWith := make(chan string, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body bytes.Buffer
		body.ReadFrom(r.Body)
		ts, _ := strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64)
		signedWith <- r.Header.Get("webhook-signature") + " " + r.Header.Get("webhook-id") + " " + strconv.FormatInt(ts, 10) + " " + body.String()
	}))
	defer receiver.Close()
	f.create("inbox", "before-hooks")
	src := hooksOn(f.s)
	slack, err := src.Create(admin, webhook.CreateInput{RequestID: "hook-1", Workspace: "inbox", URL: receiver.URL + "/a", Format: webhook.FormatSlack,
		Events: []webhook.EventFilter{{Kind: board.EventTicketMoved, To: board.StatusWaitingHuman}}})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := src.Create(admin, webhook.CreateInput{RequestID: "hook-2", Workspace: "inbox", URL: receiver.URL + "/b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.SetPaused(admin, "inbox", plain.Subscription.ID, true); err != nil {
		t.Fatal(err)
	}
	f.create("inbox", "after-hooks")
	export := func(withPeople bool) []byte {
		var buf bytes.Buffer
		counts, err := boardfile.Export(f.ctx, f.s, &buf, boardfile.ExportOptions{Now: time.Now(), WithPeople: withPeople})
		if err != nil {
			t.Fatal(err)
		}
		if counts[boardfile.KindWebhook] != 2 {
			t.Fatalf("the export (with people %v) wrote %d webhooks, want 2", withPeople, counts[boardfile.KindWebhook])
		}
		return buf.Bytes()
	}
	load := func(dst Store, file []byte, withPeople bool) boardfile.LoadResult {
		res, err := boardfile.Load(f.ctx, dst, bytes.NewReader(file), boardfile.LoadOptions{Now: time.Now(), WithPeople: withPeople})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	arrived := func(dst Store) map[string]webhook.Subscription {
		subs, err := dst.ListSubscriptions(f.ctx, "inbox")
		if err != nil {
			t.Fatal(err)
		}
		end, err := dst.EventsEnd(f.ctx, "inbox")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]webhook.Subscription{}
		for _, s := range subs {
			if s.Progress.Cursor != end {
				t.Errorf("moved webhook %s starts at %q, want the target's newest event %q", s.ID, s.Progress.Cursor, end)
			}
			out[s.ID] = s
		}
		for _, want := range []webhook.Subscription{slack.Subscription, plain.Subscription} {
			if !webhook.SameTransferred(out[want.ID], want) {
				t.Fatalf("webhook %s arrived as %+v, want %+v", want.ID, out[want.ID], want)
			}
		}
		return out
	}

	// Without people: no secret in the file, and none in the target.
	bare := export(false)
	if bytes.Contains(bare, []byte("sealed_secret")) || bytes.Contains(bare, []byte(boardfile.KindWebhookKey)) {
		t.Fatal("an export without people carries webhook secrets")
	}
	dst := newStore(t)
	if res := load(dst, bare, false); res.Written[boardfile.KindWebhook] != 2 {
		t.Fatalf("the import wrote %d webhooks, want 2", res.Written[boardfile.KindWebhook])
	}
	for id, s := range arrived(dst) {
		if len(s.SealedSecret) != 0 || !s.Paused || s.PausedReason != webhook.NoSecretReason {
			t.Errorf("webhook %s moved without people: secret %d bytes, paused %v (%q); want none, paused with the reason", id, len(s.SealedSecret), s.Paused, s.PausedReason)
		}
	}
	if _, err := hooksOn(dst).SetPaused(admin, "inbox", slack.Subscription.ID, false); board.ErrorCode(err) != board.CodeInvalid {
		t.Errorf("resuming a webhook without a secret: %v, want invalid", err)
	}

	// With people: the same secret, which the target signs with.
	full := export(true)
	if bytes.Contains(full, []byte(slack.Secret[len(webhook.SecretPrefix):])) || bytes.Contains(full, []byte(webhook.SecretPrefix)) {
		t.Fatal("the export with people carries a secret in the clear")
	}
	// A target with a sealing key of its own seals the secrets again
	// under it (a fresh one would adopt the file's: the CLI test).
	dst = newStore(t)
	if _, err := webhook.SealingKey(f.ctx, dst); err != nil {
		t.Fatal(err)
	}
	load(dst, full, true)
	moved := arrived(dst)
	if bytes.Equal(moved[slack.Subscription.ID].SealedSecret, f.sub(slack.Subscription.ID).SealedSecret) {
		t.Error("the secret arrived sealed as in the source, not under the target's own key")
	}
	if moved[plain.Subscription.ID].Paused != true || moved[slack.Subscription.ID].Paused {
		t.Errorf("paused states moved as %v/%v, want true/false", moved[plain.Subscription.ID].Paused, moved[slack.Subscription.ID].Paused)
	}
	if _, err := hooksOn(dst).SendTest(admin, "inbox", slack.Subscription.ID); err != nil {
		t.Fatal(err)
	}
	sig, rest, _ := strings.Cut(<-signedWith, " ")
	id, rest, _ := strings.Cut(rest, " ")
	ts, body, _ := strings.Cut(rest, " ")
	n, _ := strconv.ParseInt(ts, 10, 64)
	if want, _ := webhook.Sign(slack.Secret, id, n, []byte(body)); !strings.Contains(sig, want) {
		t.Fatal("the moved webhook does not sign with the secret it was created with")
	}
	if res := load(dst, full, true); res.AlreadyThere[boardfile.KindWebhook] != 2 || res.Written[boardfile.KindWebhook] != 0 {
		t.Fatalf("a rerun: written %d, already there %d webhooks; want 0 and 2", res.Written[boardfile.KindWebhook], res.AlreadyThere[boardfile.KindWebhook])
	}

	// A file with people imported without --with-people leaves the
	// secrets behind.
	dst = newStore(t)
	load(dst, full, false)
	for id, s := range arrived(dst) {
		if len(s.SealedSecret) != 0 || !s.Paused {
			t.Errorf("webhook %s imported without people kept a secret (%d bytes) or is not paused", id, len(s.SealedSecret))
		}
	}
}

func (f *fixture) sub(id string) webhook.Subscription {
	f.t.Helper()
	s, err := f.s.GetSubscription(f.ctx, id)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}
