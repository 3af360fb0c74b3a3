package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The similar-tickets lookup runs on every create, so it is built to cost
// little: one statement answers the workspace's policy and, for all of the
// title's words, the numbers from the title-word table (titlewords.go:
// ticket numbers, no ticket row); a second reads the few candidates
// picked from those numbers, each by its key. Each statement's text is the
// same whatever the title, so every connection prepares it once and reuses
// it (stmtcache.go).

// similarNumbersSQL answers the workspace's policy and, for up to
// board.SimilarWords words, the numbers of each word's newest title
// matches. Rows are (slot, number, policy): first (-1, 0, the policy) when
// the workspace exists, then (i, number, NULL) for the word bound to
// ?(similarWordArg+i). A slot bound to NULL (the title has fewer words) is
// skipped: its guard names no table, so SQLite tests it once ahead of the
// loop. Each branch is a seek in the title-word table's key to (workspace,
// word) and a walk from the newest number down, stopped at its limit.
// SQLite runs the branches in order, and the caller stops at a policy
// that refuses it, so then no word is looked up.
var similarNumbersSQL = func() string {
	var b strings.Builder
	b.WriteString(`SELECT -1, 0, ai_policy FROM workspaces WHERE slug = ?1`)
	for i := range board.SimilarWords {
		fmt.Fprintf(&b, `
UNION ALL
SELECT %d, n, NULL FROM (SELECT number AS n FROM ticket_title_words
	WHERE ?%[2]d IS NOT NULL AND workspace = ?1 AND word = ?%[2]d ORDER BY number DESC LIMIT ?2)`, i, similarWordArg+i)
	}
	return b.String()
}()

// similarWordArg is the parameter number of the first word in
// similarNumbersSQL (?1 is the workspace, ?2 the limit per word).
const similarWordArg = 3

// similarRowsSQL reads the candidates: up to board.SimilarCandidates
// numbers, one branch each, found by the (workspace, number) key; a slot
// not needed is bound to NULL and its branch skipped by its guard. (An
// IN list of the numbers would have SQLite build a temporary index of
// them on every call, which cost more than the rows.) Only similarColumns:
// an answer shows no other field of a similar ticket, and the body (up to
// 64 KB), tags and links would be read and decoded for nothing.
var similarRowsSQL = func() string {
	branches := make([]string, board.SimilarCandidates)
	for i := range branches {
		branches[i] = fmt.Sprintf(`SELECT `+similarColumns+` FROM tickets WHERE ?%[1]d IS NOT NULL AND workspace = ?1 AND number = ?%[1]d`, 2+i)
	}
	return strings.Join(branches, "\nUNION ALL\n")
}()

// similarColumns are the fields of a candidate the similar tickets' rule
// and answer read (board.SimilarCandidates' contract).
const similarColumns = `id, workspace, number, title, status, owner`

// scanCandidate reads similarColumns.
func scanCandidate(row scanner) (board.Ticket, error) {
	var t board.Ticket
	var owner sql.NullString
	err := row.Scan(&t.ID, &t.Workspace, &t.Number, &t.Title, &t.Status, &owner)
	t.Owner = stringPtr(owner)
	return t, err
}

// SimilarCandidates reads, in one read transaction, the workspace's policy
// with each word's newest title matches from the title-word table, then
// the candidate tickets board.SimilarCandidateNumbers picks: two
// statements, one when no ticket shares enough words.
func (s *Store) SimilarCandidates(ctx context.Context, q board.SimilarQuery) ([]board.Ticket, error) {
	if len(q.Words) > board.SimilarWords {
		return nil, fmt.Errorf("similar tickets: %d words asked, at most %d are looked up", len(q.Words), board.SimilarWords)
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	perWord, err := similarNumbers(ctx, tx, q)
	if err != nil {
		return nil, err
	}
	numbers := board.SimilarCandidateNumbers(perWord, q.Exclude)
	if len(numbers) == 0 {
		return nil, nil
	}
	return similarRows(ctx, tx, q.Workspace, numbers)
}

// similarNumbers runs similarNumbersSQL for q: perWord[i] are word i's
// numbers, newest first. board.ErrNotFound when the workspace does not
// exist, *board.PolicyError when its policy is not in q.Readable (the
// words are then not looked up: the policy is the statement's first row).
func similarNumbers(ctx context.Context, tx *sql.Tx, q board.SimilarQuery) ([][]int64, error) {
	args := make([]any, similarWordArg-1+board.SimilarWords)
	args[0], args[1] = q.Workspace, board.SimilarPerWord
	for i, word := range q.Words {
		args[similarWordArg-1+i] = word
	}
	rows, err := tx.QueryContext(ctx, similarNumbersSQL, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	perWord := make([][]int64, len(q.Words))
	found := false
	for rows.Next() {
		var slot int
		var n int64
		var policy sql.NullString
		if err := rows.Scan(&slot, &n, &policy); err != nil {
			return nil, err
		}
		if slot == -1 {
			if err := board.CheckPolicy(q.Readable, board.AIPolicy(policy.String)); err != nil {
				return nil, err
			}
			found = true
			continue
		}
		if slot < 0 || slot >= len(q.Words) {
			return nil, fmt.Errorf("similar tickets: the word index answered slot %d for %d words", slot, len(q.Words))
		}
		perWord[slot] = append(perWord[slot], n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, board.ErrNotFound
	}
	return perWord, nil
}

// similarRows reads the tickets numbered numbers (at most
// board.SimilarCandidates) in the workspace, in the order of numbers; a
// number not found is left out.
func similarRows(ctx context.Context, tx *sql.Tx, workspace string, numbers []int64) ([]board.Ticket, error) {
	if len(numbers) > board.SimilarCandidates {
		return nil, fmt.Errorf("similar tickets: %d candidates, at most %d are read", len(numbers), board.SimilarCandidates)
	}
	args := make([]any, 1+board.SimilarCandidates)
	args[0] = workspace
	for i, n := range numbers {
		args[1+i] = n
	}
	rows, err := tx.QueryContext(ctx, similarRowsSQL, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := make([]board.Ticket, 0, len(numbers))
	for rows.Next() {
		t, err := scanCandidate(rows)
		if err != nil {
			return nil, err
		}
		found = append(found, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]board.Ticket, 0, len(found))
	for _, n := range numbers {
		for _, t := range found {
			if t.Number == n {
				out = append(out, t)
				break
			}
		}
	}
	return out, nil
}
