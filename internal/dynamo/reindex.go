package dynamo

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ReindexFrom is where ReindexWords starts: in Workspace (the workspaces
// before it, in slug order, are skipped), from ticket Number down. The
// zero value starts at the beginning; a failed run says where to resume.
type ReindexFrom struct {
	Workspace string
	Number    int64
}

// ReindexStats measures a reindex.
type ReindexStats struct {
	Tickets int
	// Put is how many word items were written, Deleted how many items of
	// the earlier index (a run of Japanese, Chinese or Korean text as one
	// word) were taken away.
	Put, Deleted int
	Elapsed      time.Duration
}

// ReindexError is a reindex that stopped: Resume is where to start again.
type ReindexError struct {
	Resume ReindexFrom
	Err    error
}

// Error says where the reindex stopped and why.
func (e *ReindexError) Error() string {
	return fmt.Sprintf("dynamo: reindexing stopped in %s at ticket %d: %v", e.Resume.Workspace, e.Resume.Number, e.Err)
}

// Unwrap is the failure that stopped the reindex.
func (e *ReindexError) Unwrap() error { return e.Err }

// ReindexWords writes every ticket's word items, workspace by workspace in
// slug order, newest first, a page of 100 tickets at a time: for tables
// whose tickets were written before the word index, or before runs of
// Japanese, Chinese and Korean text were indexed as pairs (docs/dynamodb.md,
// "Search"). It puts every item a ticket has now and deletes the items the
// earlier index made of its runs, which no query reads any more. It is
// idempotent, so it may run while the board takes writes, and again; when
// it fails, the *ReindexError says where to resume. progress, if set, is
// told each workspace's count when it is done.
func (s *Store) ReindexWords(ctx context.Context, from ReindexFrom, progress func(workspace string, tickets int)) (ReindexStats, error) {
	start := time.Now()
	var st ReindexStats
	workspaces, err := s.ListWorkspaces(ctx)
	if err != nil {
		return st, err
	}
	for _, w := range workspaces {
		if w.Slug < from.Workspace {
			continue
		}
		n, before := 0, int64(0)
		if w.Slug == from.Workspace && from.Number > 0 {
			before = from.Number + 1
		}
		for {
			page, err := s.ListTickets(ctx, board.TicketQuery{Workspace: w.Slug, Before: before, Limit: board.MaxLimit})
			if err == nil {
				changes := make([]wordChange, len(page.Tickets))
				for i, t := range page.Tickets {
					changes[i] = diffWords(nil, t, 0)
					changes[i].laterClear = earlierRunEntries(t)
					st.Put += len(changes[i].laterPut)
					st.Deleted += len(changes[i].laterClear)
				}
				err = s.applyWords(ctx, changes...)
			}
			if err != nil {
				resume := ReindexFrom{Workspace: w.Slug, Number: before - 1}
				if before == 0 {
					resume.Number = 0
				}
				st.Elapsed = time.Since(start)
				return st, &ReindexError{Resume: resume, Err: err}
			}
			n += len(page.Tickets)
			st.Tickets += len(page.Tickets)
			if before = page.ContinueBelow(); before == 0 {
				break
			}
		}
		if progress != nil {
			progress(w.Slug, n)
		}
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// earlierRunEntries are the items the index made of t before runs of
// Japanese, Chinese and Korean text were split into pairs, and makes no
// more: such a run (or letters and such a run together, "led点滅") as one
// word. Only words the index never makes now are returned (board.Words
// would split them), so deleting them never takes away an item a
// concurrent edit has just written.
func earlierRunEntries(t board.Ticket) []wordEntry {
	var out []wordEntry
	seen := map[string]bool{}
	others := 0
	add := func(text string, tier int) {
		for _, w := range earlierWords(text) {
			if seen[w] {
				continue
			}
			if tier == 1 {
				if others == board.MaxOtherWords {
					return
				}
				others++
			}
			seen[w] = true
			if ws := board.Words(w); len(ws) != 1 || ws[0] != w {
				out = append(out, wordEntry{w, tier})
			}
		}
	}
	add(t.Title, 0)
	for _, tag := range t.Tags {
		add(tag, 1)
	}
	add(t.Body, 1)
	return out
}

// earlierWords are text's words as the index made them before runs were
// split into pairs: maximal runs of letters, digits and marks, folded and
// cut to board.MaxWordRunes.
func earlierWords(text string) []string {
	fields := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) })
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		w := board.Fold(f)
		if utf8.RuneCountInString(w) > board.MaxWordRunes {
			w = string([]rune(w)[:board.MaxWordRunes])
		}
		out = append(out, w)
	}
	return out
}
