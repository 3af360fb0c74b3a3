package dynamo

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
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
