package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// GetRequest is find_request's read: one consistent GetItem; an expired
// record is not found, whether or not TTL has deleted it yet.
func (s *Store) GetRequest(ctx context.Context, k ledger.Key, now time.Time) (ledger.Record, error) {
	item, err := s.getItem(ctx, requestKey(k))
	if err != nil {
		return ledger.Record{}, err
	}
	rec, _, err := s.liveRecord(ctx, item, now)
	if err != nil {
		return ledger.Record{}, err
	}
	if rec == nil {
		return ledger.Record{}, board.ErrNotFound
	}
	return *rec, nil
}

// ClaimRequest puts a running record when the key is free, expired, or held
// under an expired lease (take-over).
func (s *Store) ClaimRequest(ctx context.Context, rec ledger.Record, now time.Time) error {
	cond, names, values := claimCondition(now)
	unlock, err := s.locks.lock(ctx, "request\x00"+getS(requestKey(rec.Key), attrPK))
	if err != nil {
		return err
	}
	defer unlock()
	tries := writeAttempts{owner: rec.Owner, claim: true}
	_, err = s.transact(ctx, txn{
		what: fmt.Sprintf("claiming request %q", rec.Key.RequestID),
		build: func(string) ([]types.TransactWriteItem, error) {
			return []types.TransactWriteItem{s.put(recordItem(rec, ""), cond, names, values, true)}, nil
		},
		judge: func(ctx context.Context, c *cancellation) (step, error) {
			// Ours: an earlier attempt took it. Free: freed between the
			// write and the read, try again.
			_, _, next, err := s.ownRecord(ctx, rec.Key, c.old[0], now, tries)
			return next, err
		},
	})
	return err
}

// CompleteRequest stores the result and marks the record done, fenced by
// the owner token and the running status (as on every store). Sent again
// after a lost answer, it finds its own completion and succeeds.
func (s *Store) CompleteRequest(ctx context.Context, k ledger.Key, owner string, result []byte) error {
	// The result replaces whatever form an earlier one had (plain,
	// deflated or in a part item).
	values := map[string]types.AttributeValue{":done": str(string(ledger.StatusDone)), ":owner": str(owner),
		":running": str(string(ledger.StatusRunning))}
	stored := map[string]types.AttributeValue{}
	putBlob(stored, attrResult, result)
	update, remove := "SET #st = :done", []string{"#rp"}
	for placeholder, name := range map[string]string{"#r": attrResult, "#rz": zipped(attrResult)} {
		if v, ok := stored[name]; ok {
			update += ", " + placeholder + " = :res"
			values[":res"] = v
		} else {
			remove = append(remove, placeholder)
		}
	}
	update += " REMOVE " + strings.Join(remove, ", ")
	done, err := s.exclusiveWrite(ctx)
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.table),
		Key:                 requestKey(k),
		UpdateExpression:    aws.String(update),
		ConditionExpression: aws.String("#owner = :owner AND #st = :running"),
		ExpressionAttributeNames: map[string]string{"#st": attrReqStatus, "#owner": attrOwner,
			"#r": attrResult, "#rz": zipped(attrResult), "#rp": attrResultPart},
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	done()
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return err
	}
	old := ccf.Item
	if len(old) == 0 {
		if old, err = s.getItem(ctx, requestKey(k)); err != nil {
			return err
		}
	}
	if len(old) > 0 {
		if held, _, err := decodeRecord(old); err == nil && ledger.CompletedBy(held, owner, result) {
			return nil
		}
	}
	return board.ErrNotOwner
}

// ReleaseRequest deletes a running record, fenced by the owner token.
func (s *Store) ReleaseRequest(ctx context.Context, k ledger.Key, owner string) error {
	done, err := s.exclusiveWrite(ctx)
	if err != nil {
		return err
	}
	_, err = s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 aws.String(s.table),
		Key:                       requestKey(k),
		ConditionExpression:       aws.String("#owner = :owner AND #st = :running"),
		ExpressionAttributeNames:  map[string]string{"#owner": attrOwner, "#st": attrReqStatus},
		ExpressionAttributeValues: map[string]types.AttributeValue{":owner": str(owner), ":running": str(string(ledger.StatusRunning))},
	})
	done()
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return board.ErrNotOwner
	}
	return err
}
