package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// taskSchema holds durable tasks and the rows staged for them. A task is
// kept whole as JSON in data; status, cursor and the times are columns too,
// for conditions and the resume query. Staged rows are deleted when their
// task ends.
const taskSchema = `
CREATE TABLE IF NOT EXISTS tasks (
	id         TEXT PRIMARY KEY,
	status     TEXT NOT NULL,
	cursor     INTEGER NOT NULL,
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL,
	data       TEXT NOT NULL -- the whole board.Task as JSON
);
CREATE INDEX IF NOT EXISTS tasks_by_status ON tasks (status, created_at);
CREATE TABLE IF NOT EXISTS task_rows (
	task_id TEXT NOT NULL,
	row     INTEGER NOT NULL,
	data    TEXT NOT NULL, -- one import row as JSON
	PRIMARY KEY (task_id, row)
) WITHOUT ROWID;
`

func (s *Store) migrateTasks(ctx context.Context) error {
	_, err := s.write.ExecContext(ctx, taskSchema)
	return err
}

// CreateTask commits the task and its staged rows in one transaction.
func (s *Store) CreateTask(ctx context.Context, t board.Task, rows []json.RawMessage) error {
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO tasks (id, status, cursor, created_at, expires_at, data) VALUES (?, ?, ?, ?, ?, ?)`,
			t.ID, string(t.Status), t.Cursor, formatTime(t.CreatedAt), formatTime(t.ExpiresAt), string(data)); err != nil {
			return fmt.Errorf("creating task %s: %w", t.ID, err)
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO task_rows (task_id, row, data) VALUES (?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, r := range rows {
			if _, err := stmt.ExecContext(ctx, t.ID, i, string(r)); err != nil {
				return err
			}
		}
		return nil
	})
}

// GetTask returns the unexpired task.
func (s *Store) GetTask(ctx context.Context, id string, now time.Time) (board.Task, error) {
	return getTask(ctx, s.read, id, now)
}

func getTask(ctx context.Context, q querier, id string, now time.Time) (board.Task, error) {
	var data string
	err := q.QueryRowContext(ctx, `SELECT data FROM tasks WHERE id = ? AND expires_at > ?`, id, formatTime(now)).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return board.Task{}, board.ErrNotFound
	}
	if err != nil {
		return board.Task{}, err
	}
	var t board.Task
	if err := json.Unmarshal([]byte(data), &t); err != nil {
		return board.Task{}, fmt.Errorf("task %s: %w", id, err)
	}
	return t, nil
}

// StagedRows returns up to n rows from row from on.
func (s *Store) StagedRows(ctx context.Context, taskID string, from, n int) ([]json.RawMessage, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT data FROM task_rows WHERE task_id = ? AND row >= ? ORDER BY row LIMIT ?`, taskID, from, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []json.RawMessage
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		out = append(out, json.RawMessage(d))
	}
	return out, rows.Err()
}

// UpdateTask stores t if the stored task is in one of from at t.Cursor.
func (s *Store) UpdateTask(ctx context.Context, t board.Task, from []board.TaskStatus) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return updateTask(ctx, tx, t, from)
	})
}

// updateTask is UpdateTask inside a transaction; a task that ends loses
// its staged rows.
func updateTask(ctx context.Context, tx *sql.Tx, t board.Task, from []board.TaskStatus) error {
	current, err := getTaskAnyTime(ctx, tx, t.ID)
	if err != nil {
		return err
	}
	if !slices.Contains(from, current.Status) || current.Cursor != t.Cursor {
		return &board.TaskChangedError{Task: current}
	}
	if err := writeTask(ctx, tx, t); err != nil {
		return err
	}
	if t.Status.Terminal() {
		_, err = tx.ExecContext(ctx, `DELETE FROM task_rows WHERE task_id = ?`, t.ID)
	}
	return err
}

// getTaskAnyTime reads a task whatever its expiry: conditions compare with
// the stored state.
func getTaskAnyTime(ctx context.Context, q querier, id string) (board.Task, error) {
	return getTask(ctx, q, id, time.Time{})
}

func writeTask(ctx context.Context, tx *sql.Tx, t board.Task) error {
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE tasks SET status = ?, cursor = ?, data = ? WHERE id = ?`,
		string(t.Status), t.Cursor, string(data), t.ID)
	return err
}

// UnfinishedTasks lists active unexpired tasks, oldest first.
func (s *Store) UnfinishedTasks(ctx context.Context, now time.Time) ([]board.Task, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT data FROM tasks WHERE status IN (?, ?) AND expires_at > ? ORDER BY created_at, id`,
		string(board.TaskWorking), string(board.TaskInputRequired), formatTime(now))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []board.Task
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		var t board.Task
		if err := json.Unmarshal([]byte(d), &t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
