package dynamo

import (
	"context"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Connected agents in a move (boardfile.OAuthTransferSource, boardfile.OAuthTransferTarget).
// Grants are one partition, read by Query page by page. Tokens are keyed
// by their hash alone (a call with a token reads it and its grant in one
// BatchGetItem, built from the token), so no key lists a grant's tokens;
// the export finds them with a Scan, as it finds notes and request
// records. That needs no index and no change to how tokens are written, so
// it finds the tokens of grants made before moves carried grants, and
// leaves the requests of the token check path as they were.

// TransferOAuthGrants streams the grants unrevoked and unexpired at now (a
// Query of the grants' partition).
func (s *Store) TransferOAuthGrants(ctx context.Context, now time.Time, fn func(board.OAuthGrant) error) error {
	return s.eachPage(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		FilterExpression:          aws.String("#exp > :now AND attribute_not_exists(#r)"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#exp": attrExpiresNS, "#r": attrRevokedAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkOAuthGrants), ":now": num(now.UnixNano())},
		ConsistentRead:            aws.Bool(true),
	}, nil, func(items []map[string]types.AttributeValue) error {
		for _, item := range items {
			g, err := decodeOAuthGrant(item)
			if err != nil {
				return err
			}
			if err := fn(g); err != nil {
				return err
			}
		}
		return nil
	})
}

// TransferOAuthTokens streams the tokens unexpired at now (a Scan of the
// token items).
func (s *Store) TransferOAuthTokens(ctx context.Context, now time.Time, fn func(board.OAuthToken) error) error {
	return s.eachPage(ctx, nil, &dynamodb.ScanInput{
		TableName:                 aws.String(s.table),
		FilterExpression:          aws.String("#type = :token AND #exp > :now"),
		ExpressionAttributeNames:  map[string]string{"#type": attrType, "#exp": attrExpiresNS},
		ExpressionAttributeValues: map[string]types.AttributeValue{":token": str(typeOAuthToken), ":now": num(now.UnixNano())},
		ConsistentRead:            aws.Bool(true),
	}, func(items []map[string]types.AttributeValue) error {
		for _, item := range items {
			t, err := decodeOAuthToken(strings.TrimPrefix(getS(item, attrPK), pkOAuthTokenPrefix), item)
			if err != nil {
				return err
			}
			if err := fn(t); err != nil {
				return err
			}
		}
		return nil
	})
}

// PutOAuthGrant puts the grant, if absent, in one transaction with a check
// that its person exists.
func (s *Store) PutOAuthGrant(ctx context.Context, g board.OAuthGrant) (board.PutOutcome, error) {
	return s.putWithParent(ctx, oauthGrantItem(g), personKey(g.Handle), func(old map[string]types.AttributeValue) (bool, error) {
		have, err := decodeOAuthGrant(old)
		return board.SameOAuthGrant(have, g), err
	})
}

// PutOAuthToken puts the token, if absent, in one transaction with a check
// that its grant exists.
func (s *Store) PutOAuthToken(ctx context.Context, t board.OAuthToken) (board.PutOutcome, error) {
	return s.putWithParent(ctx, oauthTokenItem(t), oauthGrantKey(t.GrantID), func(old map[string]types.AttributeValue) (bool, error) {
		have, err := decodeOAuthToken(t.Hash, old)
		return board.SameOAuthToken(have, t), err
	})
}
