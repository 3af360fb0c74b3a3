package dynamo

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// People and their credentials, in the same table (docs/dynamodb.md):
//
//	person              PEOPLE        / <handle>
//	invitation          INV           / <token hash>
//	session             SES#<id hash> / S
//	sign-in failure     SIF#<handle>  / <time>#<random>
//
// People and invitations each live in one partition: listing them is one
// Query, and there are as many as a team has people. Sessions have a
// partition each (looked up by hash only). Invitations, sessions and
// failures carry the TTL attribute, so DynamoDB frees them after expiry;
// every read checks expiry itself (expires_ns), since TTL deletes late.
const (
	pkPeople         = "PEOPLE"
	pkInvitations    = "INV"
	pkSessionPrefix  = "SES#"
	pkFailuresPrefix = "SIF#"
	skSession        = "S"

	attrHandle       = "handle"
	attrRole         = "role"
	attrPasswordHash = "password_hash"
	attrDisabled     = "disabled"
	attrCreatedBy    = "created_by"

	typePerson     = "person"
	typeInvitation = "invitation"
	typeSession    = "session"
	typeFailure    = "signin_failure"
)

func personKey(handle string) map[string]types.AttributeValue { return key(pkPeople, handle) }

func invitationKey(hash string) map[string]types.AttributeValue { return key(pkInvitations, hash) }

func sessionKey(hash string) map[string]types.AttributeValue {
	return key(pkSessionPrefix+hash, skSession)
}

func boolean(b bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: b} }

// expiring sets the exact expiry (for conditions and reads) and the TTL.
func expiring(item map[string]types.AttributeValue, t time.Time) {
	item[attrExpires] = str(orderTime(t))
	item[attrExpiresNS] = num(t.UnixNano())
	item[attrExpiresAt] = num(ttlSeconds(t))
}

func personItem(p board.Person) map[string]types.AttributeValue {
	item := personKey(p.Handle)
	item[attrType] = str(typePerson)
	item[attrHandle] = str(p.Handle)
	item[attrName] = str(p.Name)
	item[attrRole] = str(string(p.Role))
	item[attrPasswordHash] = str(p.PasswordHash)
	item[attrDisabled] = boolean(p.Disabled)
	item[attrCreatedAt] = str(orderTime(p.CreatedAt))
	return item
}

func decodePerson(item map[string]types.AttributeValue) (board.Person, error) {
	p := board.Person{
		Handle:       getS(item, attrHandle),
		Name:         getS(item, attrName),
		Role:         board.Role(getS(item, attrRole)),
		PasswordHash: getS(item, attrPasswordHash),
	}
	if v, ok := item[attrDisabled].(*types.AttributeValueMemberBOOL); ok {
		p.Disabled = v.Value
	}
	var err error
	p.CreatedAt, err = time.Parse(time.RFC3339Nano, getS(item, attrCreatedAt))
	return p, err
}

func invitationItem(inv board.Invitation) map[string]types.AttributeValue {
	item := invitationKey(inv.TokenHash)
	item[attrType] = str(typeInvitation)
	item[attrHandle] = str(inv.Handle)
	item[attrCreatedBy] = str(inv.CreatedBy)
	item[attrCreatedAt] = str(orderTime(inv.CreatedAt))
	expiring(item, inv.ExpiresAt)
	return item
}

func decodeInvitation(item map[string]types.AttributeValue) (board.Invitation, error) {
	inv := board.Invitation{TokenHash: getS(item, attrSK), Handle: getS(item, attrHandle), CreatedBy: getS(item, attrCreatedBy)}
	var err error
	if inv.CreatedAt, err = time.Parse(time.RFC3339Nano, getS(item, attrCreatedAt)); err != nil {
		return inv, err
	}
	inv.ExpiresAt, err = time.Parse(time.RFC3339Nano, getS(item, attrExpires))
	return inv, err
}

// live reports whether an expiring item has not expired by now.
func live(item map[string]types.AttributeValue, now time.Time) bool {
	return item != nil && getN(item, attrExpiresNS) > now.UnixNano()
}

// personExists is the condition item that makes a write depend on the person.
func (s *Store) personExists(handle string) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName:                aws.String(s.table),
		Key:                      personKey(handle),
		ConditionExpression:      aws.String("attribute_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK},
	}}
}

// writeOnce sends a small transaction (people's writes are not request
// records: they are retried here on contention only) and returns the
// index of the first failed condition, or -1.
func (s *Store) writeOnce(ctx context.Context, items []types.TransactWriteItem) (int, error) {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		c, err := s.commit(ctx, items)
		if err != nil {
			return -1, err
		}
		if c == nil {
			return -1, nil
		}
		for i := range items {
			if c.failedAt(i) {
				return i, nil
			}
		}
		if err := backoff(ctx, attempt); err != nil {
			return -1, err
		}
	}
	return -1, errors.New("dynamo: writing people kept conflicting; nothing was written by this call")
}

// CreatePerson puts the person if the handle is free, with the invitation.
func (s *Store) CreatePerson(ctx context.Context, p board.Person, inv *board.Invitation) error {
	items := []types.TransactWriteItem{s.put(personItem(p), "attribute_not_exists(#pk)", map[string]string{"#pk": attrPK}, nil, false)}
	if inv != nil {
		items = append(items, s.put(invitationItem(*inv), "", nil, nil, false))
	}
	failed, err := s.writeOnce(ctx, items)
	if err != nil {
		return err
	}
	if failed == 0 {
		return board.ErrExists
	}
	return nil
}

// GetPerson is one consistent GetItem.
func (s *Store) GetPerson(ctx context.Context, handle string) (board.Person, error) {
	item, err := s.getItem(ctx, personKey(handle))
	if err != nil {
		return board.Person{}, err
	}
	if item == nil {
		return board.Person{}, board.ErrNotFound
	}
	return decodePerson(item)
}

// ListPeople is one Query of the people's partition (sort key: handle).
func (s *Store) ListPeople(ctx context.Context) ([]board.Person, error) {
	items, err := s.queryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkPeople)},
		ConsistentRead:            aws.Bool(true),
	}, 0)
	if err != nil {
		return nil, err
	}
	out := make([]board.Person, 0, len(items))
	for _, item := range items {
		p, err := decodePerson(item)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// SetPersonDisabled is one conditional UpdateItem.
func (s *Store) SetPersonDisabled(ctx context.Context, handle string, disabled bool) error {
	failed, err := s.writeOnce(ctx, []types.TransactWriteItem{{Update: &types.Update{
		TableName:                 aws.String(s.table),
		Key:                       personKey(handle),
		UpdateExpression:          aws.String("SET #d = :d"),
		ConditionExpression:       aws.String("attribute_exists(#pk)"),
		ExpressionAttributeNames:  map[string]string{"#d": attrDisabled, "#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":d": boolean(disabled)},
	}}})
	if err != nil {
		return err
	}
	if failed == 0 {
		return board.ErrNotFound
	}
	return nil
}

// CreateInvitation puts the invitation on the condition that its person exists.
func (s *Store) CreateInvitation(ctx context.Context, inv board.Invitation) error {
	failed, err := s.writeOnce(ctx, []types.TransactWriteItem{s.personExists(inv.Handle),
		s.put(invitationItem(inv), "attribute_not_exists(#pk)", map[string]string{"#pk": attrPK}, nil, false)})
	if err != nil {
		return err
	}
	switch failed {
	case 0:
		return board.ErrNotFound
	case 1:
		return nil // stored already: the same invitation again
	}
	return nil
}

// GetInvitation is one consistent GetItem.
func (s *Store) GetInvitation(ctx context.Context, tokenHash string, now time.Time) (board.Invitation, error) {
	item, err := s.getItem(ctx, invitationKey(tokenHash))
	if err != nil {
		return board.Invitation{}, err
	}
	if !live(item, now) {
		return board.Invitation{}, board.ErrNotFound
	}
	return decodeInvitation(item)
}

// ListInvitations is one Query of the invitations' partition, expired ones
// filtered out.
func (s *Store) ListInvitations(ctx context.Context, now time.Time) ([]board.Invitation, error) {
	items, err := s.queryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		FilterExpression:          aws.String("#exp > :now"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#exp": attrExpiresNS},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkInvitations), ":now": num(now.UnixNano())},
		ConsistentRead:            aws.Bool(true),
	}, 0)
	if err != nil {
		return nil, err
	}
	out := make([]board.Invitation, 0, len(items))
	for _, item := range items {
		inv, err := decodeInvitation(item)
		if err != nil {
			return nil, err
		}
		out = append(out, inv)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// AcceptInvitation deletes the invitation (on the condition that it is
// still there and unexpired) and sets the password, in one transaction.
func (s *Store) AcceptInvitation(ctx context.Context, tokenHash, passwordHash string, now time.Time) (board.Person, error) {
	item, err := s.getItem(ctx, invitationKey(tokenHash))
	if err != nil {
		return board.Person{}, err
	}
	if !live(item, now) {
		return board.Person{}, board.ErrNotFound
	}
	handle := getS(item, attrHandle)
	failed, err := s.writeOnce(ctx, []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName:                 aws.String(s.table),
			Key:                       invitationKey(tokenHash),
			ConditionExpression:       aws.String("#exp > :now"),
			ExpressionAttributeNames:  map[string]string{"#exp": attrExpiresNS},
			ExpressionAttributeValues: map[string]types.AttributeValue{":now": num(now.UnixNano())},
		}},
		{Update: &types.Update{
			TableName:                 aws.String(s.table),
			Key:                       personKey(handle),
			UpdateExpression:          aws.String("SET #h = :h"),
			ConditionExpression:       aws.String("attribute_exists(#pk)"),
			ExpressionAttributeNames:  map[string]string{"#h": attrPasswordHash, "#pk": attrPK},
			ExpressionAttributeValues: map[string]types.AttributeValue{":h": str(passwordHash)},
		}},
	})
	if err != nil {
		return board.Person{}, err
	}
	if failed >= 0 {
		return board.Person{}, board.ErrNotFound
	}
	return s.GetPerson(ctx, handle)
}

// DeleteInvitation is one DeleteItem.
func (s *Store) DeleteInvitation(ctx context.Context, tokenHash string) error {
	return s.deleteItem(ctx, invitationKey(tokenHash))
}

func (s *Store) deleteItem(ctx context.Context, k map[string]types.AttributeValue) error {
	done, err := s.writeTurn(ctx)
	if err != nil {
		return err
	}
	defer done()
	_, err = s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: k})
	return err
}

// CreateSession is one PutItem.
func (s *Store) CreateSession(ctx context.Context, ses board.Session) error {
	item := sessionKey(ses.IDHash)
	item[attrType] = str(typeSession)
	item[attrHandle] = str(ses.Handle)
	item[attrCreatedAt] = str(orderTime(ses.CreatedAt))
	expiring(item, ses.ExpiresAt)
	_, err := s.writeOnce(ctx, []types.TransactWriteItem{s.put(item, "", nil, nil, false)})
	return err
}

// GetSession is one consistent GetItem.
func (s *Store) GetSession(ctx context.Context, idHash string, now time.Time) (board.Session, error) {
	item, err := s.getItem(ctx, sessionKey(idHash))
	if err != nil {
		return board.Session{}, err
	}
	if !live(item, now) {
		return board.Session{}, board.ErrNotFound
	}
	ses := board.Session{IDHash: idHash, Handle: getS(item, attrHandle)}
	if ses.CreatedAt, err = time.Parse(time.RFC3339Nano, getS(item, attrCreatedAt)); err != nil {
		return ses, err
	}
	ses.ExpiresAt, err = time.Parse(time.RFC3339Nano, getS(item, attrExpires))
	return ses, err
}

// DeleteSession is one DeleteItem.
func (s *Store) DeleteSession(ctx context.Context, idHash string) error {
	return s.deleteItem(ctx, sessionKey(idHash))
}

// RecordSignInFailure puts one item per failure, freed by TTL.
func (s *Store) RecordSignInFailure(ctx context.Context, handle string, at, keepUntil time.Time) error {
	item := key(pkFailuresPrefix+handle, orderTime(at)+"#"+newTxID())
	item[attrType] = str(typeFailure)
	expiring(item, keepUntil)
	_, err := s.writeOnce(ctx, []types.TransactWriteItem{s.put(item, "", nil, nil, false)})
	return err
}

// CountSignInFailures is one consistent Query that counts (Select COUNT)
// the handle's failures after since, reading at most limit items.
func (s *Store) CountSignInFailures(ctx context.Context, handle string, since time.Time, limit int) (int, error) {
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk AND #sk > :since"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkFailuresPrefix + handle), ":since": str(orderTime(since))},
		ConsistentRead:            aws.Bool(true),
		Select:                    types.SelectCount,
		Limit:                     aws.Int32(int32(limit)),
	})
	if err != nil {
		return 0, err
	}
	return int(min(out.Count, int32(limit))), nil
}
