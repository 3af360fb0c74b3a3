package dynamo

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A ticket's claim lives on its item: in the doc (who, since, until, and
// the token's hash, which answers never show), and as claim_until, a
// fixed-width time that filters compare with the caller's now. An expired
// claim stays as written; a lease runs out with no write.

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

// putClaimAttrs adds the claim's filter attribute to a ticket item.
func putClaimAttrs(item map[string]types.AttributeValue, t board.Ticket) {
	if t.Claim != nil {
		item[attrClaimUntil] = str(orderTime(t.Claim.Until))
	}
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

// claimScan bounds the tickets ClaimCandidates examines: the oldest this
// many free tickets of the status, of which the highest priority come
// first. A status holding more free tickets than this hands out the
// highest priority among its oldest claimScan.
const claimScan = 500

// ClaimCandidates reads the status index oldest first, keeping tickets
// free at q.Now that match the filters, up to claimScan examined, and
// answers the first q.Limit of them in claim_next's order.
func (s *Store) ClaimCandidates(ctx context.Context, q board.ClaimQuery) (board.ClaimCandidates, error) {
	var out board.ClaimCandidates
	policy, err := s.readableWorkspace(ctx, q.Workspace, q.Readable)
	out.Policy = policy
	if err != nil {
		return out, err
	}
	names := map[string]string{"#k": attrWSStatus, "#num": attrNum, "#doc": attrDoc, "#docz": zipped(attrDoc)}
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
	filter := filters[0]
	for _, f := range filters[1:] {
		filter += " AND " + f
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(indexByStatus),
		KeyConditionExpression:    aws.String("#k = :k"),
		FilterExpression:          aws.String(filter),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(true),
		ProjectionExpression:      aws.String("#doc, #docz, #num"),
	}
	out.Tickets = []board.Ticket{}
	examined := 0
	for examined < claimScan {
		in.Limit = aws.Int32(int32(min(100, claimScan-examined)))
		page, err := s.query(ctx, in)
		if err != nil {
			return out, err
		}
		for _, item := range page.Items {
			t, err := decodeTicket(item)
			if err != nil {
				return out, err
			}
			if _, ok := (board.TicketQuery{Status: q.Status, Owner: q.Owner, Tag: q.Tag}).Matches(t, nil); ok && t.FreeAt(q.Now) {
				out.Tickets = append(out.Tickets, t)
			}
		}
		if len(page.LastEvaluatedKey) == 0 {
			break
		}
		examined += scanned(page.ScannedCount, in.Limit)
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
	slices.SortFunc(out.Tickets, board.ClaimOrder)
	if len(out.Tickets) > q.Limit {
		out.Tickets = out.Tickets[:q.Limit]
	}
	return out, nil
}
