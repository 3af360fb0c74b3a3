package webhook

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// batch is how many events one read of the feed takes.
const batch = 50

// send posts one event to the subscription and says how it went; err is
// only for what is not the receiver's doing (the secret does not open).
func (s *Service) send(ctx context.Context, sub Subscription, ev FeedEvent, kind string) (Attempt, error) {
	seal, err := s.sealer(ctx)
	if err != nil {
		return Attempt{}, err
	}
	secret, err := seal.open(sub.ID, sub.SealedSecret)
	if err != nil {
		return Attempt{}, err
	}
	payload, err := body(sub, ev, s.cfg.BaseURL)
	if err != nil {
		return Attempt{}, err
	}
	start := s.cfg.Now()
	a := Attempt{At: start.UTC(), EventID: ev.Event.ID, Kind: kind}
	if err := checkURL(sub.URL, s.cfg.AllowPrivate); err != nil {
		a.Answer = err.Error() // the rules changed since it was subscribed
		return a, nil
	}
	ts := start.Unix()
	sig, err := Sign(secret, ev.Event.ID, ts, payload)
	if err != nil {
		return Attempt{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sub.URL, bytes.NewReader(payload))
	if err != nil {
		a.Answer = err.Error()
		return a, nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "ticket-ledger-webhooks")
	req.Header.Set("webhook-id", ev.Event.ID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := s.client.Do(req)
	a.LatencyMs = s.cfg.Now().Sub(start).Milliseconds()
	if err != nil {
		a.Answer = clip(err.Error())
		return a, nil
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, AnswerBytes))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	a.Status = resp.StatusCode
	a.OK = resp.StatusCode >= 200 && resp.StatusCode < 300
	a.Answer = clip(string(head))
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		a.Answer = clip("redirect to " + resp.Header.Get("Location") + " not followed; subscribe the final URL")
	}
	return a, nil
}

// clip cuts text to AnswerBytes on a rune boundary.
func clip(s string) string {
	if len(s) <= AnswerBytes {
		return s
	}
	s = s[:AnswerBytes]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// Run delivers until ctx ends: every Poll it starts, for each subscription
// not paused, not waiting for a retry and not already being served, a
// pass that sends what follows its cursor. On return every pass has
// ended.
func (s *Service) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	for {
		s.startPasses(ctx, &wg)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RunOnce makes one round of Run and waits for its passes: what a test
// or a command that delivers once calls.
func (s *Service) RunOnce(ctx context.Context) {
	var wg sync.WaitGroup
	s.startPasses(ctx, &wg)
	wg.Wait()
}

func (s *Service) startPasses(ctx context.Context, wg *sync.WaitGroup) {
	subs, err := s.cfg.Store.ListSubscriptions(ctx, "")
	if err != nil {
		if ctx.Err() == nil {
			s.cfg.Logger.Warn("webhooks: listing subscriptions failed; trying again", "err", err)
		}
		return
	}
	now := s.cfg.Now()
	for _, sub := range subs {
		if sub.Paused || sub.Progress.NextAttempt.After(now) || !s.take(sub.ID) {
			continue
		}
		wg.Go(func() {
			defer s.release(sub.ID)
			if err := s.Deliver(ctx, sub); err != nil && ctx.Err() == nil {
				s.cfg.Logger.Warn("webhooks: delivery pass failed; trying again", "subscription", sub.ID, "err", err)
			}
		})
	}
}

func (s *Service) take(id string) bool {
	s.busyMu.Lock()
	defer s.busyMu.Unlock()
	if s.busy[id] {
		return false
	}
	s.busy[id] = true
	return true
}

func (s *Service) release(id string) {
	s.busyMu.Lock()
	defer s.busyMu.Unlock()
	delete(s.busy, id)
}

// Deliver is one pass over a subscription: it sends, in order, the events
// after its cursor that it wants, moving the cursor past each once the
// receiver took it, until the feed ends or a delivery fails (then the
// subscription waits for its next try, or is paused once it failed for
// the whole give-up window). The cursor is stored before the next event
// is sent, so a crash at any point sends an event again, never skips one.
func (s *Service) Deliver(ctx context.Context, sub Subscription) error {
	if sub.Paused {
		return nil
	}
	p := sub.Progress
	stored := p.Cursor
	save := func() error {
		if err := s.cfg.Store.SaveProgress(ctx, sub.ID, p); err != nil {
			return err
		}
		stored = p.Cursor
		return nil
	}
	for {
		evs, err := s.cfg.Store.EventsAfter(ctx, sub.Workspace, p.Cursor, batch)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if !sub.Matches(ev.Event) {
				p.Cursor = ev.Cursor // stored with the next delivery, or at the end
				continue
			}
			a, err := s.deliverOne(ctx, sub, ev)
			if err != nil {
				return err
			}
			if !a.OK {
				_, _, err := s.failed(ctx, sub, p, a, p.Failures+1)
				return err
			}
			p = Progress{Cursor: ev.Cursor}
			if err := save(); err != nil {
				return err
			}
		}
		if len(evs) < batch {
			break
		}
	}
	if p.Cursor != stored || p.Failures != 0 {
		return save()
	}
	return nil
}

// deliverOne posts one event to one subscription and logs the attempt:
// the step the local loop (Deliver) and the queue's sender (SendQueued)
// share. A context ended during the post is an error, not a failed
// attempt: the event is sent again by whoever runs next.
func (s *Service) deliverOne(ctx context.Context, sub Subscription, ev FeedEvent) (Attempt, error) {
	a, err := s.send(ctx, sub, ev, AttemptDelivery)
	if err != nil {
		return Attempt{}, err
	}
	if ctx.Err() != nil {
		return Attempt{}, ctx.Err()
	}
	if err := s.cfg.Store.AddAttempt(ctx, sub.ID, a); err != nil {
		return Attempt{}, err
	}
	return a, nil
}

// failed records a failed attempt in the subscription's progress p (the
// tries-th in a row at what failed): the next try waits for the
// schedule's step for tries, or, once the subscription has failed for the
// whole give-up window, it is paused with the reason. It returns the wait,
// and whether it paused the subscription.
func (s *Service) failed(ctx context.Context, sub Subscription, p Progress, last Attempt, tries int) (time.Duration, bool, error) {
	now := s.cfg.Now()
	if p.Failures == 0 || p.FailingSince.IsZero() {
		p.FailingSince = now.UTC()
	}
	p.Failures++
	if now.Sub(p.FailingSince) >= s.cfg.GiveUp {
		p.NextAttempt = time.Time{}
		if err := s.cfg.Store.SaveProgress(ctx, sub.ID, p); err != nil {
			return 0, false, err
		}
		reason := pauseReason(p.FailingSince, s.cfg.GiveUp, last)
		s.cfg.Logger.Warn("webhooks: subscription paused", "subscription", sub.ID, "workspace", sub.Workspace, "reason", reason)
		return 0, true, s.cfg.Store.SetPaused(ctx, sub.ID, true, reason)
	}
	wait := s.cfg.Schedule[min(max(tries, 1), len(s.cfg.Schedule))-1]
	p.NextAttempt = now.Add(wait).UTC()
	return wait, false, s.cfg.Store.SaveProgress(ctx, sub.ID, p)
}

// ParseSchedule reads a retry schedule: waits separated by commas, such as
// "5s,1m,10m,1h,6h".
func ParseSchedule(v string) ([]time.Duration, error) {
	var out []time.Duration
	for part := range strings.SplitSeq(v, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d <= 0 {
			return nil, errors.New("a retry schedule is positive durations separated by commas, such as 5s,1m,10m,1h,6h")
		}
		out = append(out, d)
	}
	return out, nil
}
