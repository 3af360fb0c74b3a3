package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// searchTickets is a listing with a text query: the word index
// (searchschema.go) yields the workspace's matches tier by tier (title
// matches, then the rest), newest first within each, from the cursor's
// tier and number on. FTS5 answers the words exactly; status, owner and
// tag are checked on the rows it yields, within MaxScan rows examined, as
// other listings check a second filter, and so are a query's CJK runs of
// three or more characters (their pairs must be adjacent, which the index
// does not know): tier 1 then reads every row with the terms, title
// matches too, and keeps those whose run puts them in tier 1.
func (s *Store) searchTickets(ctx context.Context, tx *sql.Tx, q board.TicketQuery, wsKey int64, page board.TicketPage,
	limit, scan int) (board.TicketPage, error) {
	search, err := board.ParseSearch(q.Query)
	if err != nil {
		return page, err
	}
	terms := ftsTerms(search)
	inTitle := "title_words : (" + terms + ")"
	tierMatch := [board.SearchTiers]string{inTitle, "(" + terms + ") NOT (" + inTitle + ")"}
	var runs *board.Search
	if len(search.Runs) > 0 {
		runs, tierMatch[1] = &search, terms
	}
	checked := q.Status != "" || q.Owner != "" || q.Tag != "" || q.Claimed != nil || runs != nil
	base := wsKey << ftsShift
	page.Tickets = []board.Ticket{}
	budget := board.TextBudget{Max: q.MaxBytes}
	var examined searchScan
	for tier := max(q.Tier, 0); tier < board.SearchTiers; tier++ {
		upper := base + 1<<ftsShift
		if tier == q.Tier && q.Before > 0 {
			upper = base + q.Before
		}
		ask := limit + 1 - len(page.Tickets)
		if checked {
			ask = scan - examined.n + 1 // one more: whether any follows the bound
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+prefixed("t.", ticketColumns)+` FROM ticket_words f
			JOIN tickets t ON t.workspace = ? AND t.number = f.rowid - ?
			WHERE ticket_words MATCH ? AND f.rowid > ? AND f.rowid < ?`+relationFilters+` ORDER BY f.rowid DESC LIMIT ?`,
			q.Workspace, base, tierMatch[tier], base, upper, q.Ready, q.Parent, q.Parent, ask)
		if err != nil {
			return page, err
		}
		done, err := addSearchRows(rows, q, runs, tier, limit, scan, checked, &examined, &budget, &page)
		rows.Close()
		if err != nil || done {
			return page, err
		}
	}
	return page, nil
}

// addSearchRows adds one tier's rows to the page and says whether the page
// is complete: full (one more match follows), cut to MaxBytes, or stopped
// at the scan bound with more rows left. runs, when not nil, is the search
// to check each row against (its tier must be this one).
func addSearchRows(rows *sql.Rows, q board.TicketQuery, runs *board.Search, tier, limit, scan int, checked bool, examined *searchScan,
	budget *board.TextBudget, page *board.TicketPage) (bool, error) {
	for rows.Next() {
		t, err := scanTicket(rows)
		if err != nil {
			return false, err
		}
		if checked && examined.n == scan {
			// A row beyond the bound exists: continue below the last examined.
			page.More, page.Partial, page.Next, page.NextTier = true, true, examined.last, examined.tier
			return true, nil
		}
		examined.n, examined.last, examined.tier = examined.n+1, t.Number, tier
		if got, ok := q.Matches(t, runs); !ok || got != tier && runs != nil {
			continue
		}
		if len(page.Tickets) == limit {
			page.More = true // below the last ticket, in its tier
			return true, nil
		}
		if !budget.Take(t) {
			page.More, page.Partial = true, true
			return true, nil
		}
		page.Tickets, page.NextTier = append(page.Tickets, t), tier
	}
	return false, rows.Err()
}

// searchScan counts the rows a search examined and where the last was.
type searchScan struct {
	n    int
	last int64
	tier int
}

// ftsTerms is a search as an FTS5 expression: every word as a phrase, the
// prefix as a prefix phrase, all required. Words hold only letters, digits
// and marks, so quoting them needs no escapes.
func ftsTerms(s board.Search) string {
	parts := make([]string, 0, s.Terms())
	for _, w := range s.Words {
		parts = append(parts, `"`+w+`"`)
	}
	if s.Prefix != "" {
		parts = append(parts, `"`+s.Prefix+`" *`)
	}
	return strings.Join(parts, " AND ")
}
