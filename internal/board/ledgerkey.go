package board

import (
	"strconv"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// RequestKey is the ledger key of a caller's request_id: the one place that
// decides which principal namespace a request_id lives in. Every use case
// (writes, find_request, imports and their tasks) builds keys here, so a
// change of what the namespace is made of lands in one function.
func RequestKey(p Principal, requestID string) ledger.Key {
	return ledger.Key{Principal: p.LedgerKey(), RequestID: requestID}
}

// RowKey is the ledger key of row i of the import made under key: the
// request_id with "#<row>" appended. '#' is not a request_id character, so
// no caller's own request_id can ever collide with it.
func RowKey(key ledger.Key, row int) ledger.Key {
	key.RequestID += "#" + strconv.Itoa(row)
	return key
}
