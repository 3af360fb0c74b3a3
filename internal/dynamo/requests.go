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
	cond := "attribute_not_exists(#pk) OR #exp <= :now OR (#st = :running AND #lease <= :now)"
	names := map[string]string{"#pk": attrPK, "#exp": attrExpiresNS, "#st": attrReqStatus, "#lease": attrLeaseNS}
	values := map[string]types.AttributeValue{":now": num(now.UnixNano()), ":running": str(string(ledger.StatusRunning))}
	unlock, err := s.locks.lock(ctx, "request\x00"+getS(requestKey(rec.Key), attrPK))
	if err != nil {
		return err
	}
	defer unlock()
	for attempt := 0; attempt < maxAttempts; attempt++ {
		c, err := s.commit(ctx, []types.TransactWriteItem{s.put(recordItem(rec, ""), cond, names, values, true)})
		switch {
		case err != nil:
			return err
		case c == nil:
			return nil
		case c.failedAt(0):
			old := c.old[0]
			if old == nil {
				if old, err = s.getItem(ctx, requestKey(rec.Key)); err != nil {
					return err
				}
			}
			held, _, err := s.liveRecord(ctx, old, now)
			if err != nil {
				return err
			}
			switch {
			case held == nil || held.LeaseExpired(now):
				continue // freed between the write and the read
			case held.Status == ledger.StatusRunning && rec.Owner != "" && held.Owner == rec.Owner:
				return nil // our own claim, whose answer was lost
			}
			return &ledger.ExistsError{Record: *held}
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
	return fmt.Errorf("dynamo: claiming request %q kept conflicting", rec.Key.RequestID)
}

// CompleteRequest stores the result, fenced by the owner token.
func (s *Store) CompleteRequest(ctx context.Context, k ledger.Key, owner string, result []byte) error {
	// The result replaces whatever form an earlier one had (plain,
	// deflated or in a part item).
	values := map[string]types.AttributeValue{":done": str(string(ledger.StatusDone)), ":owner": str(owner)}
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
	return s.fenced(ctx, func() error {
		_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:           aws.String(s.table),
			Key:                 requestKey(k),
			UpdateExpression:    aws.String(update),
			ConditionExpression: aws.String("#owner = :owner"),
			ExpressionAttributeNames: map[string]string{"#st": attrReqStatus, "#owner": attrOwner,
				"#r": attrResult, "#rz": zipped(attrResult), "#rp": attrResultPart},
			ExpressionAttributeValues: values,
		})
		return err
	})
}

// ReleaseRequest deletes a running record, fenced by the owner token.
func (s *Store) ReleaseRequest(ctx context.Context, k ledger.Key, owner string) error {
	return s.fenced(ctx, func() error {
		_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName:                 aws.String(s.table),
			Key:                       requestKey(k),
			ConditionExpression:       aws.String("#owner = :owner AND #st = :running"),
			ExpressionAttributeNames:  map[string]string{"#owner": attrOwner, "#st": attrReqStatus},
			ExpressionAttributeValues: map[string]types.AttributeValue{":owner": str(owner), ":running": str(string(ledger.StatusRunning))},
		})
		return err
	})
}

// fenced runs a write conditioned on the owner token: a failed condition is
// ErrNotOwner; contention and what the SDK gave up retrying are retried.
func (s *Store) fenced(ctx context.Context, write func() error) error {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		done, err := s.writeTurn(ctx)
		if err != nil {
			return err
		}
		err = write()
		done()
		if err == nil {
			return nil
		}
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			return board.ErrNotOwner
		}
		c, err := retryableOrFail(err)
		if err != nil || c == nil {
			return err
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
	return errConflicting("a fenced ledger write")
}
