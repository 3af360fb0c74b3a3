package board

import "fmt"

// Every answer is bounded (docs/decisions.md, "Reading"): a surface measures
// an answer as it will send it and, when it is over its bound, asks the
// answer to Fit. Lists give up entries from their far end (the oldest notes
// and events, the last tickets of a page) and say where to continue, so
// nothing stored becomes unreachable. Stores bound what they read for an
// answer separately (TicketQuery.MaxBytes, SummaryQuery.MaxBytes), so a
// page of large tickets is never read whole only to be cut here.

// MaxAnswerBytes bounds one answer on every surface (Lambda's own response
// limit is 6 MB).
const MaxAnswerBytes = 1 << 20

// Sizer says what a value costs in an answer of one surface: MCP counts its
// JSON twice, as structured content and as text.
type Sizer func(v any) int

// Fitter is an answer that can shrink to a bound.
type Fitter interface {
	// Fit drops entries until the answer costs at most bound by size,
	// keeping what it drops reachable through its cursors. It reports
	// false when even the answer without any droppable entry is over.
	Fit(size Sizer, bound int) bool
}

// answerJSONBound is what the service lets an answer's JSON reach. A
// surface may send it twice (MCP: as structured content and as text, where
// each quote and backslash gains one more): at most about 2.2 times this,
// which stays within MaxAnswerBytes. The service fits its answers to it by
// estimate, without encoding them; a surface's exact check (and Fit) is
// then the rare exception, not a second encoding of every large answer.
const answerJSONBound = MaxAnswerBytes * 10 / 23

// Fixed JSON around an entry's text: keys, ids, times, url.
const (
	ticketOverhead = 640
	noteOverhead   = 256
	eventOverhead  = 448
	shellOverhead  = 640
)

// EstimatedSize is a Sizer that estimates a value's JSON from the text it
// carries (TextBytes), for the kinds Fit measures.
func EstimatedSize(v any) int {
	switch x := v.(type) {
	case Ticket:
		return x.TextBytes() + ticketOverhead
	case Note:
		return x.TextBytes() + noteOverhead
	case Event:
		return x.TextBytes() + eventOverhead
	case *TicketDetail:
		n := x.Ticket.TextBytes() + ticketOverhead + shellOverhead
		for _, e := range x.Notes {
			n += EstimatedSize(e)
		}
		for _, e := range x.History {
			n += EstimatedSize(e)
		}
		return n
	case *TicketList:
		return shellOverhead + sumOf(x.Tickets)
	case *NoteList:
		return shellOverhead + sumOf(x.Notes)
	case *HistoryList:
		return shellOverhead + sumOf(x.History)
	case *ActivityList:
		return shellOverhead + sumOf(x.Events)
	case *WorkspaceSummary:
		return shellOverhead + sumOf(x.WaitingAI) + sumOf(x.DueSoon) + sumOf(x.RecentEvents)
	}
	return MaxAnswerBytes // unknown: never fits
}

func sumOf[T any](entries []T) int {
	n := 0
	for _, e := range entries {
		n += EstimatedSize(e)
	}
	return n
}

// fitEstimated fits an answer to answerJSONBound by estimate.
func fitEstimated(f Fitter) { f.Fit(EstimatedSize, answerJSONBound) }

// entryCost is what one list entry adds to an answer: itself and a comma,
// in each of the surface's copies.
func entryCost(size Sizer, v any) int { return size(v) + 2 }

// firstThatFit is how many of entries, taken from the first, fit within
// bound when the answer around them already costs total.
func firstThatFit[T any](size Sizer, total, bound int, entries []T) int {
	keep := 0
	for _, e := range entries {
		total += entryCost(size, e)
		if total > bound {
			break
		}
		keep++
	}
	return keep
}

// newestThatFit is the index from which entries, taken from the last
// (the newest of a list kept oldest first), fit within bound when the
// answer around them already costs total: len(entries) when none fits.
func newestThatFit[T any](size Sizer, total, bound int, entries []T) int {
	kept := len(entries)
	for kept > 0 {
		total += entryCost(size, entries[kept-1])
		if total > bound {
			break
		}
		kept--
	}
	return kept
}

// Fit keeps the first tickets that fit and points next_cursor after the
// last one kept.
func (l *TicketList) Fit(size Sizer, bound int) bool {
	if size(l) <= bound {
		return true
	}
	if len(l.Tickets) == 0 || l.seal == nil { // ListTickets reads the key for any page that could need cutting
		return false
	}
	shell := *l
	shell.Tickets = nil
	c := encodeCursor(l.seal, l.Tickets[0].Number, 0, l.query) // as long as any cursor of this page, give or take digits
	shell.NextCursor, shell.Partial = &c, true
	keep := firstThatFit(size, size(&shell)+32, bound, l.Tickets)
	if keep == 0 {
		return false
	}
	if keep < len(l.Tickets) {
		l.Tickets = l.Tickets[:keep]
		last := l.Tickets[keep-1]
		next := encodeCursor(l.seal, last.Number, ticketTier(l.query, last), l.query)
		l.NextCursor, l.Partial = &next, true
	}
	return true
}

// Fit keeps the ticket and the newest of its notes and events, taking the
// newest of either list first, and points each cursor before the oldest
// entry it kept.
func (d *TicketDetail) Fit(size Sizer, bound int) bool {
	if size(d) <= bound {
		return true
	}
	if d.seal == nil {
		return false // GetTicket reads the key for any detail that could need cutting
	}
	shell := TicketDetail{Ticket: d.Ticket, Notes: []Note{}, History: []Event{}, seal: d.seal,
		NotesCursor:   encodeActivityCursor(d.seal, d.Ticket.ID, activityNotes, &Position{ID: "placeholder-of-an-id-as-long-as-a-uuid"}),
		HistoryCursor: encodeActivityCursor(d.seal, d.Ticket.ID, activityHistory, &Position{ID: "placeholder-of-an-id-as-long-as-a-uuid"})}
	total := size(&shell) + 64
	if total > bound {
		return false
	}
	notes, events := len(d.Notes), len(d.History) // entries not yet kept are [0, notes) and [0, events)
	for notes > 0 || events > 0 {
		takeNote := events == 0 || (notes > 0 && !d.Notes[notes-1].CreatedAt.Before(d.History[events-1].At))
		var cost int
		if takeNote {
			cost = entryCost(size, d.Notes[notes-1])
		} else {
			cost = entryCost(size, d.History[events-1])
		}
		if total+cost > bound {
			break
		}
		total += cost
		if takeNote {
			notes--
		} else {
			events--
		}
	}
	if notes > 0 {
		d.Notes = d.Notes[notes:]
		d.NotesCursor = encodeActivityCursor(d.seal, d.Ticket.ID, activityNotes, firstNote(d.Notes))
	}
	if events > 0 {
		d.History = d.History[events:]
		d.HistoryCursor = encodeActivityCursor(d.seal, d.Ticket.ID, activityHistory, firstEvent(d.History))
	}
	return true
}

// firstNote is where the kept notes start, or nil (from the newest) when
// none was kept.
func firstNote(notes []Note) *Position {
	if len(notes) == 0 {
		return nil
	}
	return notePosition(notes[0])
}

func firstEvent(events []Event) *Position {
	if len(events) == 0 {
		return nil
	}
	return eventPosition(events[0])
}

// Fit keeps the newest notes that fit.
func (l *NoteList) Fit(size Sizer, bound int) bool {
	if size(l) <= bound {
		return true
	}
	shell := NoteList{TicketID: l.TicketID, Notes: []Note{}, seal: l.seal,
		NextCursor: encodeActivityCursor(l.seal, l.TicketID, activityNotes, &Position{ID: "placeholder-of-an-id-as-long-as-a-uuid"})}
	kept := newestThatFit(size, size(&shell)+64, bound, l.Notes)
	if kept == len(l.Notes) && len(l.Notes) > 0 {
		return false
	}
	if kept > 0 {
		l.Notes = l.Notes[kept:]
		l.NextCursor = encodeActivityCursor(l.seal, l.TicketID, activityNotes, notePosition(l.Notes[0]))
	}
	return true
}

// Fit keeps the newest events that fit.
func (l *HistoryList) Fit(size Sizer, bound int) bool {
	if size(l) <= bound {
		return true
	}
	shell := HistoryList{TicketID: l.TicketID, History: []Event{}, seal: l.seal,
		NextCursor: encodeActivityCursor(l.seal, l.TicketID, activityHistory, &Position{ID: "placeholder-of-an-id-as-long-as-a-uuid"})}
	kept := newestThatFit(size, size(&shell)+64, bound, l.History)
	if kept == len(l.History) && len(l.History) > 0 {
		return false
	}
	if kept > 0 {
		l.History = l.History[kept:]
		l.NextCursor = encodeActivityCursor(l.seal, l.TicketID, activityHistory, eventPosition(l.History[0]))
	}
	return true
}

// Fit keeps the first entries of each of the summary's lists, taking one
// from each list in turn while they fit. The summary is an overview: the
// full lists are a list_tickets or list_ticket_history call away.
func (w *WorkspaceSummary) Fit(size Sizer, bound int) bool {
	if size(w) <= bound {
		return true
	}
	shell := WorkspaceSummary{Workspace: w.Workspace, Counts: w.Counts, WaitingAI: []Ticket{}, DueSoon: []Ticket{}, RecentEvents: []Event{}}
	total := size(&shell) + 64
	if total > bound {
		return false
	}
	var waiting, due, events int
	open := [3]bool{true, true, true}
	for open[0] || open[1] || open[2] {
		for i := range open {
			if !open[i] {
				continue
			}
			var next any
			switch {
			case i == 0 && waiting < len(w.WaitingAI):
				next = w.WaitingAI[waiting]
			case i == 1 && due < len(w.DueSoon):
				next = w.DueSoon[due]
			case i == 2 && events < len(w.RecentEvents):
				next = w.RecentEvents[events]
			default:
				open[i] = false
				continue
			}
			cost := entryCost(size, next)
			if total+cost > bound {
				open[i] = false
				continue
			}
			total += cost
			switch i {
			case 0:
				waiting++
			case 1:
				due++
			default:
				events++
			}
		}
	}
	w.WaitingAI, w.DueSoon, w.RecentEvents = w.WaitingAI[:waiting], w.DueSoon[:due], w.RecentEvents[:events]
	return true
}

// fitSlack is how much tighter each further Fit aims: Fit adds up its
// entries' costs one by one, which can be off by a few bytes from the
// whole.
const fitSlack = 8 << 10

// EncodeWithin encodes out (a pointer to a result) with encode and, while
// cost says the encoding is over bound, has out give up entries
// (Fitter) and encodes it again, each try aiming a little tighter. Every
// surface sends its answers through it, each with its own encoding and
// its own idea of cost (MCP sends the JSON twice). An answer that cannot
// fit is an error: no result the board allows is that large.
func EncodeWithin[T any](out any, bound int, encode func(any) (T, error), cost func(T) int) (T, error) {
	b, err := encode(out)
	if err != nil {
		return b, err
	}
	fitter, canFit := out.(Fitter)
	size := func(v any) int {
		e, err := encode(v)
		if err != nil {
			return bound + 1 // cannot be sent: never fits
		}
		return cost(e)
	}
	for attempt := 0; cost(b) > bound; attempt++ {
		if !canFit || attempt == 3 || !fitter.Fit(size, bound-attempt*fitSlack) {
			var zero T
			return zero, fmt.Errorf("the answer would be %d bytes, over the bound of %d", cost(b), bound)
		}
		if b, err = encode(out); err != nil {
			return b, err
		}
	}
	return b, nil
}
