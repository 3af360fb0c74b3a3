package dynamo

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// API tokens (docs/dynamodb.md):
//
//	api token           TOKEN / <id>
//
// One partition, like people: listing is one Query, and a team has few
// tokens. A token is read by its id with one consistent GetItem on every
// call that presents it, so a revocation stops it at once on every
// instance. Times are fixed-width UTC text (orderTime), which compares like
// the time itself in conditions.
const (
	pkTokens      = "TOKEN"
	attrHash      = "hash"
	attrAgent     = "agent"
	attrLabel     = "label"
	attrLastUsed  = "last_used_at"
	attrRevokedAt = "revoked_at"
	typeToken     = "api_token"
)

func tokenKey(id string) map[string]types.AttributeValue { return key(pkTokens, id) }

func tokenItem(t board.APIToken) map[string]types.AttributeValue {
	item := tokenKey(t.ID)
	item[attrType] = str(typeToken)
	item[attrHash] = str(t.Hash)
	item[attrHandle] = str(t.Handle)
	item[attrAgent] = str(t.Agent)
	item[attrLabel] = str(t.Label)
	item[attrCreatedBy] = str(t.CreatedBy)
	item[attrCreatedAt] = str(orderTime(t.CreatedAt))
	if t.LastUsedAt != nil {
		item[attrLastUsed] = str(orderTime(*t.LastUsedAt))
	}
	if t.RevokedAt != nil {
		item[attrRevokedAt] = str(orderTime(*t.RevokedAt))
	}
	return item
}

func decodeToken(item map[string]types.AttributeValue) (board.APIToken, error) {
	t := board.APIToken{ID: getS(item, attrSK), Hash: getS(item, attrHash), Handle: getS(item, attrHandle),
		Agent: getS(item, attrAgent), Label: getS(item, attrLabel), CreatedBy: getS(item, attrCreatedBy)}
	var err error
	if t.CreatedAt, err = time.Parse(time.RFC3339Nano, getS(item, attrCreatedAt)); err != nil {
		return t, err
	}
	for name, dst := range map[string]**time.Time{attrLastUsed: &t.LastUsedAt, attrRevokedAt: &t.RevokedAt} {
		if v := getS(item, name); v != "" {
			at, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return t, err
			}
			*dst = &at
		}
	}
	return t, nil
}

// CreateToken puts the token on the conditions that its person exists and
// its id is free, in one transaction.
func (s *Store) CreateToken(ctx context.Context, t board.APIToken) error {
	put := s.put(tokenItem(t), "attribute_not_exists(#pk)", map[string]string{"#pk": attrPK}, nil, false)
	failed, err := s.writeOnce(ctx, []types.TransactWriteItem{s.personExists(t.Handle), put})
	if err != nil {
		return err
	}
	switch failed {
	case 0:
		return board.ErrNotFound
	case 1:
		// A token's id is random: the same token stored is this call's.
		if mine, err := s.storedAlready(ctx, put.Put); err != nil || mine {
			return err
		}
		return board.ErrExists
	}
	return nil
}

// GetToken is one consistent GetItem.
func (s *Store) GetToken(ctx context.Context, id string) (board.APIToken, error) {
	item, err := s.getItem(ctx, tokenKey(id))
	if err != nil {
		return board.APIToken{}, err
	}
	if item == nil {
		return board.APIToken{}, board.ErrNotFound
	}
	return decodeToken(item)
}

// ListTokens is one consistent Query of the tokens' partition, filtered by
// handle when one is given.
func (s *Store) ListTokens(ctx context.Context, handle string) ([]board.APIToken, error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkTokens)},
		ConsistentRead:            aws.Bool(true),
	}
	if handle != "" {
		in.FilterExpression = aws.String("#h = :h")
		in.ExpressionAttributeNames["#h"] = attrHandle
		in.ExpressionAttributeValues[":h"] = str(handle)
	}
	items, err := s.queryAll(ctx, in, 0)
	if err != nil {
		return nil, err
	}
	out := make([]board.APIToken, 0, len(items))
	for _, item := range items {
		t, err := decodeToken(item)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	sortTokens(out)
	return out, nil
}

func sortTokens(ts []board.APIToken) {
	slices.SortStableFunc(ts, func(a, b board.APIToken) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// RevokeToken is one conditional UpdateItem that keeps a first revocation.
func (s *Store) RevokeToken(ctx context.Context, id string, at time.Time) error {
	return s.revokeItem(ctx, tokenKey(id), at)
}

// TouchToken is one conditional UpdateItem; a refused condition (a use
// recorded meanwhile, or no such token) is the no-op the contract asks for.
func (s *Store) TouchToken(ctx context.Context, id string, at, staleBefore time.Time) error {
	return s.touchItem(ctx, tokenKey(id), at, staleBefore)
}

// updateOne sends one UpdateItem (half the write capacity of a one-item
// transaction); a refused condition comes back as a cancellation of item 0.
func (s *Store) updateOne(ctx context.Context, in *dynamodb.UpdateItemInput) (*cancellation, error) {
	done, err := s.exclusiveWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if _, err := s.db.UpdateItem(ctx, in); err != nil {
		return conditionFailed(err)
	}
	return nil, nil
}
