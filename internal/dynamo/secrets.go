package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The server's own secrets (board.SecretStore, docs/dynamodb.md):
//
//	server secret       SECRET / <name>
//
// One partition of a few items, each written once and never changed.
const (
	pkSecrets  = "SECRET"
	attrSecret = "secret"
	typeSecret = "server_secret"
)

func secretKey(name string) map[string]types.AttributeValue { return key(pkSecrets, name) }

// ServerSecret is a consistent GetItem; the first time on a table, a put
// conditional on the item being absent, then the GetItem again, so every
// instance that raced to make the secret reads the one that won.
func (s *Store) ServerSecret(ctx context.Context, name string, candidate []byte) ([]byte, error) {
	if v, err := s.storedSecret(ctx, name); err != nil || v != nil {
		return v, err
	}
	item := secretKey(name)
	item[attrType] = str(typeSecret)
	item[attrSecret] = &types.AttributeValueMemberB{Value: candidate}
	// A failed condition means another instance came first: read its secret.
	if _, err := s.writeOnce(ctx, []types.TransactWriteItem{
		s.put(item, "attribute_not_exists(#pk)", map[string]string{"#pk": attrPK}, nil, false)}); err != nil {
		return nil, err
	}
	v, err := s.storedSecret(ctx, name)
	if err == nil && v == nil {
		err = fmt.Errorf("dynamo: server secret %q is absent right after it was written", name)
	}
	return v, err
}

// storedSecret is the secret's bytes, nil when there is none yet.
func (s *Store) storedSecret(ctx context.Context, name string) ([]byte, error) {
	item, err := s.getItem(ctx, secretKey(name))
	if err != nil || item == nil {
		return nil, err
	}
	b, ok := item[attrSecret].(*types.AttributeValueMemberB)
	if !ok || len(b.Value) == 0 {
		return nil, fmt.Errorf("dynamo: server secret %q holds no bytes", name)
	}
	return b.Value, nil
}
