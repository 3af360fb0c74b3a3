package boardfile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// Webhook subscriptions move with their workspace, after everything else
// (their workspace's history is in the target by then). Without people a
// subscription carries no secret, and arrives paused with
// webhook.NoSecretReason: a signing secret is a credential, which only an
// export with people carries. With people each carries its secret sealed
// as stored, and one webhook_key line before them carries the key that
// opens them: the import seals each secret again under the target's own
// key. A moved subscription starts at the target's newest event of its
// workspace, so the history moved with it is not sent again; where its
// delivery stood in the source (its failures, its cursor) stays behind.

// WebhookSource is the part of a store an export reads webhooks from.
type WebhookSource interface {
	ListSubscriptions(ctx context.Context, workspace string) ([]webhook.Subscription, error)
	board.SecretStore
}

// WebhookTarget is the part of a store an import puts webhooks into.
type WebhookTarget interface {
	// PutSubscription stores a moved subscription unless one is under its
	// id: AlreadyThere when it is the same one (webhook.SameTransferred),
	// else Collision.
	PutSubscription(ctx context.Context, sub webhook.Subscription) (board.PutOutcome, error)
	// EventsEnd is where a moved subscription starts.
	EventsEnd(ctx context.Context, workspace string) (string, error)
	board.SecretStore
}

// transferredWebhook is a subscription as a file holds it.
type transferredWebhook struct {
	ID           string                `json:"id"`
	Workspace    string                `json:"workspace"`
	URL          string                `json:"url"`
	Events       []webhook.EventFilter `json:"events"`
	Inbox        string                `json:"inbox,omitempty"`
	Format       webhook.Format        `json:"format"`
	Paused       bool                  `json:"paused"`
	PausedReason string                `json:"paused_reason,omitempty"`
	CreatedBy    string                `json:"created_by"`
	CreatedAt    time.Time             `json:"created_at"`
	// SealedSecret: only in an export with people.
	SealedSecret []byte `json:"sealed_secret,omitempty"`
}

func webhookOf(s webhook.Subscription, withSecret bool) *transferredWebhook {
	w := &transferredWebhook{ID: s.ID, Workspace: s.Workspace, URL: s.URL, Events: s.Events, Inbox: s.Inbox, Format: s.Format,
		Paused: s.Paused, PausedReason: s.PausedReason, CreatedBy: s.CreatedBy, CreatedAt: s.CreatedAt}
	if withSecret {
		w.SealedSecret = s.SealedSecret
	}
	return w
}

func (w transferredWebhook) subscription() webhook.Subscription {
	events := w.Events
	if events == nil {
		events = []webhook.EventFilter{}
	}
	return webhook.Subscription{ID: w.ID, Workspace: w.Workspace, URL: w.URL, Events: events, Inbox: w.Inbox, Format: w.Format,
		Paused: w.Paused, PausedReason: w.PausedReason, CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt, SealedSecret: w.SealedSecret}
}

// exportWebhooks writes the subscriptions of the exported workspaces (a
// few per workspace, bounded), after the key that opens their secrets when
// they carry them.
func exportWebhooks(ctx context.Context, src WebhookSource, e *encoder, slugs []string, withPeople bool) error {
	var subs []webhook.Subscription
	for _, slug := range slugs {
		s, err := src.ListSubscriptions(ctx, slug)
		if err != nil {
			return fmt.Errorf("exporting the webhooks of %s: %w", slug, err)
		}
		subs = append(subs, s...)
	}
	if len(subs) == 0 {
		return nil
	}
	sealed := slices.ContainsFunc(subs, func(s webhook.Subscription) bool { return len(s.SealedSecret) > 0 })
	if withPeople && sealed { // one moved here without its secret has none
		key, err := webhook.SealingKey(ctx, src)
		if err != nil {
			return fmt.Errorf("exporting webhooks: %w", err)
		}
		if err := e.write(line{Kind: KindWebhookKey, WebhookKey: key}); err != nil {
			return err
		}
	}
	for _, s := range subs {
		if err := e.write(line{Kind: KindWebhook, Webhook: webhookOf(s, withPeople)}); err != nil {
			return err
		}
	}
	return nil
}

// putWebhookKey reads the key line: only in a file with people, used only
// by an import with people.
func (im *loader) putWebhookKey(l *line) error {
	if !im.head.WithPeople {
		return errors.New("a webhook_key line in a file whose header says it holds no people (with_people false): the file was altered or damaged; export it again")
	}
	if len(l.WebhookKey) != 32 {
		return fmt.Errorf("the webhook_key line holds %d bytes, not a 32-byte key: the file was altered or damaged", len(l.WebhookKey))
	}
	if !im.opts.WithPeople {
		im.skip(KindWebhookKey)
		return nil
	}
	im.webhookKey = l.WebhookKey // used, not written: the webhooks after it are
	return nil
}

// putWebhook checks and puts one subscription.
func (im *loader) putWebhook(l *line) error {
	if l.Webhook == nil {
		return errors.New("a webhook line without its webhook")
	}
	sub := l.Webhook.subscription()
	if err := webhook.ValidateTransferred(sub); err != nil {
		return err
	}
	if !im.spaces[sub.Workspace] {
		return fmt.Errorf("webhook %s: its workspace %s is not in the file", sub.ID, sub.Workspace)
	}
	if len(sub.SealedSecret) > 0 && !im.head.WithPeople {
		return fmt.Errorf("webhook %s carries a secret in a file whose header says it holds no people (with_people false): the file was altered or damaged; export it again", sub.ID)
	}
	dst, ok := im.dst.(WebhookTarget)
	if !ok {
		im.skip(KindWebhook)
		return nil
	}
	if err := im.flush(); err != nil { // its workspace's history first
		return err
	}
	switch {
	case len(sub.SealedSecret) > 0 && im.opts.WithPeople:
		if im.webhookKey == nil {
			return fmt.Errorf("webhook %s carries a sealed secret but no webhook_key line came before it: the file was altered or damaged", sub.ID)
		}
		sealed, err := webhook.Reseal(im.ctx, dst, im.webhookKey, sub.ID, sub.SealedSecret)
		if err != nil {
			return err
		}
		sub.SealedSecret = sealed
	default:
		sub.SealedSecret = nil
		sub.Paused, sub.PausedReason = true, webhook.NoSecretReason
	}
	end, err := dst.EventsEnd(im.ctx, sub.Workspace)
	if err != nil {
		return err
	}
	sub.Progress = webhook.Progress{Cursor: end}
	out, err := dst.PutSubscription(im.ctx, sub)
	if err != nil {
		return im.storeErr(KindWebhook+" "+sub.ID, err)
	}
	return im.count(KindWebhook, sub.ID, out, im.lines.n)
}
