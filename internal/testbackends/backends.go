// Package testbackends is what every test harness shares about the stores
// it runs on: the list of backends (SQLite, DynamoDB on minidyn, DynamoDB on
// moto), opening a fresh store by name, the one rule for a missing moto
// endpoint, the checksum header minidyn leaves out, and a clock the tests
// move. Tests only: nothing outside a _test.go file imports it.
//
// It imports internal/sqlite and internal/dynamo, so internal/storetest
// (which their tests import) cannot hold it; their external test packages
// (package sqlite_test, dynamo_test) can import this one.
package testbackends

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"hash/crc32"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	miniserver "github.com/truora/minidyn/server"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
	"github.com/ticket-ledger/ticket-ledger/internal/testrequire"
)

const (
	// EndpointEnv names the DynamoDB-compatible endpoint the DynamoDB
	// variants run on: moto here (scripts/with-moto.sh starts one and sets
	// it), or any other, such as DynamoDB Local (make test-dynamodb
	// ENDPOINT=…). The variants keep the name moto: the default endpoint,
	// and what their budgets (a slow endpoint that serializes writes)
	// allow for. The names are lambdatest's, so the Lambda emulator tests
	// take the same endpoint.
	EndpointEnv = lambdatest.EndpointEnv
	// MotoEndpointEnv is EndpointEnv's earlier name, still read.
	MotoEndpointEnv = lambdatest.MotoEnv
)

// The backends, by name.
const (
	SQLite  = "sqlite"
	Minidyn = "minidyn"
	Moto    = "moto"
)

// Names lists every backend. moto is always listed, so a run without it
// shows a skipped subtest with the reason, never nothing.
func Names() []string { return []string{SQLite, Minidyn, Moto} }

// Each runs fn as one subtest per backend.
func Each(t *testing.T, fn func(t *testing.T, backend string)) {
	t.Helper()
	for _, b := range Names() {
		t.Run(b, func(t *testing.T) { fn(t, b) })
	}
}

// DynamoDBEndpoint is the endpoint the environment names (EndpointEnv,
// else MotoEndpointEnv), or "".
func DynamoDBEndpoint() string {
	if u := os.Getenv(EndpointEnv); u != "" {
		return u
	}
	return os.Getenv(MotoEndpointEnv)
}

// MotoEndpoint is the endpoint of the moto variants (DynamoDBEndpoint).
// Without one the test is skipped with the reason, or fails under
// testrequire's switch.
func MotoEndpoint(t testing.TB) string {
	t.Helper()
	if u := DynamoDBEndpoint(); u != "" {
		return u
	}
	testrequire.Missing(t, "run under scripts/with-moto.sh (make test does)", "moto: %s is not set", EndpointEnv)
	return ""
}

// FakeAWSCredentials sets, for the rest of the test, the fixed fake
// credentials and region the emulators (minidyn, moto) accept, so that an
// SDK client built from the environment, as the functions build theirs,
// never finds a real account's.
func FakeAWSCredentials(t testing.TB) {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
}

// WithCRC32 adds the X-Amz-Crc32 header DynamoDB and moto send with every
// response and minidyn (or a test's stand-in endpoint) does not: the SDK
// checks one even when it is missing and warns about every such response.
func WithCRC32(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		body := rec.Body.Bytes()
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

// MinidynServer is an in-process DynamoDB.
type MinidynServer struct {
	URL string
	// Server is minidyn itself, for tests that use its failure emulation.
	Server *miniserver.Server
}

// StartMinidyn serves a fresh minidyn over HTTP until the test ends, with
// wrap (nil: none) between the checksum and minidyn, for tests that inject
// faults into the exchange. Each call starts its own server: minidyn's
// table map is not guarded against concurrent CreateTable/DeleteTable,
// and tests run in parallel.
func StartMinidyn(t testing.TB, wrap func(http.Handler) http.Handler) MinidynServer {
	t.Helper()
	s := miniserver.NewServer()
	var h http.Handler = s
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(WithCRC32(h))
	t.Cleanup(srv.Close)
	return MinidynServer{URL: srv.URL, Server: s}
}

// Backend is a fresh store on one backend.
type Backend struct {
	Name  string
	Store storetest.Store
	// SQLitePath is the database file (sqlite).
	SQLitePath string
	// Endpoint and Table locate the data (minidyn, moto).
	Endpoint, Table string
}

// Open opens a fresh store on the backend named (SQLite in a temporary
// file, a private minidyn, or a new table on moto under the moto policy
// of MotoEndpoint).
func Open(t testing.TB, name string) *Backend {
	t.Helper()
	b := &Backend{Name: name}
	switch name {
	case SQLite:
		b.SQLitePath = t.TempDir() + "/ledger.db"
	case Minidyn:
		b.Endpoint = StartMinidyn(t, nil).URL
	case Moto:
		b.Endpoint = MotoEndpoint(t)
	default:
		t.Fatalf("unknown backend %q (want one of %v)", name, Names())
	}
	if b.Endpoint != "" {
		b.Table = TableName()
	}
	b.Store = b.Reopen(t)
	return b
}

// Reopen opens another instance on the same data, as a second server
// process would.
func (b *Backend) Reopen(t testing.TB) storetest.Store {
	t.Helper()
	ctx := context.Background()
	if b.Name == SQLite {
		st, err := sqlite.Open(ctx, b.SQLitePath)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	// moto does not isolate concurrent transactions: serialize writes
	// there (docs/dynamodb.md).
	st, err := dynamo.Connect(ctx, dynamo.Endpoint{URL: b.Endpoint, Table: b.Table, CreateTable: true,
		SerializeWrites: b.Name == Moto}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("open %s: %v", b.Name, err)
	}
	return st
}

// TableName is fresh per call, so tests sharing a server share nothing.
func TableName() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "ledger-test-" + hex.EncodeToString(b[:])
}

// Clock is time a test moves; safe for concurrent use, since the service,
// the accounts and the servers under test read it from their goroutines.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts at now.
func NewClock(now time.Time) *Clock { return &Clock{now: now} }

// Now is the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }
