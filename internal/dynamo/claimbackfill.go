package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Tickets written before the claimable index existed carry none of its
// keys, so claim_next, which reads only that index (claims.go), would never
// hand them out. BackfillClaimable gives every ticket item the claim
// attributes that putClaimAttrs, the one function that places a ticket in
// the index, gives it now (through ticketItem, as every write of a ticket):
// the keys of an open ticket are set, and a ticket that is no longer
// claimable by that rule loses them. Nothing here decides what is
// claimable.

// claimAttrNames are the attributes putClaimAttrs may write on a ticket
// item: where the backfill compares a stored item with ticketItem's.
var claimAttrNames = []string{attrClaimUntil, attrClaimWS, attrClaimKey}

// BackfillStats measures a backfill of the claimable index.
type BackfillStats struct {
	// Tickets is how many ticket items were read; Updated how many were
	// written; Changed how many were written by the board meanwhile (a
	// write of the ticket sets the attributes itself), so were left.
	Tickets, Updated, Changed int
	Elapsed                   time.Duration
}

// backfillPage is how many ticket items one Query of the backfill reads.
const backfillPage = 100

// BackfillClaimable walks every workspace in slug order, its tickets
// newest first, a page of 100 at a time (one Query of the tickets index,
// whose items hold every attribute), and writes a ticket's claim
// attributes only where they differ from what putClaimAttrs gives it: a
// second run writes nothing. A write puts the ticket's whole item, as every
// write of a ticket does (minidyn mishandles index keys changed by an
// update), conditional on the version read, so it never puts back an older
// ticket or stale keys over a write made since; it may run while the
// board takes writes, and again. When it
// fails, the *ReindexError says where to resume. progress, if set, is told
// each workspace's count when it is done.
func (s *Store) BackfillClaimable(ctx context.Context, from ReindexFrom, progress func(workspace string, tickets int)) (BackfillStats, error) {
	start := time.Now()
	var st BackfillStats
	workspaces, err := s.ListWorkspaces(ctx)
	if err != nil {
		return st, err
	}
	for _, w := range workspaces {
		if w.Slug < from.Workspace {
			continue
		}
		below := int64(0) // 0: from the newest
		if w.Slug == from.Workspace && from.Number > 0 {
			below = from.Number + 1
		}
		n := 0
		for {
			items, next, err := s.ticketItemsBelow(ctx, w.Slug, below)
			for _, item := range items {
				if err != nil {
					break
				}
				var t board.Ticket
				if t, err = decodeTicket(item); err != nil {
					break
				}
				var wrote, changed bool
				if wrote, changed, err = s.backfillTicket(ctx, item, t); err != nil {
					break
				}
				st.Tickets++
				n++
				below = t.Number
				if wrote {
					st.Updated++
				}
				if changed {
					st.Changed++
				}
			}
			if err != nil {
				st.Elapsed = time.Since(start)
				resume := ReindexFrom{Workspace: w.Slug}
				if below > 0 {
					resume.Number = below - 1 // the tickets below the last one done
				}
				return st, &ReindexError{Resume: resume, Err: err}
			}
			if !next {
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

// ticketItemsBelow reads up to backfillPage ticket items of a workspace
// numbered below below (0: from the newest), newest first; next says
// whether older ones may follow.
func (s *Store) ticketItemsBelow(ctx context.Context, slug string, below int64) ([]map[string]types.AttributeValue, bool, error) {
	names := map[string]string{"#ws": attrWS}
	values := map[string]types.AttributeValue{":ws": str(slug)}
	cond := "#ws = :ws"
	if below > 0 {
		names["#n"], values[":below"] = attrNumKey, numberKey(below)
		cond += " AND #n < :below"
	}
	out, err := s.query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(indexTickets),
		KeyConditionExpression:    aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(backfillPage),
	})
	if err != nil {
		return nil, false, fmt.Errorf("dynamo: reading the tickets of %s: %w", slug, err)
	}
	return out.Items, len(out.LastEvaluatedKey) > 0, nil
}

// backfillTicket writes a ticket item again, as every write of a ticket
// does (ticketItem, conditional on the version read), when its claim
// attributes differ from those ticketItem gives it now. changed: the
// ticket was written meanwhile (by a write that sets the attributes
// itself), so nothing was.
func (s *Store) backfillTicket(ctx context.Context, stored map[string]types.AttributeValue, t board.Ticket) (wrote, changed bool, err error) {
	item, err := ticketItem(t)
	if err != nil {
		return false, false, err
	}
	if !claimAttrsDiffer(item, stored) {
		return false, false, nil
	}
	done, err := s.exclusiveWrite(ctx)
	if err != nil {
		return false, false, err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                 aws.String(s.table),
		Item:                      item,
		ConditionExpression:       aws.String("attribute_exists(#pk) AND #v = :v"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#v": attrVersion},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": num(t.Version)},
	})
	done()
	var ccf *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &ccf):
		return false, true, nil
	case err != nil:
		return false, false, fmt.Errorf("dynamo: writing %s with its claim attributes: %w", t.ID, err)
	}
	return true, false, nil
}

// claimAttrsDiffer reports whether two ticket items differ in a claim
// attribute: one has it and the other not, or another string.
func claimAttrsDiffer(a, b map[string]types.AttributeValue) bool {
	for _, name := range claimAttrNames {
		if getS(a, name) != getS(b, name) {
			return true
		}
		_, inA := a[name]
		_, inB := b[name]
		if inA != inB {
			return true
		}
	}
	return false
}
