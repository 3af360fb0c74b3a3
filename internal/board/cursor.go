package board

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// A cursor is opaque to callers: the number to continue below, bound to the
// filters it was made for, so reusing it with other filters is refused
// instead of silently skipping tickets.
type cursor struct {
	Before int64  `json:"b"`
	Filter string `json:"f"`
}

func filterHash(q TicketQuery) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%s\x00%s", q.Workspace, q.Status, q.Owner, q.Tag, q.Query))
	return base64.RawURLEncoding.EncodeToString(sum[:8])
}

func encodeCursor(before int64, q TicketQuery) string {
	raw, _ := json.Marshal(cursor{Before: before, Filter: filterHash(q)})
	return base64.RawURLEncoding.EncodeToString(raw)
}

func decodeCursor(s string, q TicketQuery) (int64, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	var c cursor
	if err == nil {
		err = json.Unmarshal(raw, &c)
	}
	if err != nil || c.Before < 1 {
		return 0, invalid("cursor is not one this server issued; pass next_cursor from the previous list_tickets answer unchanged, or omit it to start over")
	}
	if c.Filter != filterHash(q) {
		return 0, invalid("cursor was issued for other filters; repeat the same workspace, status, owner, tag and query, or omit cursor to start over")
	}
	return c.Before, nil
}
