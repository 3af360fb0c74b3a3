package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// GetNote finds a note where its id says it is (board.ParseNoteID):
//   - an id that names its ticket and time is the note's key: one
//     consistent GetItem;
//   - "<ticket id>~<uuid>" (a note from before ids named their ticket,
//     with the ticket the board shows it on) is found by reading the keys
//     of that ticket's notes, a page at a time, then the note;
//   - a bare UUID names no partition: the table has no index by note id,
//     so it is not found here (docs/dynamodb.md, "Notes").
func (s *Store) GetNote(ctx context.Context, ref board.NoteRef) (board.Note, error) {
	if ref.TicketID == "" {
		return board.Note{}, board.ErrNotFound
	}
	var k map[string]types.AttributeValue
	if ref.At != nil {
		k = key(pkTicketPrefix+ref.TicketID, skNotePrefix+orderTime(*ref.At)+"#"+ref.ID)
	} else {
		found, err := s.findNoteKey(ctx, ref)
		if err != nil || found == nil {
			return board.Note{}, orNotFound(err)
		}
		k = found
	}
	item, err := s.getItem(ctx, k)
	if err != nil || item == nil {
		return board.Note{}, orNotFound(err)
	}
	n, err := decodeDoc[board.Note](item)
	if err != nil {
		return board.Note{}, err
	}
	if n.ID != ref.ID || n.TicketID != ref.TicketID {
		return board.Note{}, board.ErrNotFound
	}
	return n, nil
}

func orNotFound(err error) error {
	if err != nil {
		return err
	}
	return board.ErrNotFound
}

// findNoteKey pages through the keys of a ticket's notes for the one whose
// sort key ends in the note's id.
func (s *Store) findNoteKey(ctx context.Context, ref board.NoteRef) (map[string]types.AttributeValue, error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk AND begins_with(#sk, :n)"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkTicketPrefix + ref.TicketID), ":n": str(skNotePrefix)},
		ProjectionExpression:      aws.String("#pk, #sk"),
		ConsistentRead:            aws.Bool(true),
	}
	for {
		out, err := s.query(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, item := range out.Items {
			if strings.HasSuffix(getS(item, attrSK), "#"+ref.ID) {
				return key(getS(item, attrPK), getS(item, attrSK)), nil
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// editedNoteWrite replaces a stored note with its edited state, on the
// condition that it is there: the ticket's version check in the same
// transaction orders edits, this one keeps an edit from creating a note.
func (s *Store) editedNoteWrite(n board.Note) (types.TransactWriteItem, error) {
	item, err := noteItem(n)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	if err := checkSize("note", item); err != nil {
		return types.TransactWriteItem{}, err
	}
	return s.put(item, "attribute_exists(#pk)", map[string]string{"#pk": attrPK}, nil, false), nil
}

// scrubbedEventWrites rewrite stored events (board.SaveTx.ScrubbedEvents)
// with the item builder that wrote them: the keys are the event's ticket,
// time and id, so an event keeps its place in the history and the feed.
// An event that is not there fails the transaction instead of appearing.
// The event stream forwards inserts only, so a rewrite is sent to no
// webhook.
func (s *Store) scrubbedEventWrites(events []board.Event) ([]types.TransactWriteItem, error) {
	if len(events) > board.MaxNoteEdits {
		return nil, fmt.Errorf("dynamo: %d events to rewrite in one write, at most %d fit", len(events), board.MaxNoteEdits)
	}
	out := make([]types.TransactWriteItem, 0, len(events))
	for _, e := range events {
		item, err := eventItem(e)
		if err != nil {
			return nil, err
		}
		out = append(out, s.put(item, "attribute_exists(#pk)", map[string]string{"#pk": attrPK}, nil, false))
	}
	return out, nil
}

// scrubbedRecordWrites rewrite stored request records
// (board.SaveTx.ScrubbedRequests), two items each: the record, and the
// part of its result (put when the new result needs one, deleted when not,
// so no earlier result is left in it). Each is written only while it is
// the record that was read (its created_at), or is gone: a record of the
// same key claimed anew since is not overwritten, and one removed by its
// expiry comes back expired, which every read treats as absent.
func (s *Store) scrubbedRecordWrites(records []ledger.Record) ([]types.TransactWriteItem, error) {
	if len(records) > board.MaxNoteEdits+1 {
		return nil, fmt.Errorf("dynamo: %d request records to rewrite in one write, at most %d fit", len(records), board.MaxNoteEdits+1)
	}
	var out []types.TransactWriteItem
	for _, r := range records {
		rec, part, err := recordItems(r, "")
		if err != nil {
			return nil, err
		}
		cond := "attribute_not_exists(#pk) OR #c = :c"
		out = append(out, s.put(rec, cond, map[string]string{"#pk": attrPK, "#c": attrCreatedAt},
			map[string]types.AttributeValue{":c": rec[attrCreatedAt]}, false))
		if part != nil {
			out = append(out, s.put(part, "", nil, nil, false))
		} else {
			out = append(out, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.table), Key: key(getS(rec, attrPK), skResultPart)}})
		}
	}
	return out, nil
}
