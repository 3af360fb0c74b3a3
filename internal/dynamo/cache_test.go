package dynamo

import (
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestReadOvertakenByOwnCommitKeepsNoStaleCounts: a read of the workspace
// sent before this process's own commit and answered after it carries
// counts without that commit; remembering them would hide the commit for
// as long as the counts are cached. They are dropped instead, and the next
// reader reads the workspace again. A commit that changes counts drops
// the cached ones: the cache never adjusts counts itself.
func TestReadOvertakenByOwnCommitKeepsNoStaleCounts(t *testing.T) {
	now := time.Unix(0, 0)
	c := newWorkspaceCache(func() time.Time { return now })
	read := func(candidate, doing int) workspaceState {
		return workspaceState{Workspace: board.Workspace{Slug: "inbox", AIPolicy: board.PolicyReadWrite,
			Counts: map[board.Status]int{board.StatusCandidate: candidate, board.StatusDoing: doing}}}
	}
	c.remember(read(2, 0), c.epoch())

	since := c.epoch()            // a read is sent…
	c.countsChanged("inbox")      // …our move commits…
	c.remember(read(2, 0), since) // …and the read, older, arrives
	if _, counts, ok := c.policy("inbox", time.Minute); ok {
		t.Fatalf("counts %v kept from a read older than our own move; want them unknown", counts)
	}

	c.remember(read(1, 1), c.epoch()) // read again after the move
	_, counts, ok := c.policy("inbox", time.Minute)
	if !ok || counts[board.StatusCandidate] != 1 || counts[board.StatusDoing] != 1 {
		t.Fatalf("counts after a fresh read: %v %v, want candidate 1, doing 1", counts, ok)
	}
	c.countsChanged("inbox")
	if _, counts, ok := c.policy("inbox", time.Minute); ok {
		t.Errorf("counts after our own move: %v, want them unknown until read again", counts)
	}
	if p, ok := c.policyOnly("inbox", time.Minute); !ok || p != board.PolicyReadWrite {
		t.Errorf("policy after our own move: %q %v, want it still cached", p, ok)
	}
}
