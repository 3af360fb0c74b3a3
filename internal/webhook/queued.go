package webhook

import (
	"context"
	"errors"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The queued path (on AWS, docs/webhooks.md): the table's stream hands
// each new event to Fanout, which names one Delivery per subscription that
// wants it; a queue keeps them in order per subscription and ticket, and
// SendQueued posts each. Neither step reads the events feed or moves a
// cursor: the stream and the queue are the durable position.

// PausedRecheck is how long a delivery for a paused subscription waits in
// the queue before it looks again: resuming takes effect within it.
const PausedRecheck = 15 * time.Minute

// Delivery is one event to send to one subscription.
type Delivery struct {
	Subscription string      `json:"subscription"`
	Event        board.Event `json:"event"`
}

// Group names the deliveries that must go out one at a time, in order:
// those of one subscription about one ticket (or about the workspace
// itself). Another ticket's deliveries do not wait for a failing one.
func (d Delivery) Group() string {
	about := d.Event.TicketID
	if about == "" {
		about = "workspace:" + d.Event.Workspace
	}
	return d.Subscription + "/" + about
}

// Dedup names the delivery itself: queueing it twice (a stream record
// handled again) queues it once.
func (d Delivery) Dedup() string { return d.Subscription + "/" + d.Event.ID }

// Fanout is what a new event is to be sent as: one delivery for each
// subscription of its workspace that wants it, oldest subscription first.
// A paused subscription is queued its events too: they wait in the queue
// (SendQueued) and go out once it is resumed, as the local loop's cursor
// waits, so a pause loses nothing.
func (s *Service) Fanout(ctx context.Context, ev board.Event) ([]Delivery, error) {
	subs, err := s.cfg.Store.ListSubscriptions(ctx, ev.Workspace)
	if err != nil {
		return nil, err
	}
	var out []Delivery
	for _, sub := range subs {
		// An event older than the subscription (a board imported into
		// the table) is the past, which a new subscription is not sent.
		if sub.Workspace != ev.Workspace || ev.Type == TestEventType || !sub.Matches(ev) || ev.At.Before(sub.CreatedAt) {
			continue
		}
		out = append(out, Delivery{Subscription: sub.ID, Event: ev})
	}
	return out, nil
}

// Outcome is what became of a queued delivery.
type Outcome struct {
	// Done: it was delivered, or there is nothing to deliver (the
	// subscription was deleted, or no longer wants it); the queue drops it.
	Done bool
	// Wait: when not done, how long the queue keeps it before the next try.
	Wait time.Duration
	// Paused: this failure paused the subscription (it failed for the
	// whole give-up window).
	Paused bool
}

// SendQueued posts one queued delivery, the tries-th time it is tried
// (1 the first), and logs the attempt. A failure waits for the retry
// schedule's step for tries; the subscription counts failures in a row
// as the local loop does (its progress: failing since when), and once it
// has failed for the give-up window it is paused with the reason. A
// delivery for a paused subscription waits PausedRecheck, untried, so that
// it goes out after the subscription is resumed. err is for what is not
// the receiver's doing (the store, the secret): the queue tries again.
func (s *Service) SendQueued(ctx context.Context, d Delivery, tries int) (Outcome, error) {
	sub, err := s.cfg.Store.GetSubscription(ctx, d.Subscription)
	switch {
	case errors.Is(err, board.ErrNotFound):
		return Outcome{Done: true}, nil
	case err != nil:
		return Outcome{}, err
	case sub.Workspace != d.Event.Workspace || !sub.Matches(d.Event):
		return Outcome{Done: true}, nil
	case sub.Paused:
		return Outcome{Wait: PausedRecheck}, nil
	}
	a, err := s.deliverOne(ctx, sub, FeedEvent{Event: d.Event, Title: d.Event.Title})
	if err != nil {
		return Outcome{}, err
	}
	if a.OK {
		if sub.Progress.Failures != 0 { // the receiver answers again
			if err := s.cfg.Store.SaveProgress(ctx, sub.ID, Progress{Cursor: sub.Progress.Cursor}); err != nil && !errors.Is(err, board.ErrNotFound) {
				return Outcome{}, err
			}
		}
		return Outcome{Done: true}, nil
	}
	wait, paused, err := s.failed(ctx, sub, sub.Progress, a, tries)
	if errors.Is(err, board.ErrNotFound) { // deleted meanwhile
		return Outcome{Done: true}, nil
	}
	if err != nil {
		return Outcome{}, err
	}
	if paused {
		return Outcome{Wait: PausedRecheck, Paused: true}, nil
	}
	return Outcome{Wait: wait}, nil
}
