package dynamo

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A ticket's claim lives on its item: in the doc (who, since, until, and
// the token's hash, which answers never show), and as claim_until, a
// fixed-width time that filters compare with the caller's now. An expired
// claim stays as written; a lease runs out with no write. Open tickets
// (candidate, waiting_ai) also carry the keys of the claimable index,
// which lists them per workspace and status in claim_next's order: the
// write that moves a ticket out of an open status drops them.

// attrClaimUntil is the claim's until (orderTime), absent when unclaimed.
const attrClaimUntil = "claim_until"

// storedTicket is a ticket's doc: the ticket's JSON with the claim's token
// hash beside it.
type storedTicket struct {
	board.Ticket
	ClaimToken string `json:"claim_token,omitempty"`
}

// ticketDoc is the doc of t.
func ticketDoc(t board.Ticket) ([]byte, error) {
	st := storedTicket{Ticket: t}
	if t.Claim != nil {
		st.ClaimToken = t.Claim.TokenHash
	}
	return json.Marshal(st)
}

// decodeTicketDoc is a ticket from its doc.
func decodeTicketDoc(item map[string]types.AttributeValue) (board.Ticket, error) {
	st, err := decodeDoc[storedTicket](item)
	if err != nil {
		return st.Ticket, err
	}
	if st.Claim != nil {
		st.Claim.TokenHash = st.ClaimToken
	}
	return st.Ticket, nil
}

// claimable decides whether a ticket belongs in the claimable index:
// open, and no ticket that blocks it open (its kept count). Every write of
// a ticket item places it by this, and so does a backfill of the index.
func claimable(t board.Ticket) bool {
	return board.IsOpenStatus(t.Status) && t.OpenBlockers == 0
}

// putClaimAttrs adds the claim's filter attribute to a ticket item, and
// places a claimable ticket in the claimable index.
func putClaimAttrs(item map[string]types.AttributeValue, t board.Ticket) {
	if t.Claim != nil {
		item[attrClaimUntil] = str(orderTime(t.Claim.Until))
	}
	if claimable(t) {
		item[attrClaimWS] = str(t.Workspace + "#" + string(t.Status))
		item[attrClaimKey] = str(claimKey(t))
	}
}

// claimKey sorts an open ticket as claim_next hands it out: by priority
// rank (one digit), then number.
func claimKey(t board.Ticket) string {
	return strconv.Itoa(board.PriorityRank(t.Priority)) + "#" + paddedNumber(t.Number)
}

// claimedFilter is a FilterExpression keeping tickets with (claimed) or
// without a claim live at now.
func claimedFilter(claimed bool, now string, names map[string]string, values map[string]types.AttributeValue) string {
	names["#cu"], values[":now"] = attrClaimUntil, str(now)
	if claimed {
		return "#cu > :now"
	}
	return "(attribute_not_exists(#cu) OR #cu <= :now)"
}

// claimScan bounds the tickets ClaimCandidates examines: the index lists
// free and held open tickets alike (a claim runs out with no write, so
// the index cannot drop held ones), and held ones are skipped by a filter.
// Live claims are as many as the agents working, far fewer than this.
const claimScan = 1000

// ClaimCandidates reads the claimable index (open tickets of one status,
// most urgent then oldest first) from its start, keeping tickets free at
// q.Now that match the tag and owner, until it has q.Limit of them or has
// examined claimScan.
func (s *Store) ClaimCandidates(ctx context.Context, q board.ClaimQuery) (board.ClaimCandidates, error) {
	var out board.ClaimCandidates
	policy, err := s.readableWorkspace(ctx, q.Workspace, q.Readable)
	out.Policy = policy
	if err != nil {
		return out, err
	}
	names := map[string]string{"#k": attrClaimWS, "#num": attrNum, "#doc": attrDoc, "#docz": zipped(attrDoc)}
	values := map[string]types.AttributeValue{":k": str(q.Workspace + "#" + string(q.Status))}
	filters := []string{claimedFilter(false, orderTime(q.Now), names, values)}
	if q.Owner != "" {
		names["#owner"], values[":owner"] = attrOwnerTk, str(q.Owner)
		filters = append(filters, "#owner = :owner")
	}
	if q.Tag != "" {
		names["#tags"], values[":tag"] = attrTags, str("|"+q.Tag+"|")
		filters = append(filters, "contains(#tags, :tag)")
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(indexClaimable),
		KeyConditionExpression:    aws.String("#k = :k"),
		FilterExpression:          aws.String(strings.Join(filters, " AND ")),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(true),
		ProjectionExpression:      aws.String("#doc, #docz, #num"),
	}
	out.Tickets = []board.Ticket{}
	ask, examined := q.Limit+1, 0
	for {
		in.Limit = aws.Int32(int32(min(ask, claimScan-examined)))
		page, err := s.query(ctx, in)
		if err != nil {
			return out, err
		}
		for _, item := range page.Items {
			t, err := decodeTicket(item)
			if err != nil {
				return out, err
			}
			// The index may lag the ticket: check what it says now.
			if _, ok := (board.TicketQuery{Status: q.Status, Owner: q.Owner, Tag: q.Tag}).Matches(t, nil); !ok || !t.FreeAt(q.Now) {
				continue
			}
			if out.Tickets = append(out.Tickets, t); len(out.Tickets) == q.Limit {
				return out, nil
			}
		}
		examined += scanned(page.ScannedCount, in.Limit)
		if len(page.LastEvaluatedKey) == 0 || examined >= claimScan {
			return out, nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
		ask *= growth
	}
}
