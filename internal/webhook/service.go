package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// DefaultSchedule is the wait after each failure in a row; the last wait
// repeats until the give-up window ends.
var DefaultSchedule = []time.Duration{5 * time.Second, time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour}

// DefaultGiveUp is how long deliveries may fail in a row before the
// subscription is paused.
const DefaultGiveUp = 24 * time.Hour

// DefaultPoll is how often the sender looks for new events.
const DefaultPoll = time.Second

// MaxPerWorkspace bounds a workspace's subscriptions.
const MaxPerWorkspace = 20

// Workspaces tells whether a workspace exists (board.Store does).
type Workspaces interface {
	GetWorkspace(ctx context.Context, slug string) (board.Workspace, error)
}

// Config builds a Service.
type Config struct {
	Store      Store
	Secrets    board.SecretStore
	Workspaces Workspaces
	// People tells whether the person an inbox subscription follows
	// exists: Workspaces when it is also a board.PeopleDirectory (a
	// store keeps both) and People is unset.
	People board.PeopleDirectory
	// BaseURL is the board's address: tickets link to BaseURL +
	// "/tickets/" + id.
	BaseURL string
	// AllowPrivate lets deliveries go to loopback and private addresses
	// and over plain http (LEDGER_WEBHOOK_ALLOW_PRIVATE=1).
	AllowPrivate bool
	// Schedule and GiveUp: DefaultSchedule and DefaultGiveUp when unset.
	Schedule []time.Duration
	GiveUp   time.Duration
	// Poll: DefaultPoll when unset. Timeout: Timeout when unset.
	Poll    time.Duration
	Timeout time.Duration
	// Retention is how long a creation's request record answers a retry:
	// ledger.DefaultRetention when unset (the board's, so that one
	// request_id namespace keeps one rule).
	Retention time.Duration
	Now       func() time.Time
	Logger    *slog.Logger
}

// Service manages subscriptions and delivers events.
type Service struct {
	cfg    Config
	client *http.Client

	sealMu sync.Mutex
	seal   *sealer

	busyMu sync.Mutex
	busy   map[string]bool
}

// New builds a Service.
func New(cfg Config) *Service {
	if len(cfg.Schedule) == 0 {
		cfg.Schedule = DefaultSchedule
	}
	if cfg.GiveUp <= 0 {
		cfg.GiveUp = DefaultGiveUp
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = Timeout
	}
	if cfg.Retention <= 0 {
		cfg.Retention = ledger.DefaultRetention
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if p, ok := cfg.Workspaces.(board.PeopleDirectory); ok && cfg.People == nil {
		cfg.People = p
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg, client: newClient(cfg.AllowPrivate, cfg.Timeout), busy: map[string]bool{}}
}

// sealer reads the sealing key once per process.
func (s *Service) sealer(ctx context.Context) (*sealer, error) {
	s.sealMu.Lock()
	defer s.sealMu.Unlock()
	if s.seal == nil {
		sl, err := newSealer(ctx, s.cfg.Secrets)
		if err != nil {
			return nil, err
		}
		s.seal = sl
	}
	return s.seal, nil
}

// internal logs err and answers the caller without it.
func (s *Service) internal(err error) error {
	id := uuid.NewString()
	s.cfg.Logger.Error("webhooks: store failure", "error_id", id, "err", err)
	e := board.Errorf(board.CodeInternal, "the server could not reach its store (error %s); try again in a moment", id)
	e.ErrorID = id
	return e
}

// admin refuses everyone but an admin.
func admin(ctx context.Context) error {
	if !board.PrincipalFrom(ctx).IsAdmin() {
		return board.Errorf(board.CodeForbidden, "only admins manage webhooks; ask an admin")
	}
	return nil
}

// CreateInput subscribes a URL to a workspace.
type CreateInput struct {
	// RequestID makes the creation happen once (REST: the Idempotency-Key
	// header; the board's form carries one).
	RequestID string        `json:"-"`
	Workspace string        `json:"-"`
	URL       string        `json:"url"`
	Events    []EventFilter `json:"events,omitempty"`
	// Inbox, a person's handle, sends only the events that put an item in
	// that person's inbox.
	Inbox  string `json:"inbox,omitempty"`
	Format Format `json:"format,omitempty"`
}

// Created is a new subscription with its signing secret, shown in this
// answer (and its replays: createonce.go) only.
type Created struct {
	Subscription Subscription `json:"subscription"`
	Secret       string       `json:"secret"`
	replayed     bool
}

// WasReplayed says whether this is the answer of an earlier call with the
// same request_id (REST: Idempotent-Replayed).
func (c Created) WasReplayed() bool { return c.replayed }

// Create subscribes a URL, once per request_id. The subscription starts at
// the workspace's newest event: it is sent what happens from now on.
func (s *Service) Create(ctx context.Context, in CreateInput) (Created, error) {
	if err := admin(ctx); err != nil {
		return Created{}, err
	}
	if err := s.workspace(ctx, in.Workspace); err != nil {
		return Created{}, err
	}
	rec, err := s.createRecord(ctx, in)
	if err != nil {
		return Created{}, err
	}
	// A retry is answered before the checks: the bound on subscriptions
	// may be reached by the first call's own.
	if out, found, err := s.earlierAnswer(ctx, rec); found || err != nil {
		return out, err
	}
	if in.Format == "" {
		in.Format = FormatJSON
	}
	if in.Format != FormatJSON && in.Format != FormatSlack {
		return Created{}, board.Errorf(board.CodeInvalid, "format %q is unknown; use json or slack", in.Format)
	}
	if err := checkURL(in.URL, s.cfg.AllowPrivate); err != nil {
		return Created{}, err
	}
	if err := validateFilters(in.Events); err != nil {
		return Created{}, err
	}
	if err := s.checkInbox(ctx, in.Inbox); err != nil {
		return Created{}, err
	}
	existing, err := s.cfg.Store.ListSubscriptions(ctx, in.Workspace)
	if err != nil {
		return Created{}, s.internal(err)
	}
	if len(existing) >= MaxPerWorkspace {
		return Created{}, board.Errorf(board.CodeConflict, "workspace %s has %d webhooks, the most it may have; delete one first", in.Workspace, len(existing))
	}
	seal, err := s.sealer(ctx)
	if err != nil {
		return Created{}, s.internal(err)
	}
	end, err := s.cfg.Store.EventsEnd(ctx, in.Workspace)
	if err != nil {
		return Created{}, s.internal(err)
	}
	secret := NewSecret()
	sub := Subscription{ID: "wh_" + uuid.NewString(), Workspace: in.Workspace, URL: in.URL, Events: in.Events, Inbox: in.Inbox, Format: in.Format,
		CreatedBy: board.PrincipalFrom(ctx).Author, CreatedAt: s.cfg.Now().UTC(), Progress: Progress{Cursor: end}}
	if sub.Events == nil {
		sub.Events = []EventFilter{}
	}
	sub.SealedSecret = seal.seal(sub.ID, secret)
	if rec.Result, err = recordResult(sub); err != nil {
		return Created{}, s.internal(err)
	}
	err = s.cfg.Store.CreateSubscription(ctx, sub, rec)
	var exists *ledger.ExistsError
	switch {
	case errors.As(err, &exists): // a concurrent call with the same key won
		return s.answerExisting(ctx, exists.Record, rec)
	case err != nil:
		return Created{}, s.internal(err)
	}
	return Created{Subscription: sub, Secret: secret}, nil
}

func (s *Service) workspace(ctx context.Context, slug string) error {
	if err := board.ValidateSlug(slug); err != nil {
		return err
	}
	_, err := s.cfg.Workspaces.GetWorkspace(ctx, slug)
	switch {
	case errors.Is(err, board.ErrNotFound):
		return board.Errorf(board.CodeNotFound, "workspace %s does not exist; list_workspaces names those that do", slug)
	case err != nil:
		return s.internal(err)
	}
	return nil
}

// List returns a workspace's subscriptions.
func (s *Service) List(ctx context.Context, workspace string) ([]Subscription, error) {
	if err := admin(ctx); err != nil {
		return nil, err
	}
	if err := s.workspace(ctx, workspace); err != nil {
		return nil, err
	}
	subs, err := s.cfg.Store.ListSubscriptions(ctx, workspace)
	if err != nil {
		return nil, s.internal(err)
	}
	if subs == nil {
		subs = []Subscription{}
	}
	return subs, nil
}

// Detail is a subscription with its newest delivery attempts.
type Detail struct {
	Subscription Subscription `json:"subscription"`
	Deliveries   []Attempt    `json:"deliveries"`
}

// Get returns a subscription and its delivery log.
func (s *Service) Get(ctx context.Context, workspace, id string) (Detail, error) {
	sub, err := s.find(ctx, workspace, id)
	if err != nil {
		return Detail{}, err
	}
	log, err := s.cfg.Store.ListAttempts(ctx, id, KeepAttempts)
	if err != nil {
		return Detail{}, s.internal(err)
	}
	if log == nil {
		log = []Attempt{}
	}
	return Detail{Subscription: sub, Deliveries: log}, nil
}

// find is an admin's read of one subscription of the workspace.
func (s *Service) find(ctx context.Context, workspace, id string) (Subscription, error) {
	if err := admin(ctx); err != nil {
		return Subscription{}, err
	}
	sub, err := s.cfg.Store.GetSubscription(ctx, id)
	switch {
	case errors.Is(err, board.ErrNotFound) || (err == nil && sub.Workspace != workspace):
		return Subscription{}, board.Errorf(board.CodeNotFound, "workspace %s has no webhook %s; list its webhooks to see their ids", workspace, id)
	case err != nil:
		return Subscription{}, s.internal(err)
	}
	return sub, nil
}

// Delete removes a subscription and its log.
func (s *Service) Delete(ctx context.Context, workspace, id string) error {
	if _, err := s.find(ctx, workspace, id); err != nil {
		return err
	}
	if err := s.cfg.Store.DeleteSubscription(ctx, id); err != nil && !errors.Is(err, board.ErrNotFound) {
		return s.internal(err)
	}
	return nil
}

// SetPaused pauses or resumes a subscription; a resumed one tries the
// event it was held at again at once.
func (s *Service) SetPaused(ctx context.Context, workspace, id string, paused bool) (Subscription, error) {
	sub, err := s.find(ctx, workspace, id)
	if err != nil {
		return Subscription{}, err
	}
	if !paused && len(sub.SealedSecret) == 0 {
		return Subscription{}, board.Errorf(board.CodeInvalid, "webhook %s cannot be resumed: it has no signing secret (it was moved without one; only import-board --with-people carries secrets). Delete it and subscribe its URL again", id)
	}
	reason := ""
	if paused {
		reason = "paused by " + board.PrincipalFrom(ctx).Author
	}
	if err := s.cfg.Store.SetPaused(ctx, id, paused, reason); err != nil {
		return Subscription{}, s.internal(err)
	}
	return s.find(ctx, workspace, id)
}

// SendTest posts a test event now and returns the attempt.
func (s *Service) SendTest(ctx context.Context, workspace, id string) (Attempt, error) {
	sub, err := s.find(ctx, workspace, id)
	if err != nil {
		return Attempt{}, err
	}
	p := board.PrincipalFrom(ctx)
	ev := FeedEvent{Event: board.Event{ID: uuid.Must(uuid.NewV7()).String(), Workspace: workspace, Type: TestEventType,
		Author: p.Author, OnBehalfOf: p.OnBehalfOf, Source: p.Source, At: s.cfg.Now().UTC()}}
	return s.sendLogged(ctx, sub, ev, AttemptTest)
}

// Redeliver posts one event of the workspace again now, with its own id.
func (s *Service) Redeliver(ctx context.Context, workspace, id, eventID string) (Attempt, error) {
	sub, err := s.find(ctx, workspace, id)
	if err != nil {
		return Attempt{}, err
	}
	if eventID == "" {
		return Attempt{}, board.Errorf(board.CodeInvalid, "event_id is required: the id of the event to send again (the webhook-id of its delivery)")
	}
	ev, err := s.cfg.Store.FindEvent(ctx, workspace, eventID)
	switch {
	case errors.Is(err, board.ErrNotFound):
		return Attempt{}, board.Errorf(board.CodeNotFound, "workspace %s has no event %s; the delivery log names the events sent", workspace, eventID)
	case err != nil:
		return Attempt{}, s.internal(err)
	}
	return s.sendLogged(ctx, sub, ev, AttemptRedelivery)
}

// sendLogged sends and logs one attempt made on request.
func (s *Service) sendLogged(ctx context.Context, sub Subscription, ev FeedEvent, kind string) (Attempt, error) {
	a, err := s.send(ctx, sub, ev, kind)
	if err != nil {
		return Attempt{}, s.internal(err)
	}
	if err := s.cfg.Store.AddAttempt(ctx, sub.ID, a); err != nil {
		return Attempt{}, s.internal(err)
	}
	return a, nil
}

// pauseReason says why deliveries stopped.
func pauseReason(since time.Time, giveUp time.Duration, last Attempt) string {
	answer := fmt.Sprintf("status %d", last.Status)
	if last.Status == 0 {
		answer = last.Answer
	}
	return fmt.Sprintf("deliveries failed for %s since %s (last: %s); fix the receiver, then resume", giveUp, since.UTC().Format(time.RFC3339), answer)
}
