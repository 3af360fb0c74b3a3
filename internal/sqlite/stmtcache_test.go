package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	modernc "modernc.org/sqlite"
)

// openCaching opens one connection through the statement cache.
func openCaching(t *testing.T) (*sql.DB, *cachingConn) {
	t.Helper()
	connector, err := modernc.NewConnector("file:" + filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(cachingConnector{connector})
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var cc *cachingConn
	if err := conn.Raw(func(dc any) error { cc = dc.(*cachingConn); return nil }); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	return db, cc
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// A statement runs prepared from its second use on: the same SQL finds the
// same prepared statement.
func TestStatementCacheReusesStatements(t *testing.T) {
	db, cc := openCaching(t)
	mustExec(t, db, `CREATE TABLE t (a INTEGER, b TEXT)`)
	for i := range 5 {
		mustExec(t, db, `INSERT INTO t (a, b) VALUES (?, ?)`, i, fmt.Sprint(i))
	}
	first := cc.stmts[`INSERT INTO t (a, b) VALUES (?, ?)`]
	if first == nil {
		t.Fatal("the insert was not kept prepared")
	}
	mustExec(t, db, `INSERT INTO t (a, b) VALUES (?, ?)`, 9, "9")
	if cc.stmts[`INSERT INTO t (a, b) VALUES (?, ?)`] != first {
		t.Error("the insert was prepared again")
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM t WHERE a >= ?`, 0).Scan(&n); err != nil || n != 6 {
		t.Fatalf("count = %d, %v; want 6", n, err)
	}
}

// The same SQL run again while its rows are still open (a query inside the
// loop over its own results) gets a statement of its own: one statement
// has one cursor, and the outer loop must not lose its place.
func TestStatementCacheSameQueryNested(t *testing.T) {
	db, _ := openCaching(t)
	mustExec(t, db, `CREATE TABLE t (a INTEGER)`)
	for i := range 4 {
		mustExec(t, db, `INSERT INTO t (a) VALUES (?)`, i)
	}
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	const q = `SELECT a FROM t WHERE a >= ? ORDER BY a`
	rows, err := tx.Query(q, 0)
	if err != nil {
		t.Fatal(err)
	}
	var outer, inner []int
	for rows.Next() {
		var a int
		if err := rows.Scan(&a); err != nil {
			t.Fatal(err)
		}
		outer = append(outer, a)
		var b int
		if err := tx.QueryRow(q, a).Scan(&b); err != nil {
			t.Fatal(err)
		}
		inner = append(inner, b)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if fmt.Sprint(outer) != "[0 1 2 3]" || fmt.Sprint(inner) != "[0 1 2 3]" {
		t.Fatalf("outer %v inner %v, want [0 1 2 3] twice", outer, inner)
	}
}

// A schema change under a prepared statement is picked up: SQLite prepares
// it again by itself.
func TestStatementCacheAfterSchemaChange(t *testing.T) {
	db, _ := openCaching(t)
	mustExec(t, db, `CREATE TABLE t (a INTEGER)`)
	mustExec(t, db, `INSERT INTO t (a) VALUES (?)`, 1)
	const q = `SELECT * FROM t`
	var a int
	if err := db.QueryRow(q).Scan(&a); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `ALTER TABLE t ADD COLUMN b TEXT NOT NULL DEFAULT 'x'`)
	var b string
	if err := db.QueryRow(q).Scan(&a, &b); err != nil || b != "x" {
		t.Fatalf("after ALTER: %q, %v; want the new column", b, err)
	}
	// Kept statements are reset after each use, so they hold nothing
	// that would stop a VACUUM.
	mustExec(t, db, `VACUUM`)
}

// The cache stays within its bound, and what is dropped still answers when
// it comes again.
func TestStatementCacheBound(t *testing.T) {
	db, cc := openCaching(t)
	mustExec(t, db, `CREATE TABLE t (a INTEGER)`)
	for i := range maxCachedStatements + 20 {
		var n int
		if err := db.QueryRow(fmt.Sprintf(`SELECT %d + count(*) FROM t`, i)).Scan(&n); err != nil || n != i {
			t.Fatalf("query %d: %d, %v", i, n, err)
		}
	}
	if len(cc.stmts) > maxCachedStatements {
		t.Fatalf("%d statements kept, bound %d", len(cc.stmts), maxCachedStatements)
	}
	var n int
	if err := db.QueryRow(`SELECT 0 + count(*) FROM t`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a dropped statement again: %d, %v", n, err)
	}
}

// An error in a kept statement leaves it usable.
func TestStatementCacheAfterError(t *testing.T) {
	db, _ := openCaching(t)
	mustExec(t, db, `CREATE TABLE t (a INTEGER PRIMARY KEY)`)
	const ins = `INSERT INTO t (a) VALUES (?)`
	mustExec(t, db, ins, 1)
	if _, err := db.Exec(ins, 1); err == nil {
		t.Fatal("duplicate key accepted")
	}
	mustExec(t, db, ins, 2)
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM t`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("count = %d, %v; want 2", n, err)
	}
}
