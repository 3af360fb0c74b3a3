package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// webhookSchema holds webhook subscriptions and their delivery logs
// (webhook.Store). It is created where missing on every open, as the
// people's tables are. A subscription's cursor is the seq of the last
// event it is past: seq is append order, and SQLite has one writer, so an
// event committed later always has a higher seq.
const webhookSchema = `
CREATE TABLE IF NOT EXISTS webhooks (
	id            TEXT PRIMARY KEY,
	workspace     TEXT NOT NULL,
	created_at    TEXT NOT NULL,
	data          TEXT NOT NULL, -- what never changes, as JSON
	secret        BLOB NOT NULL, -- sealed (internal/webhook/secret.go)
	paused        INTEGER NOT NULL DEFAULT 0,
	paused_reason TEXT NOT NULL DEFAULT '',
	cursor        TEXT NOT NULL DEFAULT '',
	progress      TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS webhooks_by_workspace ON webhooks (workspace, created_at);
CREATE TABLE IF NOT EXISTS webhook_attempts (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	webhook_id TEXT NOT NULL,
	data       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_attempts_by_webhook ON webhook_attempts (webhook_id, seq);
`

var _ webhook.Store = (*Store)(nil)

// webhookData is a subscription's unchanging part as stored.
type webhookData struct {
	URL       string                `json:"url"`
	Events    []webhook.EventFilter `json:"events"`
	Inbox     string                `json:"inbox,omitempty"`
	Format    webhook.Format        `json:"format"`
	CreatedBy string                `json:"created_by"`
	CreatedAt string                `json:"created_at"`
}

// CreateSubscription inserts the subscription and its creation's request
// record in one transaction.
func (s *Store) CreateSubscription(ctx context.Context, sub webhook.Subscription, rec ledger.Record) error {
	data, err := json.Marshal(webhookData{URL: sub.URL, Events: sub.Events, Inbox: sub.Inbox, Format: sub.Format, CreatedBy: sub.CreatedBy, CreatedAt: formatTime(sub.CreatedAt)})
	if err != nil {
		return err
	}
	progress, err := json.Marshal(sub.Progress)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := claimKey(ctx, tx, rec.Key, rec.CreatedAt); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO webhooks (id, workspace, created_at, data, secret, paused, paused_reason, cursor, progress) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sub.ID, sub.Workspace, formatTime(sub.CreatedAt), string(data), sub.SealedSecret, sub.Paused, sub.PausedReason, sub.Progress.Cursor, string(progress))
		if err != nil {
			return err
		}
		return putRequest(ctx, tx, rec)
	})
}

const webhookColumns = `id, workspace, data, secret, paused, paused_reason, cursor, progress`

func scanWebhook(row interface{ Scan(...any) error }) (webhook.Subscription, error) {
	var sub webhook.Subscription
	var data, cursor, progress string
	if err := row.Scan(&sub.ID, &sub.Workspace, &data, &sub.SealedSecret, &sub.Paused, &sub.PausedReason, &cursor, &progress); err != nil {
		return sub, err
	}
	var d webhookData
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		return sub, err
	}
	if err := json.Unmarshal([]byte(progress), &sub.Progress); err != nil {
		return sub, err
	}
	created, err := parseTime(d.CreatedAt)
	if err != nil {
		return sub, err
	}
	sub.URL, sub.Events, sub.Inbox, sub.Format, sub.CreatedBy, sub.CreatedAt = d.URL, d.Events, d.Inbox, d.Format, d.CreatedBy, created
	if sub.Events == nil {
		sub.Events = []webhook.EventFilter{}
	}
	sub.Progress.Cursor = cursor
	return sub, nil
}

// GetSubscription reads one subscription.
func (s *Store) GetSubscription(ctx context.Context, id string) (webhook.Subscription, error) {
	sub, err := scanWebhook(s.read.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return sub, board.ErrNotFound
	}
	return sub, err
}

// ListSubscriptions reads a workspace's subscriptions, or every one.
func (s *Store) ListSubscriptions(ctx context.Context, workspace string) ([]webhook.Subscription, error) {
	q, args := `SELECT `+webhookColumns+` FROM webhooks ORDER BY created_at, id`, []any{}
	if workspace != "" {
		q, args = `SELECT `+webhookColumns+` FROM webhooks WHERE workspace = ? ORDER BY created_at, id`, []any{workspace}
	}
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []webhook.Subscription
	for rows.Next() {
		sub, err := scanWebhook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sub)
	}
	return out, rows.Err()
}

// DeleteSubscription deletes the subscription and its log.
func (s *Store) DeleteSubscription(ctx context.Context, id string) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM webhooks WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return board.ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM webhook_attempts WHERE webhook_id = ?`, id)
		return err
	})
}

// updateWebhook runs one UPDATE of a subscription that must exist.
func (s *Store) updateWebhook(ctx context.Context, q string, args ...any) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return board.ErrNotFound
		}
		return nil
	})
}

// SetPaused pauses or resumes; resuming clears the failures.
func (s *Store) SetPaused(ctx context.Context, id string, paused bool, reason string) error {
	if paused {
		return s.updateWebhook(ctx, `UPDATE webhooks SET paused = 1, paused_reason = ? WHERE id = ?`, reason, id)
	}
	return s.updateWebhook(ctx, `UPDATE webhooks SET paused = 0, paused_reason = '', progress = '{}' WHERE id = ?`, id)
}

// SaveProgress stores the cursor and the failures.
func (s *Store) SaveProgress(ctx context.Context, id string, p webhook.Progress) error {
	progress, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return s.updateWebhook(ctx, `UPDATE webhooks SET cursor = ?, progress = ? WHERE id = ?`, p.Cursor, string(progress), id)
}

// AddAttempt appends to the log and drops what is beyond the newest
// webhook.KeepAttempts, in one transaction.
func (s *Store) AddAttempt(ctx context.Context, id string, a webhook.Attempt) error {
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_attempts (webhook_id, data) VALUES (?, ?)`, id, string(data)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM webhook_attempts WHERE webhook_id = ? AND seq <= (
			SELECT seq FROM webhook_attempts WHERE webhook_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`, id, id, webhook.KeepAttempts)
		return err
	})
}

// ListAttempts reads the log newest first.
func (s *Store) ListAttempts(ctx context.Context, id string, limit int) ([]webhook.Attempt, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT data FROM webhook_attempts WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?`, id, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []webhook.Attempt
	for rows.Next() {
		var data string
		var a webhook.Attempt
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(data), &a); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// EventsEnd is the seq of the workspace's newest event.
func (s *Store) EventsEnd(ctx context.Context, workspace string) (string, error) {
	var seq sql.NullInt64
	if err := s.read.QueryRowContext(ctx, `SELECT max(seq) FROM events WHERE workspace = ?`, workspace).Scan(&seq); err != nil {
		return "", err
	}
	if !seq.Valid {
		return "", nil
	}
	return strconv.FormatInt(seq.Int64, 10), nil
}

// EventsAfter walks events_by_workspace from the cursor, with the title
// each event's ticket has now.
func (s *Store) EventsAfter(ctx context.Context, workspace, cursor string, limit int) ([]webhook.FeedEvent, error) {
	var after int64
	if cursor != "" {
		n, err := strconv.ParseInt(cursor, 10, 64)
		if err != nil {
			return nil, errors.New("sqlite: a webhook cursor is an event seq, not " + strconv.Quote(cursor))
		}
		after = n
	}
	rows, err := s.read.QueryContext(ctx, `SELECT e.seq, e.data, coalesce(t.title, '')
		FROM events e LEFT JOIN tickets t ON t.id = e.ticket_id
		WHERE e.workspace = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`, workspace, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []webhook.FeedEvent
	for rows.Next() {
		fe, err := scanFeedEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, fe)
	}
	return out, rows.Err()
}

func scanFeedEvent(row interface{ Scan(...any) error }) (webhook.FeedEvent, error) {
	var fe webhook.FeedEvent
	var seq int64
	var data string
	if err := row.Scan(&seq, &data, &fe.Title); err != nil {
		return fe, err
	}
	fe.Cursor = strconv.FormatInt(seq, 10)
	return fe, json.Unmarshal([]byte(data), &fe.Event)
}

// FindEvent reads one event of the workspace by id.
func (s *Store) FindEvent(ctx context.Context, workspace, id string) (webhook.FeedEvent, error) {
	fe, err := scanFeedEvent(s.read.QueryRowContext(ctx, `SELECT e.seq, e.data, coalesce(t.title, '')
		FROM events e LEFT JOIN tickets t ON t.id = e.ticket_id WHERE e.id = ? AND e.workspace = ?`, id, workspace))
	if errors.Is(err, sql.ErrNoRows) {
		return fe, board.ErrNotFound
	}
	return fe, err
}

// PutSubscription stores a moved subscription unless one is stored under
// its id: then AlreadyThere when it is the same one
// (webhook.SameTransferred), else Collision.
func (s *Store) PutSubscription(ctx context.Context, sub webhook.Subscription) (board.PutOutcome, error) {
	data, err := json.Marshal(webhookData{URL: sub.URL, Events: sub.Events, Inbox: sub.Inbox, Format: sub.Format, CreatedBy: sub.CreatedBy, CreatedAt: formatTime(sub.CreatedAt)})
	if err != nil {
		return 0, err
	}
	progress, err := json.Marshal(sub.Progress)
	if err != nil {
		return 0, err
	}
	secret := sub.SealedSecret
	if secret == nil {
		secret = []byte{}
	}
	var out board.PutOutcome
	err = s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO webhooks (id, workspace, created_at, data, secret, paused, paused_reason, cursor, progress)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			sub.ID, sub.Workspace, formatTime(sub.CreatedAt), string(data), secret, sub.Paused, sub.PausedReason, sub.Progress.Cursor, string(progress))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			out = board.Added
			return nil
		}
		have, err := scanWebhook(tx.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = ?`, sub.ID))
		if err != nil {
			return err
		}
		out = board.Collision
		if webhook.SameTransferred(have, sub) {
			out = board.AlreadyThere
		}
		return nil
	})
	return out, err
}
