package dynamo

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Attribute names of the table's keys and index keys. They are written out
// once here because CreateTable, the SAM template and every item agree on them.
const (
	attrPK = "pk"
	attrSK = "sk"

	// attrNum is the ticket number (N), read back into Ticket.Number.
	attrNum = "num"
	// Index keys on ticket items. The sort key is the number as a
	// zero-padded string (tk_n): it sorts the same as a Number, and minidyn
	// orders index Number keys as text.
	attrNumKey     = "tk_n"
	attrWS         = "tk_ws"        // <slug>
	attrWSStatus   = "tk_ws_status" // <slug>#<status>
	attrWSOwner    = "tk_ws_owner"  // <slug>#<owner>; absent when no owner (sparse)
	attrEventWS    = "ev_ws"        // <slug>, on every event
	attrEventOrder = "ev_at"        // <fixed-width time>#<event id>
	// On tag items only (one per tag of a ticket): <slug>#<tag>. '#' is
	// neither a slug nor a tag character.
	attrWSTag = "tg_ws_tag"
	// On open tickets with a due date only (sparse): <slug>, and
	// <due>#<zero-padded number>, so the index lists them earliest due first.
	attrDueWS  = "du_ws"
	attrDueKey = "du_key"
	// On open tickets only (candidate, waiting_ai; sparse): <slug>#<status>,
	// and <priority rank>#<zero-padded number>, so the index lists them as
	// claim_next hands them out (claims.go).
	attrClaimWS  = "cl_ws_status"
	attrClaimKey = "cl_key"
)

// Index names.
const (
	indexTickets   = "tickets"           // tk_ws, tk_n: a workspace's tickets, newest first
	indexByStatus  = "tickets_by_status" // tk_ws_status, tk_n
	indexByOwner   = "tickets_by_owner"  // tk_ws_owner, tk_n
	indexEvents    = "events"            // ev_ws, ev_at: a workspace's history
	indexByTag     = "tickets_by_tag"    // tg_ws_tag, tk_n: tag items (keys only)
	indexOpenDue   = "tickets_open_due"  // du_ws, du_key: open tickets with a due date
	indexClaimable = "tickets_claimable" // cl_ws_status, cl_key: open tickets, most urgent then oldest first
)

// indexNames are every index the store queries; EnsureTable checks them.
var indexNames = []string{indexTickets, indexByStatus, indexByOwner, indexEvents, indexByTag, indexOpenDue, indexClaimable}

// Partition key prefixes and fixed sort keys.
const (
	pkWorkspaces     = "WS"  // every workspace item lives in this one partition, with its count shards
	pkCounterPrefix  = "WN#" // WN#<slug>: the workspace's ticket counter (numbers.go), sort key skCounter
	pkRequestPrefix  = "R#"  // R#<principal>#<request_id>
	pkTicketPrefix   = "T#"  // T#<ticket id>: the ticket, its notes, its events
	pkWSEventsPrefix = "WE#" // WE#<slug>: events of a workspace itself
	pkTagsPrefix     = "G#"  // G#<ticket id>: the ticket's tag items, sort key = the tag
	skRequest        = "R"
	skTicket         = "T"
	skNotePrefix     = "N#"
	skEventPrefix    = "E#"
	skCounter        = "N"
	// <slug>#count#NN: a count shard of the workspace (countshards.go).
	// Slugs hold no '#', so the shards sort right after their workspace
	// item and before any other workspace's: one Query of the range
	// [<slug>, <slug>#~] reads a workspace with its counts.
	skShardInfix = "#count#"
)

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: str(pk), attrSK: str(sk)}
}

func workspaceKey(slug string) map[string]types.AttributeValue { return key(pkWorkspaces, slug) }

// counterKey is the key of a workspace's ticket counter: its own partition,
// which no transaction names.
func counterKey(slug string) map[string]types.AttributeValue {
	return key(pkCounterPrefix+slug, skCounter)
}

// shardKey is the key of count shard i of a workspace.
func shardKey(slug string, i int) map[string]types.AttributeValue {
	return key(pkWorkspaces, fmt.Sprintf("%s%s%02d", slug, skShardInfix, i))
}

// requestKey scopes the record by principal; '#' cannot occur in a principal
// or a request_id, so the concatenation is unambiguous.
func requestKey(k ledger.Key) map[string]types.AttributeValue {
	return key(pkRequestPrefix+k.Principal+"#"+k.RequestID, skRequest)
}

func ticketKey(id string) map[string]types.AttributeValue { return key(pkTicketPrefix+id, skTicket) }

// orderTime is a sortable, fixed-width UTC timestamp: lexical order is time
// order, so notes and events come back oldest first from a Query.
func orderTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

// numberKey pads a ticket number to 19 digits (every positive int64 fits),
// so text order is number order.
func numberKey(n int64) types.AttributeValue { return str(paddedNumber(n)) }

func paddedNumber(n int64) string { return fmt.Sprintf("%019d", n) }

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func num(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func getS(item map[string]types.AttributeValue, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func getN(item map[string]types.AttributeValue, name string) int64 {
	if v, ok := item[name].(*types.AttributeValueMemberN); ok {
		n, _ := strconv.ParseInt(v.Value, 10, 64)
		return n
	}
	return 0
}
