package sqlite

import (
	"context"
	"database/sql/driver"
	"reflect"
)

// Every connection keeps the statements it ran prepared, keyed by their SQL
// text. database/sql hands a query with arguments straight to the driver,
// which parses and plans it again on every call; for a write to tickets that
// means compiling its triggers too (counts, tag rows, the word index), and
// that parsing was a quarter of a create's CPU. A cached statement is reset
// after each use, so it holds no lock and no snapshot between calls (WAL
// checkpoints and VACUUM are not held up), and SQLite prepares it again by
// itself if the schema changed.
//
// The cache sits between database/sql and the driver, so every query of the
// store uses it without changing how the store is written.

// maxCachedStatements bounds one connection's cache; past it, a statement
// not in use is dropped for the new one.
const maxCachedStatements = 128

// cachingConnector wraps the driver's connector so that each connection it
// opens caches its statements.
type cachingConnector struct{ driver.Connector }

func (c cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	inner, ok := conn.(innerConn)
	if !ok {
		return conn, nil // a driver without these interfaces: no cache
	}
	return &cachingConn{inner: inner, stmts: map[string]*cachedStmt{}}, nil
}

// innerConn is what modernc.org/sqlite's connections implement and
// database/sql uses.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

type cachedStmt struct {
	stmt interface {
		driver.Stmt
		driver.StmtExecContext
		driver.StmtQueryContext
	}
	// busy: rows of this statement are open. A statement has one cursor,
	// so while they are, the same SQL runs as a statement of its own.
	busy bool
}

// cachingConn is used by one goroutine at a time (database/sql's rule for
// a driver connection), so its map needs no lock.
type cachingConn struct {
	inner innerConn
	stmts map[string]*cachedStmt
}

var (
	_ innerConn                = (*cachingConn)(nil)
	_ driver.RowsNextResultSet = (*cachedRows)(nil)
)

// cached returns the statement for query, preparing it on first use, or nil
// when the cached one is in use or the driver's statement lacks the
// interfaces (then the caller runs query on the connection itself).
func (c *cachingConn) cached(ctx context.Context, query string) (*cachedStmt, error) {
	if cs, ok := c.stmts[query]; ok {
		if cs.busy {
			return nil, nil
		}
		return cs, nil
	}
	st, err := c.inner.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	full, ok := st.(interface {
		driver.Stmt
		driver.StmtExecContext
		driver.StmtQueryContext
	})
	if !ok {
		st.Close()
		return nil, nil
	}
	if len(c.stmts) >= maxCachedStatements {
		for q, old := range c.stmts {
			if !old.busy {
				old.stmt.Close()
				delete(c.stmts, q)
				break
			}
		}
	}
	cs := &cachedStmt{stmt: full}
	c.stmts[query] = cs
	return cs, nil
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.cached(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.inner.ExecContext(ctx, query, args)
	}
	return cs.stmt.ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, err := c.cached(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.inner.QueryContext(ctx, query, args)
	}
	rows, err := cs.stmt.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: rows, stmt: cs}, nil
}

// Close finalizes the cached statements, then closes the connection.
func (c *cachingConn) Close() error {
	for q, cs := range c.stmts {
		cs.stmt.Close()
		delete(c.stmts, q)
	}
	return c.inner.Close()
}

// The rest is the driver's own.

func (c *cachingConn) Prepare(query string) (driver.Stmt, error) { return c.inner.Prepare(query) }
func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.inner.PrepareContext(ctx, query)
}
func (c *cachingConn) Begin() (driver.Tx, error) { return c.inner.Begin() } //nolint:staticcheck // the driver.Conn interface
func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.inner.BeginTx(ctx, opts)
}
func (c *cachingConn) Ping(ctx context.Context) error         { return c.inner.Ping(ctx) }
func (c *cachingConn) ResetSession(ctx context.Context) error { return c.inner.ResetSession(ctx) }
func (c *cachingConn) IsValid() bool                          { return c.inner.IsValid() }

// cachedRows frees its statement for the next use when closed.
type cachedRows struct {
	driver.Rows
	stmt *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close() // resets the statement
	r.stmt.busy = false
	return err
}

// The column type methods and result sets are the driver's, when it has them.

func (r *cachedRows) HasNextResultSet() bool {
	x, ok := r.Rows.(driver.RowsNextResultSet)
	return ok && x.HasNextResultSet()
}

func (r *cachedRows) NextResultSet() error {
	if x, ok := r.Rows.(driver.RowsNextResultSet); ok {
		return x.NextResultSet()
	}
	return nil
}

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if x, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return x.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if x, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return x.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) {
	if x, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return x.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if x, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return x.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if x, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return x.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}
