package dynamo

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// ListTickets queries the index that narrows the listing most (status,
// else owner, else the whole workspace), newest first, below the cursor's
// number. The remaining filters (owner, tag, text, due date) are a
// FilterExpression. Without one, the Query asks for exactly limit+1 items
// (the extra one says whether there are more); with one, it reads a full
// page (up to 1 MB) so that one request usually finds enough matches.
func (s *Store) ListTickets(ctx context.Context, q board.TicketQuery) (board.TicketPage, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = board.DefaultLimit
	}
	in := s.ticketQuery(q, limit)
	var items []map[string]types.AttributeValue
	policy, exists, err := s.withPolicy(ctx, q.Workspace, func(ctx context.Context) error {
		var err error
		items, err = s.queryAll(ctx, in, limit+1)
		return err
	})
	if err != nil {
		return board.TicketPage{}, err
	}
	if !exists {
		return board.TicketPage{}, board.ErrNotFound
	}
	page := board.TicketPage{Policy: policy, Tickets: []board.Ticket{}, More: len(items) > limit}
	for _, item := range items[:min(len(items), limit)] {
		t, err := decodeTicket(item)
		if err != nil {
			return board.TicketPage{}, err
		}
		page.Tickets = append(page.Tickets, t)
	}
	return page, nil
}

func (s *Store) ticketQuery(q board.TicketQuery, limit int) *dynamodb.QueryInput {
	names := map[string]string{"#k": attrWS, "#num": attrNum, "#doc": attrDoc, "#docz": zipped(attrDoc)}
	values := map[string]types.AttributeValue{":k": str(q.Workspace)}
	index := indexTickets
	switch {
	case q.Status != "":
		index, names["#k"], values[":k"] = indexByStatus, attrWSStatus, str(q.Workspace+"#"+string(q.Status))
	case q.Owner != "":
		index, names["#k"], values[":k"] = indexByOwner, attrWSOwner, str(q.Workspace+"#"+q.Owner)
	}
	keyCond := "#k = :k"
	if q.Before > 0 {
		keyCond += " AND #n < :before"
		names["#n"], values[":before"] = attrNumKey, numberKey(q.Before)
	}
	var filters []string
	if q.Status != "" && q.Owner != "" { // status chose the index; owner filters
		names["#owner"], values[":owner"] = attrOwnerTk, str(q.Owner)
		filters = append(filters, "#owner = :owner")
	}
	if q.Tag != "" {
		names["#tags"], values[":tag"] = attrTags, str(tagsValue([]string{q.Tag}))
		filters = append(filters, "contains(#tags, :tag)")
	}
	if q.Query != "" {
		names["#lt"], names["#lb"], values[":q"] = attrTitleLC, attrBodyLC, str(strings.ToLower(q.Query))
		filters = append(filters, "(contains(#lt, :q) OR contains(#lb, :q))")
	}
	if q.DueBy != "" {
		names["#due"], values[":due"] = attrDue, str(q.DueBy)
		filters = append(filters, "#due <= :due")
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(index),
		KeyConditionExpression:    aws.String(keyCond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(false),
		// Only what decodeTicket needs travels back; filters still see
		// every projected attribute.
		ProjectionExpression: aws.String("#doc, #docz, #num"),
	}
	if len(filters) == 0 {
		in.Limit = aws.Int32(int32(limit + 1))
	} else {
		in.FilterExpression = aws.String(strings.Join(filters, " AND "))
	}
	return in
}
