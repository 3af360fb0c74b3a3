package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The similar-tickets lookup runs on every create, so it is one statement:
// the workspace's policy, then the candidates' rows. The candidates are
// picked from the title-word table alone (titlewords.go: ticket numbers,
// no ticket row) by board.SimilarCandidateNumbers' rule, and only their
// rows are read, each by its key. Its text is the same whatever the
// title, so every connection prepares it once and reuses it
// (stmtcache.go); one statement reads one snapshot, so it needs no
// transaction of its own. Counting the numbers in SQL keeps the word
// matches (up to SimilarWords × SimilarPerWord rows) out of Go: they
// were most of the lookup's CPU and allocations when every one of them
// was a row handed to database/sql.

// The parameters of similarSQL.
const (
	similarArgWorkspace = 1 + iota
	similarArgPerWord   // board.SimilarPerWord
	similarArgExclude   // a number never to pick (0: none)
	similarArgNeed      // board.SimilarNeed of the number of words
	similarArgLimit     // board.SimilarCandidates
	similarArgWord      // the first word; the next ones follow
)

// similarSQL answers first, when the workspace exists, a row whose first
// column is -1 and whose last is the policy; then (shared, id, workspace,
// number, title, status, owner, NULL) for each candidate: the numbers found
// for at least SimilarNeed of the words among each word's SimilarPerWord
// newest title matches, most shared words first, then newest, at most
// SimilarCandidates, never the excluded one (board.SimilarCandidateNumbers'
// rule; TestSimilarPicksAsTheRule holds the two to the same answers). A word slot bound to NULL (the title has fewer
// words) is skipped: its guard names no table, so SQLite tests it once
// ahead of the loop. Each word's branch is a seek in the title-word
// table's key to (workspace, word) and a walk from the newest number down,
// stopped at its limit; each candidate is a seek by (workspace, number).
// SQLite runs the branches of UNION ALL in order, and the caller stops at
// a policy that refuses it, so then no word is looked up.
var similarSQL = func() string {
	words := make([]string, board.SimilarWords)
	for i := range words {
		words[i] = fmt.Sprintf(`SELECT n FROM (SELECT number AS n FROM ticket_title_words
		WHERE ?%[1]d IS NOT NULL AND workspace = ?%[2]d AND word = ?%[1]d ORDER BY number DESC LIMIT ?%[3]d)`,
			similarArgWord+i, similarArgWorkspace, similarArgPerWord)
	}
	return fmt.Sprintf(`SELECT -1, '', '', 0, '', '', NULL, ai_policy FROM workspaces WHERE slug = ?%[1]d
UNION ALL
SELECT c.shared, t.id, t.workspace, t.number, t.title, t.status, t.owner, NULL
FROM (SELECT n, count(*) AS shared FROM (
		%[2]s
	) WHERE n <> ?%[3]d GROUP BY n HAVING count(*) >= ?%[4]d ORDER BY shared DESC, n DESC LIMIT ?%[5]d) AS c
JOIN tickets AS t ON t.workspace = ?%[1]d AND t.number = c.n`,
		similarArgWorkspace, strings.Join(words, "\n\t\tUNION ALL\n\t\t"), similarArgExclude, similarArgNeed, similarArgLimit)
}()

// SimilarCandidates reads, in one statement, the workspace's policy and
// the candidate tickets board.SimilarCandidateNumbers picks from each
// word's newest title matches in the title-word table, in its order. Only
// ID, Workspace, Number, Title, Status and Owner are read: an answer shows
// no other field of a similar ticket, and the body (up to 64 KB), tags and
// links would be read and decoded for nothing.
func (s *Store) SimilarCandidates(ctx context.Context, q board.SimilarQuery) ([]board.Ticket, error) {
	if len(q.Words) > board.SimilarWords {
		return nil, fmt.Errorf("similar tickets: %d words asked, at most %d are looked up", len(q.Words), board.SimilarWords)
	}
	if found, ok, err := s.mirror.candidates(q); ok {
		return found, err
	}
	// Not mirrored yet: read the workspace into the mirror for the next
	// lookups (a failure leaves it to the table) and answer from it.
	if exists, err := s.buildMirror(ctx, q.Workspace); err == nil {
		if !exists {
			return nil, board.ErrNotFound
		}
		if found, ok, err := s.mirror.candidates(q); ok {
			return found, err
		}
	}
	return s.similarCandidatesFromTable(ctx, q)
}

// similarCandidatesFromTable is SimilarCandidates asked of the tables, in
// one statement: when the workspace is not mirrored (it does not exist, or
// the mirror is not live) and, in tests, what the mirror is held to.
func (s *Store) similarCandidatesFromTable(ctx context.Context, q board.SimilarQuery) ([]board.Ticket, error) {
	args := make([]any, similarArgWord-1+board.SimilarWords)
	args[similarArgWorkspace-1] = q.Workspace
	args[similarArgPerWord-1] = board.SimilarPerWord
	args[similarArgExclude-1] = q.Exclude
	args[similarArgNeed-1] = board.SimilarNeed(len(q.Words))
	args[similarArgLimit-1] = board.SimilarCandidates
	for i, word := range q.Words {
		args[similarArgWord-1+i] = word
	}
	rows, err := s.read.QueryContext(ctx, similarSQL, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type candidate struct {
		t      board.Ticket
		shared int
	}
	var found []candidate
	exists := false
	for rows.Next() {
		var c candidate
		var owner, policy sql.NullString
		if err := rows.Scan(&c.shared, &c.t.ID, &c.t.Workspace, &c.t.Number, &c.t.Title, &c.t.Status, &owner, &policy); err != nil {
			return nil, err
		}
		if c.shared == -1 {
			if err := board.CheckPolicy(q.Readable, board.AIPolicy(policy.String)); err != nil {
				return nil, err
			}
			exists = true
			continue
		}
		c.t.Owner = stringPtr(owner)
		found = append(found, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !exists {
		return nil, board.ErrNotFound
	}
	if len(q.Words) == 0 || len(found) == 0 {
		return nil, nil
	}
	// The join hands the rows back in no promised order.
	slices.SortFunc(found, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.shared, a.shared), cmp.Compare(b.t.Number, a.t.Number))
	})
	out := make([]board.Ticket, len(found))
	for i, c := range found {
		out[i] = c.t
	}
	return out, nil
}
