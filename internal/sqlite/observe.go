package sqlite

import (
	"context"
	"database/sql/driver"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/obs"
)

// countingConnector opens connections that count, in the record of the
// request a statement serves (internal/obs), every statement they run or
// prepare — the SQLite "store requests" of a request's log line (a
// statement prepared once and run per row counts once; BEGIN and COMMIT do
// not count). A write's statements run on the committer's connection with
// the caller's context, so they count for the caller.
type countingConnector struct{ base driver.Connector }

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{conn: conn}, nil
}

func (c countingConnector) Driver() driver.Driver { return c.base.Driver() }

// countingConn passes every call through to the driver's connection, which
// implements all of these interfaces.
type countingConn struct{ conn driver.Conn }

func noteStatement(ctx context.Context, err error) {
	obs.CountStoreRequest(ctx)
	if err != nil && (strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked")) {
		obs.CountStoreThrottle(ctx)
	}
}

func (c *countingConn) Prepare(query string) (driver.Stmt, error) { return c.conn.Prepare(query) }
func (c *countingConn) Close() error                              { return c.conn.Close() }

//lint:ignore SA1019 part of driver.Conn
func (c *countingConn) Begin() (driver.Tx, error) { return c.conn.Begin() } //nolint:staticcheck

func (c *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := c.conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	noteStatement(ctx, err)
	return s, err
}

func (c *countingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	if err != driver.ErrSkip {
		noteStatement(ctx, err)
	}
	return r, err
}

func (c *countingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	if err != driver.ErrSkip {
		noteStatement(ctx, err)
	}
	return r, err
}

func (c *countingConn) Ping(ctx context.Context) error {
	if p, ok := c.conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *countingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *countingConn) IsValid() bool {
	if v, ok := c.conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}
