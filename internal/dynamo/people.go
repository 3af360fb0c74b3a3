package dynamo

import (
	"context"
	"fmt"
	"sort"
	"strconv"
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
//	sign-in attempt     SIF#<handle>  / SLOT#<n>
//	account event       PEV#<handle>  / <time>#<random>
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
	pkPersonEvents   = "PEV#"
	skSlotPrefix     = "SLOT#"
	skSession        = "S"

	attrHandle       = "handle"
	attrRole         = "role"
	attrPasswordHash = "password_hash"
	attrDisabled     = "disabled"
	attrCreatedBy    = "created_by"
	attrNotBefore    = "credentials_not_before"
	attrAttempt      = "attempt"
	attrAt           = "at"
	attrActor        = "actor"
	attrEventType    = "event_type"

	typePerson     = "person"
	typeInvitation = "invitation"
	typeSession    = "session"
	typeFailure    = "signin_attempt"
	typePersonEvt  = "person_event"
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
	if !p.CredentialsNotBefore.IsZero() {
		item[attrNotBefore] = str(orderTime(p.CredentialsNotBefore))
	}
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
	if p.CreatedAt, err = time.Parse(time.RFC3339Nano, getS(item, attrCreatedAt)); err != nil {
		return p, err
	}
	if nb := getS(item, attrNotBefore); nb != "" {
		p.CredentialsNotBefore, err = time.Parse(time.RFC3339Nano, nb)
	}
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

// writeOnce sends a small transaction (commit retries one that met another)
// and returns the index of the first failed condition, or -1.
func (s *Store) writeOnce(ctx context.Context, items []types.TransactWriteItem) (int, error) {
	c, err := s.commit(ctx, items)
	if err != nil || c == nil {
		return -1, err
	}
	for i := range items {
		if c.failedAt(i) {
			return i, nil
		}
	}
	return -1, fmt.Errorf("dynamo: writing people refused (%v); nothing was written by this call", c.codes)
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
		// CreatedAt is the moment of this call: the same person stored is
		// this call's own first attempt, not someone else's.
		if mine, err := s.storedAlready(ctx, items[0].Put); err != nil || mine {
			return err
		}
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
func (s *Store) SetPersonDisabled(ctx context.Context, handle string, disabled bool, ev board.PersonEvent) error {
	update, values := "SET #d = :d", map[string]types.AttributeValue{":d": boolean(disabled)}
	names := map[string]string{"#d": attrDisabled, "#pk": attrPK}
	if disabled {
		update += ", #nb = :nb"
		names["#nb"] = attrNotBefore
		values[":nb"] = str(orderTime(ev.At))
	}
	failed, err := s.writeOnce(ctx, []types.TransactWriteItem{{Update: &types.Update{
		TableName:                 aws.String(s.table),
		Key:                       personKey(handle),
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String("attribute_exists(#pk)"),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}}, s.put(personEventItem(ev), "", nil, nil, false)})
	if err != nil {
		return err
	}
	if failed == 0 {
		return board.ErrNotFound
	}
	return nil
}

func personEventItem(ev board.PersonEvent) map[string]types.AttributeValue {
	item := key(pkPersonEvents+ev.Handle, orderTime(ev.At)+"#"+newTxID())
	item[attrType] = str(typePersonEvt)
	item[attrHandle] = str(ev.Handle)
	item[attrEventType] = str(string(ev.Type))
	item[attrActor] = str(ev.Actor)
	item[attrAt] = str(orderTime(ev.At))
	return item
}

// ListPersonEvents is one Query of the person's event partition, newest
// first.
func (s *Store) ListPersonEvents(ctx context.Context, handle string, limit int) ([]board.PersonEvent, error) {
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkPersonEvents + handle)},
		ConsistentRead:            aws.Bool(true),
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(limit)),
	})
	if err != nil {
		return nil, err
	}
	evs := make([]board.PersonEvent, 0, len(out.Items))
	for _, item := range out.Items {
		at, err := time.Parse(time.RFC3339Nano, getS(item, attrAt))
		if err != nil {
			return nil, err
		}
		evs = append(evs, board.PersonEvent{Handle: getS(item, attrHandle), Type: board.PersonEventType(getS(item, attrEventType)),
			Actor: getS(item, attrActor), At: at})
	}
	return evs, nil
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
	// The person's other invitations are void from now on (the person
	// record says so); they are deleted in the same transaction, so no
	// list shows them, up to what one transaction holds.
	others, err := s.ListInvitations(ctx, now)
	if err != nil {
		return board.Person{}, err
	}
	items := []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName:                 aws.String(s.table),
			Key:                       invitationKey(tokenHash),
			ConditionExpression:       aws.String("#exp > :now"),
			ExpressionAttributeNames:  map[string]string{"#exp": attrExpiresNS},
			ExpressionAttributeValues: map[string]types.AttributeValue{":now": num(now.UnixNano())},
		}},
		// An invitation made before the person's last reset is void.
		{Update: &types.Update{
			TableName:                aws.String(s.table),
			Key:                      personKey(handle),
			UpdateExpression:         aws.String("SET #h = :h, #nb = :now"),
			ConditionExpression:      aws.String("attribute_exists(#pk) AND (attribute_not_exists(#nb) OR #nb <= :created)"),
			ExpressionAttributeNames: map[string]string{"#h": attrPasswordHash, "#pk": attrPK, "#nb": attrNotBefore},
			ExpressionAttributeValues: map[string]types.AttributeValue{":h": str(passwordHash), ":now": str(orderTime(now)),
				":created": str(getS(item, attrCreatedAt))},
		}},
		s.put(personEventItem(board.PersonEvent{Handle: handle, Type: board.PersonPasswordSet, Actor: "human:" + handle, At: now}), "", nil, nil, false),
	}
	for _, inv := range others {
		if inv.Handle == handle && inv.TokenHash != tokenHash && len(items) < chunkItems {
			items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.table), Key: invitationKey(inv.TokenHash)}})
		}
	}
	failed, err := s.writeOnce(ctx, items)
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
	done, err := s.exclusiveWrite(ctx)
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
	return decodeSession(idHash, item, now)
}

// decodeSession is a session item read, or ErrNotFound when there is none
// or it has expired at now.
func decodeSession(idHash string, item map[string]types.AttributeValue, now time.Time) (board.Session, error) {
	if !live(item, now) {
		return board.Session{}, board.ErrNotFound
	}
	ses := board.Session{IDHash: idHash, Handle: getS(item, attrHandle)}
	var err error
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

// ReserveSignInAttempt tries the handle's slots in turn, each a put on
// the condition that the slot is empty or holds an attempt not after
// since: usually the first succeeds (one request); a handle under attack
// costs up to limit requests, then none is free.
func (s *Store) ReserveSignInAttempt(ctx context.Context, handle string, a board.SignInAttempt, since time.Time, limit int) (int, bool, error) {
	for n := 0; n < limit; n++ {
		item := key(pkFailuresPrefix+handle, slotKey(n))
		item[attrType] = str(typeFailure)
		item[attrAttempt] = str(a.ID)
		item[attrAt] = str(orderTime(a.At))
		expiring(item, a.KeepUntil)
		failed, err := s.writeOnce(ctx, []types.TransactWriteItem{s.put(item, "attribute_not_exists(#pk) OR #at <= :since",
			map[string]string{"#pk": attrPK, "#at": attrAt}, map[string]types.AttributeValue{":since": str(orderTime(since))}, false)})
		if err != nil {
			return -1, false, err
		}
		if failed < 0 {
			return n, true, nil
		}
	}
	return -1, false, nil
}

// ReleaseSignInAttempt deletes the slot on the condition that it still
// holds the attempt.
func (s *Store) ReleaseSignInAttempt(ctx context.Context, handle string, slot int, id string) error {
	_, err := s.writeOnce(ctx, []types.TransactWriteItem{{Delete: &types.Delete{
		TableName:                 aws.String(s.table),
		Key:                       key(pkFailuresPrefix+handle, slotKey(slot)),
		ConditionExpression:       aws.String("#a = :a"),
		ExpressionAttributeNames:  map[string]string{"#a": attrAttempt},
		ExpressionAttributeValues: map[string]types.AttributeValue{":a": str(id)},
	}}})
	return err
}

func slotKey(n int) string { return skSlotPrefix + strconv.Itoa(n) }
