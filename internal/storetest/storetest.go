// Package storetest is the contract test suite of the stores: board.Store
// and the contracts auth, oauth and boardfile own beside it (Store). Every backend
// (SQLite, DynamoDB through minidyn and moto) calls Run unchanged from its own
// _test.go file:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) Store {
//			s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "ledger.db"))
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { s.Close() })
//			return s
//		})
//	}
//
// Conventions the suite relies on (they are part of the contract):
//
//   - newStore returns an empty, freshly seeded store that shares nothing
//     with any other store it returned, because subtests run in parallel.
//   - Time is never read from the wall clock. The suite uses a fixed clock
//     (T0) and passes it where the interface takes `now`. CreateTicket and
//     SaveTicket take no `now`: for them the current time is
//     tx.Request.CreatedAt, which is what the Service sets from its own
//     (test-movable) clock. A store that checks expiry against time.Now()
//     fails the expiry tests.
//   - Every time the suite writes has millisecond precision (T0 plus whole
//     milliseconds, with non-zero milliseconds on purpose), and times are
//     compared with time.Equal. A store must keep at least milliseconds and
//     must compare times as times (RFC 3339 text with trimmed fractions does
//     not sort like the time it names).
//   - Ticket.URL is computed on read by the Service, so the suite does not
//     require stores to return it.
//   - Empty and nil slices (tags, links, notes, history, event fields) and
//     empty and nil byte slices (record args and result) count as equal.
package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// T0 is the suite's fixed clock. Writes made through the fixture's clock
// happen after it, one step (1.001 s) apart, so their order is also their
// time order.
var T0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

const (
	// clockStep keeps a millisecond part in every time the fixture hands out.
	clockStep = time.Second + time.Millisecond
	// retention is how long the suite's request records live.
	retention = 24 * time.Hour

	alice = "ai:alice" // the usual writer
	bob   = "ai:bob"   // another principal, for key scoping
	human = "human"
)

// contractTest is one rule of the contract, checked against a fresh store.
type contractTest struct {
	name string
	run  func(t *testing.T, f *fixture)
}

// Run checks store against the contracts (Store). newStore is called
// once per subtest and must return an empty, freshly seeded store; it
// registers its own cleanup with t.Cleanup. Subtests run in parallel.
func Run(t *testing.T, newStore func(t *testing.T) Store) {
	t.Helper()
	runGroups(t, newStore, contractGroups())
}

// RunGroup runs one group of the contract (e.g. "Concurrency"), for a
// backend variant that only changes what that group is about, such as
// DynamoDB under a model of its transaction conflicts. An unknown name
// fails the test.
func RunGroup(t *testing.T, name string, newStore func(t *testing.T) Store) {
	t.Helper()
	for _, g := range contractGroups() {
		if g.name == name {
			runGroups(t, newStore, []contractGroup{g})
			return
		}
	}
	t.Fatalf("no contract group %q", name)
}

// contractGroup is a named set of contract tests.
type contractGroup struct {
	name  string
	tests []contractTest
}

func contractGroups() []contractGroup {
	return []contractGroup{
		{"Workspaces", workspaceTests()},
		{"CreateTicket", createTests()},
		{"ReadTicket", detailTests()},
		{"Activity", activityTests()},
		{"SaveTicket", saveTests()},
		{"LoadForWrite", loadForWriteTests()},
		{"GetRequest", getRequestTests()},
		{"Similar", similarTests()},
		{"ListTickets", listTicketsTests()},
		{"Search", searchTests()},
		{"BoundedListing", boundedListTests()},
		{"Summary", summaryTests()},
		{"ListEvents", listEventsTests()},
		{"Changes", changeTests()},
		{"Feed", feedTests()},
		{"FeedHidden", feedHiddenTests()},
		{"Lease", leaseTests()},
		{"Concurrency", concurrencyTests()},
		{"LargeValues", largeValueTests()},
		{"People", peopleTests()},
		{"Credentials", credentialTests()},
		{"Tokens", tokenTests()},
		{"CredentialLookup", credentialLookupTests()},
		{"OAuth", oauthTests()},
		{"WorkspaceWrites", workspaceWriteTests()},
		{"Tasks", taskTests()},
		{"Secrets", secretTests()},
		{"Claims", claimTests()},
		{"NoteEdits", noteEditTests()},
		{"Relations", relationTests()},
		{"Inbox", inboxTests()},
		{"InboxWebhooks", inboxWebhookTests()},
	}
}

func runGroups(t *testing.T, newStore func(t *testing.T) Store, groups []contractGroup) {
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					tc.run(t, newFixture(t, newStore(t)))
				})
			}
		})
	}
}

// fixture is one subtest's store with a clock and id source.
type fixture struct {
	t   *testing.T
	s   Store
	ctx context.Context

	mu   sync.Mutex
	tick int
	seq  int
}

func newFixture(t *testing.T, s Store) *fixture {
	if s == nil {
		t.Fatal("newStore returned nil")
	}
	return &fixture{t: t, s: s, ctx: t.Context()}
}

// now advances the fixture's clock one step and returns it.
func (f *fixture) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tick++
	return T0.Add(time.Duration(f.tick) * clockStep)
}

// id returns a new id with prefix; ids sort in the order they were made.
func (f *fixture) id(prefix string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	return fmt.Sprintf("%s-%06d", prefix, f.seq)
}

// ms is T0 moved by d milliseconds.
func ms(d int) time.Time { return T0.Add(time.Duration(d) * time.Millisecond) }
