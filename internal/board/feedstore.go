package board

import (
	"context"
	"time"
)

// FeedReader is the part of Store behind the activity feed: a workspace's
// events, or those of every workspace the caller may read, newest first, a
// page at a time (docs/decisions.md, "The activity feed").
type FeedReader interface {
	// ListActivity returns up to q.Limit events newest first. With
	// q.Workspace set it decides that workspace's policy first: ErrNotFound
	// when it does not exist, *PolicyError (with no event read) when its
	// policy is not in q.Readable. Without it, it reads every workspace
	// whose current policy is in q.Readable and skips the others, so events
	// written before a workspace was hidden are skipped too.
	//
	// What an index answers exactly costs what the page holds plus a
	// constant; what it does not (a second filter) is examined up to
	// q.MaxScan events, after which the page ends early with Partial and
	// Next. A position (q.Before) is resolved only among the events the
	// call may read; a store that cannot place it refuses the call with a
	// CodeInvalid error.
	ListActivity(ctx context.Context, q FeedQuery) (FeedPage, error)
}

// FeedQuery asks for one page of the activity feed.
type FeedQuery struct {
	// Workspace: one workspace's feed; "": every readable workspace's.
	Workspace string
	// Readable: nil reads any workspace; otherwise the policies the caller
	// may read.
	Readable []AIPolicy
	// Before: continue with the events older than this position (nil: from
	// the newest).
	Before *Position
	// Since: only events after this time (zero: no bound). The walk stops
	// at the first event at or before it.
	Since time.Time
	// Author and Type: only events with this author or of this type ("":
	// any).
	Author string
	Type   string
	Limit  int
	// MaxScan bounds the events examined beyond what an index answers
	// exactly. 0: DefaultScan.
	MaxScan int
}

// Scan is q.MaxScan, or DefaultScan when none is named.
func (q FeedQuery) Scan() int {
	if q.MaxScan > 0 {
		return q.MaxScan
	}
	return DefaultScan
}

// Matches says whether an event passes the query's filters (Author, Type);
// stores that cannot ask an index use it to check what they examine.
func (q FeedQuery) Matches(e Event) bool {
	return (q.Author == "" || e.Author == q.Author) && (q.Type == "" || e.Type == q.Type)
}

// After says whether an event lies after q.Since (always, without one).
func (q FeedQuery) After(e Event) bool { return q.Since.IsZero() || e.At.After(q.Since) }

// FeedPage is one page of the activity feed.
type FeedPage struct {
	Events []Event // newest first
	// More: older matching events may exist; continue before Next.
	More bool
	// Next is where the next page starts: the last event of this page, or,
	// for a Partial page, the last event examined.
	Next *Position
	// Partial: the page stopped at MaxScan with fewer than Limit events.
	Partial bool
}

// FeedWalk is the rule a store keeps while it walks events newest first,
// written once: it takes matching events until the page is full, stops at
// the Since bound, and ends the page early once MaxScan events were
// examined without filling it.
type FeedWalk struct {
	Query   FeedQuery
	page    FeedPage
	scanned int
}

// Step examines the next event (newest first) and says whether the walk
// goes on. Only events the caller may read are ever stepped: what a walk
// examines shows in its answer (Partial, Next), so a store leaves the
// workspaces the caller may not read out of the walk altogether.
func (w *FeedWalk) Step(e Event) bool {
	if !w.Query.After(e) {
		return false // at or before since: nothing older belongs to the page
	}
	if len(w.page.Events) == w.Query.Limit {
		w.page.More = true // an event follows a full page
		return false
	}
	w.scanned++
	if w.Query.Matches(e) {
		w.page.Events = append(w.page.Events, e)
	}
	w.page.Next = &Position{At: e.At, ID: e.ID}
	if w.scanned >= w.Query.Scan() && len(w.page.Events) < w.Query.Limit {
		w.page.More, w.page.Partial = true, true
		return false
	}
	return true
}

// Want is how many more events the walk may examine: without filters the
// rest of the page and one to tell whether more follow, otherwise the rest
// of the scan budget. A store asks its index for no more.
func (w *FeedWalk) Want() int {
	if w.Query.Author == "" && w.Query.Type == "" {
		return w.Query.Limit - len(w.page.Events) + 1
	}
	return max(1, min(w.Query.Scan()-w.scanned, w.Query.Limit+MaxLimit))
}

// Done ends the walk and returns the page.
func (w *FeedWalk) Done() FeedPage {
	p := w.page
	if p.Events == nil {
		p.Events = []Event{}
	}
	switch {
	case !p.More:
		p.Next = nil
	case !p.Partial && len(p.Events) > 0:
		last := p.Events[len(p.Events)-1]
		p.Next = &Position{At: last.At, ID: last.ID}
	}
	return p
}
