package dynamo

import (
	"context"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// storedAlready says whether the item of a conditional put that failed its
// "not there yet" condition is, attribute for attribute, the item this call
// sent. It is, when the SDK resent a write whose first attempt had applied
// but whose answer was lost: a single put goes out as PutItem (commit),
// which carries no idempotency token, so the resend is judged against the
// first attempt's item (a transaction's client request token covers this
// on DynamoDB, but not on the emulators the tests run on). Only writes
// whose items carry a fresh id or timestamp use this, so an identical
// stored item can only be this call's own.
func (s *Store) storedAlready(ctx context.Context, put *types.Put) (bool, error) {
	key := map[string]types.AttributeValue{attrPK: put.Item[attrPK], attrSK: put.Item[attrSK]}
	stored, err := s.getItem(ctx, key)
	if err != nil || stored == nil {
		return false, err
	}
	return reflect.DeepEqual(stored, put.Item), nil
}
