package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// LookupCredential is one consistent read: the credential's item (an OAuth
// token's with its grant's) and, when the handle is given, the person's,
// in one BatchGetItem (a GetItem when it is one item). A warm instance, which remembers whose a credential is, so
// checks a call's credential in one request instead of two in a row.
func (s *Store) LookupCredential(ctx context.Context, l board.CredentialLookup) (board.FoundCredential, error) {
	var keys []map[string]types.AttributeValue
	switch l.Kind {
	case board.CredentialToken:
		keys = append(keys, tokenKey(l.ID))
	case board.CredentialSession:
		keys = append(keys, sessionKey(l.ID))
	case board.CredentialGrant:
		keys = append(keys, oauthTokenKey(l.OAuthHash), oauthGrantKey(l.ID))
	default:
		return board.FoundCredential{}, board.Errorf(board.CodeInvalid, "unknown credential kind %q", l.Kind)
	}
	if l.Handle != "" {
		keys = append(keys, personKey(l.Handle))
	}
	found, err := s.readKeys(ctx, keys)
	if err != nil {
		return board.FoundCredential{}, err
	}
	var f board.FoundCredential
	switch l.Kind {
	case board.CredentialToken:
		if found[0] == nil {
			return f, board.ErrNotFound
		}
		f.Token, err = decodeToken(found[0])
	case board.CredentialSession:
		f.Session, err = decodeSession(l.ID, found[0], l.Now)
	case board.CredentialGrant:
		f.OAuthToken, f.Grant, err = decodeOAuthPair(l.ID, l.OAuthHash, found[0], found[1])
	}
	if err != nil {
		return board.FoundCredential{}, err
	}
	if l.Handle != "" && found[len(found)-1] != nil {
		p, err := decodePerson(found[len(found)-1])
		if err != nil {
			return board.FoundCredential{}, err
		}
		f.Person = &p
	}
	return f, nil
}

// readKeys reads one item with a GetItem and more with one BatchGetItem,
// both consistent.
func (s *Store) readKeys(ctx context.Context, keys []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
	if len(keys) == 1 {
		item, err := s.getItem(ctx, keys[0])
		return []map[string]types.AttributeValue{item}, err
	}
	return s.batchGet(ctx, keys)
}
