package board

import (
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Config configures a Service.
type Config struct {
	Store     Store
	BaseURL   string           // tickets link to BaseURL + "/tickets/" + id
	Retention time.Duration    // request records live this long (>= ledger.MinRetention)
	Now       func() time.Time // the clock; tests move it
	Logger    *slog.Logger
	// Runner continues tasks in the background (nil: imports run to the
	// end inside the call). See SetRunner for runners that need the Service.
	Runner TaskRunner
	// InlineImportRows: imports of at most this many rows finish inside
	// the call (0: DefaultInlineImportRows).
	InlineImportRows int
	// TaskPollInterval is what tasks suggest as polling interval (0:
	// DefaultTaskPollInterval).
	TaskPollInterval time.Duration
	// People tells mentions who is someone, and Inbox keeps inboxes
	// (inbox.go); when nil, the Store's own are used if it has them.
	People PeopleDirectory
	Inbox  InboxStore
}

// Service holds the use cases. It is safe for concurrent use.
type Service struct {
	store     Store
	baseURL   string
	retention time.Duration
	now       func() time.Time
	log       *slog.Logger
	locks     ticketLocks

	runner       TaskRunner
	inlineRows   int
	pollInterval time.Duration

	people PeopleDirectory // nil: no person is known to mentions
	inbox  InboxStore      // nil: there is no inbox to read

	sealMu sync.Mutex
	seal   *cursorSeal // nil until the first read that needs it (cursorseal.go)
}

// NewService checks the configuration and returns the use cases.
func NewService(cfg Config) (*Service, error) {
	if cfg.Store == nil {
		return nil, errors.New("board: Config.Store is required")
	}
	if cfg.Retention == 0 {
		cfg.Retention = ledger.DefaultRetention
	}
	if err := ledger.CheckRetention(cfg.Retention); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.InlineImportRows == 0 {
		cfg.InlineImportRows = DefaultInlineImportRows
	}
	if cfg.TaskPollInterval == 0 {
		cfg.TaskPollInterval = DefaultTaskPollInterval
	}
	return &Service{
		store:        cfg.Store,
		baseURL:      strings.TrimRight(cfg.BaseURL, "/"),
		retention:    cfg.Retention,
		now:          func() time.Time { return cfg.Now().UTC() },
		log:          cfg.Logger,
		runner:       cfg.Runner,
		inlineRows:   cfg.InlineImportRows,
		pollInterval: cfg.TaskPollInterval,
		people:       orStores[PeopleDirectory](cfg.People, cfg.Store),
		inbox:        orStores[InboxStore](cfg.Inbox, cfg.Store),
	}, nil
}

// maxAttempts bounds the attempts of a write that keeps losing its
// optimistic race to writers in other processes (writers in this one
// hold a per-ticket lock). With the jittered backoff between attempts (backoff.go) they span
// seconds, far more than contention on one ticket needs.
const maxAttempts = 40

// SetRunner sets the task runner of a Service built without one, for a
// runner that itself needs the Service. Call it before serving.
func (s *Service) SetRunner(r TaskRunner) { s.runner = r }

func (s *Service) ticketURL(id string) string { return s.baseURL + "/tickets/" + id }

func (s *Service) newID() string { return uuid.Must(uuid.NewV7()).String() }

// readable applies ai_policy to reads: hidden workspaces do not exist for AI.
func readable(p Principal, policy AIPolicy) bool {
	return !p.IsAI() || policy != PolicyHidden
}

// writeDenied returns the refusal for a write in a workspace, or nil.
func writeDenied(p Principal, slug string, policy AIPolicy) error {
	if !p.IsAI() {
		return nil
	}
	switch policy {
	case PolicyHidden:
		return workspaceNotFound(slug)
	case PolicyReadOnly:
		return Errorf(CodeForbidden, "workspace '%s' is read-only for AI; you can read it, but write in a read_write workspace (see list_workspaces) or ask a person to make the change", slug)
	}
	return nil
}

func requireAuthor(p Principal) error {
	if p.Author != "" {
		return nil
	}
	reason := p.NoAuthorReason
	if reason == "" {
		reason = "the credential names no author"
	}
	return Errorf(CodeForbidden, "writes are refused because this caller has no author: %s. Reads still work", reason)
}

// prepare validates the request_id and author and builds the record a write
// will commit.
func (s *Service) prepare(p Principal, tool, requestID string, args any) (ledger.Record, []byte, error) {
	if err := ledger.ValidateRequestID(requestID); err != nil {
		return ledger.Record{}, nil, Errorf(CodeInvalid, "%s", err.Error())
	}
	if err := requireAuthor(p); err != nil {
		return ledger.Record{}, nil, err
	}
	canonical, err := ledger.CanonicalArgs(args)
	if err != nil {
		return ledger.Record{}, nil, Errorf(CodeInvalid, "arguments cannot be encoded: %v", err)
	}
	key := RequestKey(p, requestID)
	return ledger.NewRecord(key, tool, canonical, s.now(), s.retention), canonical, nil
}
