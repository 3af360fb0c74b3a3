package board

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
)

// A tickets cursor is the position to continue below, sealed
// (cursorseal.go) and bound to the filters it was made for, so reusing it with other filters is refused
// instead of silently skipping tickets. A search's position is a tier and a
// number (search.go); such a cursor says so with its version, so a cursor
// of the earlier substring search (no version) is refused rather than read
// as a position it never was.
type cursor struct {
	Before  int64  `json:"b"`
	Tier    int    `json:"t,omitempty"`
	Version int    `json:"v,omitempty"`
	Filter  string `json:"f"`
}

// toolListTickets names the tool in the hints of errors.
const toolListTickets = "list_tickets"

// searchCursorVersion marks the cursors of word search.
const searchCursorVersion = 2

func filterHash(q TicketQuery) string {
	b := fmt.Appendf(nil, "%s\x00%s\x00%s\x00%s\x00%s", q.Workspace, q.Status, q.Owner, q.Tag, q.Query)
	if q.Claimed != nil {
		// Only when set, so cursors of lists without it stay valid.
		b = fmt.Appendf(b, "\x00claimed=%t", *q.Claimed)
	}
	if q.Ready || q.Parent != "" {
		b = fmt.Appendf(b, "\x00ready=%t\x00parent=%s", q.Ready, q.Parent)
	}
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:8])
}

func encodeCursor(seal *cursorSeal, before int64, tier int, q TicketQuery) string {
	c := cursor{Before: before, Filter: filterHash(q)}
	if q.Query != "" {
		c.Tier, c.Version = tier, searchCursorVersion
	}
	return seal.seal(cursorTickets, c)
}

func decodeCursor(seal *cursorSeal, s string, q TicketQuery) (before int64, tier int, err error) {
	var c cursor
	if !seal.open(cursorTickets, s, &c) || c.Before < 1 || c.Tier < 0 || c.Tier >= SearchTiers {
		return 0, 0, forgedCursor(toolListTickets)
	}
	if c.Filter != filterHash(q) {
		return 0, 0, invalid("cursor was issued for other filters; repeat the same workspace, status, owner, tag, claimed and query, or omit cursor to start over")
	}
	if q.Query != "" && c.Version != searchCursorVersion {
		return 0, 0, invalid("cursor was issued by an earlier version of search, which matched text differently; omit cursor to start the search over")
	}
	return c.Before, c.Tier, nil
}

// ticketTier is the search tier of a ticket of a page (0 without a query).
func ticketTier(q TicketQuery, t Ticket) int {
	if q.Query == "" {
		return 0
	}
	s, err := ParseSearch(q.Query)
	if err != nil {
		return 0
	}
	tier, _ := s.Tier(IndexWords(t))
	return tier
}
