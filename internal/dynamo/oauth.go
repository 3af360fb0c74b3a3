package dynamo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The OAuth authorization server's records (docs/dynamodb.md):
//
//	client    OCLIENT#<sha-256 of client_id> / C
//	code      OCODE#<code hash>               / C
//	grant     OGRANT                          / <grant id>
//	token     OTOKEN#<token hash>             / T
//	window    OREGWINDOW#<start, unix seconds> / W  (registrations counted)
//
// Grants share one partition, like API tokens (a person's grants are one
// Query). Clients, codes and tokens each have their own, read by key only.
// Everything that expires carries the TTL attribute; reads judge expiry
// themselves (expires_ns), since TTL deletes late. A call with an access
// token reads the token and its grant in one BatchGetItem: the token names
// its grant, so nothing is read first.
const (
	pkOAuthClientPrefix = "OCLIENT#"
	pkOAuthCodePrefix   = "OCODE#"
	pkOAuthGrants       = "OGRANT"
	pkOAuthTokenPrefix  = "OTOKEN#"
	skOAuthClient       = "C"
	skOAuthCode         = "C"
	skOAuthToken        = "T"
	pkOAuthRegWindow    = "OREGWINDOW#"
	skOAuthRegWindow    = "W"
	attrRegistrations   = "n"
	typeOAuthRegWindow  = "oauth_registration_window"

	attrClientID     = "client_id"
	attrClientName   = "client_name"
	attrKind         = "kind"
	attrURI          = "uri"
	attrRedirectURIs = "redirect_uris"
	attrRedirectURI  = "redirect_uri"
	attrChallenge    = "challenge"
	attrResource     = "resource"
	attrScope        = "scope"
	attrGrantID      = "grant_id"
	attrUsedAt       = "used_at"

	typeOAuthClient = "oauth_client"
	typeOAuthCode   = "oauth_code"
	typeOAuthGrant  = "oauth_grant"
	typeOAuthToken  = "oauth_token"

	// neverTTL is the TTL of a client kept for good (9999-12-31): TTL never
	// deletes it. The item is rewritten rather than its expiry removed, as
	// minidyn does not apply REMOVE. Its expires_ns is MaxInt64 and its
	// expires empty: it reads back as never expiring.
	neverTTL = 253402300799
)

// oauthClientKey keys a client by the hash of its id: a metadata
// document's id is a URL of any length and characters.
func oauthClientKey(id string) map[string]types.AttributeValue {
	sum := sha256.Sum256([]byte(id))
	return key(pkOAuthClientPrefix+hex.EncodeToString(sum[:]), skOAuthClient)
}

func oauthCodeKey(hash string) map[string]types.AttributeValue {
	return key(pkOAuthCodePrefix+hash, skOAuthCode)
}

func oauthGrantKey(id string) map[string]types.AttributeValue { return key(pkOAuthGrants, id) }

func oauthTokenKey(hash string) map[string]types.AttributeValue {
	return key(pkOAuthTokenPrefix+hash, skOAuthToken)
}

func parseOrderTime(item map[string]types.AttributeValue, name string) (time.Time, error) {
	return time.Parse(time.RFC3339Nano, getS(item, name))
}

func optionalOrderTime(item map[string]types.AttributeValue, name string) (*time.Time, error) {
	if getS(item, name) == "" {
		return nil, nil
	}
	t, err := parseOrderTime(item, name)
	return &t, err
}

func setOptionalTime(item map[string]types.AttributeValue, name string, t *time.Time) {
	if t != nil {
		item[name] = str(orderTime(*t))
	}
}

func oauthClientItem(c board.OAuthClient) (map[string]types.AttributeValue, error) {
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return nil, err
	}
	item := oauthClientKey(c.ID)
	item[attrType] = str(typeOAuthClient)
	item[attrClientID] = str(c.ID)
	item[attrKind] = str(string(c.Kind))
	item[attrName] = str(c.Name)
	item[attrURI] = str(c.URI)
	item[attrRedirectURIs] = str(string(uris))
	item[attrCreatedAt] = str(orderTime(c.CreatedAt))
	if !c.ExpiresAt.IsZero() {
		expiring(item, c.ExpiresAt)
	}
	return item, nil
}

func decodeOAuthClient(item map[string]types.AttributeValue) (board.OAuthClient, error) {
	c := board.OAuthClient{ID: getS(item, attrClientID), Kind: board.OAuthClientKind(getS(item, attrKind)),
		Name: getS(item, attrName), URI: getS(item, attrURI)}
	if err := json.Unmarshal([]byte(getS(item, attrRedirectURIs)), &c.RedirectURIs); err != nil {
		return c, err
	}
	var err error
	if c.CreatedAt, err = parseOrderTime(item, attrCreatedAt); err != nil {
		return c, err
	}
	if getS(item, attrExpires) != "" && getN(item, attrExpiresNS) != math.MaxInt64 {
		c.ExpiresAt, err = parseOrderTime(item, attrExpires)
	}
	return c, err
}

func oauthCodeItem(c board.OAuthCode) map[string]types.AttributeValue {
	item := oauthCodeKey(c.Hash)
	item[attrType] = str(typeOAuthCode)
	item[attrClientID] = str(c.ClientID)
	item[attrClientName] = str(c.ClientName)
	item[attrRedirectURI] = str(c.RedirectURI)
	item[attrChallenge] = str(c.Challenge)
	item[attrResource] = str(c.Resource)
	item[attrScope] = str(c.Scope)
	item[attrHandle] = str(c.Handle)
	item[attrAgent] = str(c.Agent)
	item[attrGrantID] = str(c.GrantID)
	item[attrCreatedAt] = str(orderTime(c.CreatedAt))
	setOptionalTime(item, attrUsedAt, c.UsedAt)
	expiring(item, c.ExpiresAt)
	return item
}

func decodeOAuthCode(hash string, item map[string]types.AttributeValue) (board.OAuthCode, error) {
	c := board.OAuthCode{Hash: hash, ClientID: getS(item, attrClientID), ClientName: getS(item, attrClientName),
		RedirectURI: getS(item, attrRedirectURI), Challenge: getS(item, attrChallenge), Resource: getS(item, attrResource),
		Scope: getS(item, attrScope), Handle: getS(item, attrHandle), Agent: getS(item, attrAgent), GrantID: getS(item, attrGrantID)}
	var err error
	if c.CreatedAt, err = parseOrderTime(item, attrCreatedAt); err != nil {
		return c, err
	}
	if c.ExpiresAt, err = parseOrderTime(item, attrExpires); err != nil {
		return c, err
	}
	c.UsedAt, err = optionalOrderTime(item, attrUsedAt)
	return c, err
}

func oauthGrantItem(g board.OAuthGrant) map[string]types.AttributeValue {
	item := oauthGrantKey(g.ID)
	item[attrType] = str(typeOAuthGrant)
	item[attrClientID] = str(g.ClientID)
	item[attrClientName] = str(g.ClientName)
	item[attrHandle] = str(g.Handle)
	item[attrAgent] = str(g.Agent)
	item[attrResource] = str(g.Resource)
	item[attrScope] = str(g.Scope)
	item[attrCreatedAt] = str(orderTime(g.CreatedAt))
	setOptionalTime(item, attrLastUsed, g.LastUsedAt)
	setOptionalTime(item, attrRevokedAt, g.RevokedAt)
	expiring(item, g.ExpiresAt)
	return item
}

func decodeOAuthGrant(item map[string]types.AttributeValue) (board.OAuthGrant, error) {
	g := board.OAuthGrant{ID: getS(item, attrSK), ClientID: getS(item, attrClientID), ClientName: getS(item, attrClientName),
		Handle: getS(item, attrHandle), Agent: getS(item, attrAgent), Resource: getS(item, attrResource), Scope: getS(item, attrScope)}
	var err error
	if g.CreatedAt, err = parseOrderTime(item, attrCreatedAt); err != nil {
		return g, err
	}
	if g.ExpiresAt, err = parseOrderTime(item, attrExpires); err != nil {
		return g, err
	}
	if g.LastUsedAt, err = optionalOrderTime(item, attrLastUsed); err != nil {
		return g, err
	}
	g.RevokedAt, err = optionalOrderTime(item, attrRevokedAt)
	return g, err
}

func oauthTokenItem(t board.OAuthToken) map[string]types.AttributeValue {
	item := oauthTokenKey(t.Hash)
	item[attrType] = str(typeOAuthToken)
	item[attrGrantID] = str(t.GrantID)
	item[attrKind] = str(string(t.Kind))
	item[attrCreatedAt] = str(orderTime(t.CreatedAt))
	setOptionalTime(item, attrUsedAt, t.UsedAt)
	expiring(item, t.ExpiresAt)
	return item
}

func decodeOAuthToken(hash string, item map[string]types.AttributeValue) (board.OAuthToken, error) {
	t := board.OAuthToken{Hash: hash, GrantID: getS(item, attrGrantID), Kind: board.OAuthTokenKind(getS(item, attrKind))}
	var err error
	if t.CreatedAt, err = parseOrderTime(item, attrCreatedAt); err != nil {
		return t, err
	}
	if t.ExpiresAt, err = parseOrderTime(item, attrExpires); err != nil {
		return t, err
	}
	t.UsedAt, err = optionalOrderTime(item, attrUsedAt)
	return t, err
}

// PutOAuthClient is one PutItem.
func (s *Store) PutOAuthClient(ctx context.Context, c board.OAuthClient) error {
	item, err := oauthClientItem(c)
	if err != nil {
		return err
	}
	_, err = s.writeOnce(ctx, []types.TransactWriteItem{s.put(item, "", nil, nil, false)})
	return err
}

// CountOAuthRegistration is one UpdateItem (not a transaction: concurrent
// counts on one item are serialized by DynamoDB, never refused as
// conflicts) that adds one on the condition that the window is below the
// limit.
func (s *Store) CountOAuthRegistration(ctx context.Context, window, keepUntil time.Time, limit int) (bool, error) {
	if limit <= 0 {
		return false, nil
	}
	done, err := s.exclusiveWrite(ctx)
	if err != nil {
		return false, err
	}
	defer done()
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.table),
		Key:                      key(pkOAuthRegWindow+strconv.FormatInt(window.Unix(), 10), skOAuthRegWindow),
		UpdateExpression:         aws.String("SET #type = :type, #ttl = :ttl ADD #n :one"),
		ConditionExpression:      aws.String("attribute_not_exists(#n) OR #n < :limit"),
		ExpressionAttributeNames: map[string]string{"#type": attrType, "#ttl": attrExpiresAt, "#n": attrRegistrations},
		ExpressionAttributeValues: map[string]types.AttributeValue{":type": str(typeOAuthRegWindow),
			":ttl": num(ttlSeconds(keepUntil)), ":one": num(1), ":limit": num(int64(limit))},
	})
	if err == nil {
		return true, nil
	}
	c, err := conditionFailed(err)
	if c != nil {
		return false, nil
	}
	return false, err
}

// GetOAuthClient is one consistent GetItem.
func (s *Store) GetOAuthClient(ctx context.Context, id string, now time.Time) (board.OAuthClient, error) {
	item, err := s.getItem(ctx, oauthClientKey(id))
	if err != nil {
		return board.OAuthClient{}, err
	}
	if item == nil || getS(item, attrClientID) != id || (item[attrExpiresNS] != nil && !live(item, now)) {
		return board.OAuthClient{}, board.ErrNotFound
	}
	return decodeOAuthClient(item)
}

// CreateOAuthCode is one conditional PutItem.
func (s *Store) CreateOAuthCode(ctx context.Context, c board.OAuthCode) error {
	put := s.put(oauthCodeItem(c), "attribute_not_exists(#pk)", map[string]string{"#pk": attrPK}, nil, false)
	failed, err := s.writeOnce(ctx, []types.TransactWriteItem{put})
	if err != nil {
		return err
	}
	if failed == 0 {
		// A code's hash is of a random secret: the same code stored is
		// this call's own, its answer lost and the put resent.
		if mine, err := s.storedAlready(ctx, put.Put); err != nil || mine {
			return err
		}
		return board.ErrExists
	}
	return nil
}

// GetOAuthCode is one consistent GetItem.
func (s *Store) GetOAuthCode(ctx context.Context, hash string, now time.Time) (board.OAuthCode, error) {
	item, err := s.getItem(ctx, oauthCodeKey(hash))
	if err != nil {
		return board.OAuthCode{}, err
	}
	if !live(item, now) {
		return board.OAuthCode{}, board.ErrNotFound
	}
	return decodeOAuthCode(hash, item)
}

// RedeemOAuthCode is one transaction: the code used up (condition: unused
// and unexpired), the client kept (condition: it exists, unexpired), the
// grant put (condition: its id is free) and its tokens put.
func (s *Store) RedeemOAuthCode(ctx context.Context, r board.OAuthRedemption) error {
	now := num(r.Now.UnixNano())
	items := []types.TransactWriteItem{{Update: &types.Update{
		TableName:                 aws.String(s.table),
		Key:                       oauthCodeKey(r.CodeHash),
		UpdateExpression:          aws.String("SET #u = :at"),
		ConditionExpression:       aws.String("attribute_exists(#pk) AND attribute_not_exists(#u) AND #exp > :now"),
		ExpressionAttributeNames:  map[string]string{"#u": attrUsedAt, "#pk": attrPK, "#exp": attrExpiresNS},
		ExpressionAttributeValues: map[string]types.AttributeValue{":at": str(orderTime(r.Now)), ":now": now},
	}}}
	clientAt := -1
	if r.KeepClient != "" {
		clientAt = len(items)
		items = append(items, types.TransactWriteItem{Update: &types.Update{
			TableName:                aws.String(s.table),
			Key:                      oauthClientKey(r.KeepClient),
			UpdateExpression:         aws.String("SET #e = :never, #exp = :never_ns, #ttl = :never_ttl"),
			ConditionExpression:      aws.String("#id = :id AND (attribute_not_exists(#exp) OR #exp > :now)"),
			ExpressionAttributeNames: map[string]string{"#e": attrExpires, "#exp": attrExpiresNS, "#ttl": attrExpiresAt, "#id": attrClientID},
			ExpressionAttributeValues: map[string]types.AttributeValue{":id": str(r.KeepClient), ":now": now,
				":never": str(""), ":never_ns": num(math.MaxInt64), ":never_ttl": num(neverTTL)},
		}})
	}
	grantAt := len(items)
	items = append(items, s.put(oauthGrantItem(r.Grant), "attribute_not_exists(#pk)", map[string]string{"#pk": attrPK}, nil, false))
	for _, t := range r.Tokens {
		items = append(items, s.put(oauthTokenItem(t), "", nil, nil, false))
	}
	failed, err := s.writeOnce(ctx, items)
	switch {
	case err != nil:
		return err
	case failed == 0:
		return board.ErrUsed
	case failed >= 0 && failed == clientAt:
		return board.ErrNotFound
	case failed == grantAt:
		return board.ErrExists
	case failed > 0:
		return board.ErrUsed
	}
	return nil
}

// GetOAuthToken is one consistent BatchGetItem of the token and its grant.
func (s *Store) GetOAuthToken(ctx context.Context, grantID, hash string) (board.OAuthToken, board.OAuthGrant, error) {
	found, err := s.batchGet(ctx, []map[string]types.AttributeValue{oauthTokenKey(hash), oauthGrantKey(grantID)})
	if err != nil {
		return board.OAuthToken{}, board.OAuthGrant{}, err
	}
	return decodeOAuthPair(grantID, hash, found[0], found[1])
}

// decodeOAuthPair is an OAuth token's item and its grant's, or ErrNotFound
// when either is missing or the token is another grant's.
func decodeOAuthPair(grantID, hash string, ti, gi map[string]types.AttributeValue) (board.OAuthToken, board.OAuthGrant, error) {
	if ti == nil || gi == nil || getS(ti, attrGrantID) != grantID {
		return board.OAuthToken{}, board.OAuthGrant{}, board.ErrNotFound
	}
	t, err := decodeOAuthToken(hash, ti)
	if err != nil {
		return t, board.OAuthGrant{}, err
	}
	g, err := decodeOAuthGrant(gi)
	return t, g, err
}

// RotateOAuthRefresh is one transaction: the refresh token used up
// (condition: unused, of this grant), the grant's expiry moved (condition:
// unrevoked) and the next tokens put.
func (s *Store) RotateOAuthRefresh(ctx context.Context, r board.OAuthRotation) error {
	grant := map[string]types.AttributeValue{}
	expiring(grant, r.GrantExpiresAt)
	items := []types.TransactWriteItem{
		{Update: &types.Update{
			TableName:                 aws.String(s.table),
			Key:                       oauthTokenKey(r.UsedHash),
			UpdateExpression:          aws.String("SET #u = :at"),
			ConditionExpression:       aws.String("attribute_exists(#pk) AND attribute_not_exists(#u) AND #g = :g"),
			ExpressionAttributeNames:  map[string]string{"#u": attrUsedAt, "#pk": attrPK, "#g": attrGrantID},
			ExpressionAttributeValues: map[string]types.AttributeValue{":at": str(orderTime(r.Now)), ":g": str(r.GrantID)},
		}},
		{Update: &types.Update{
			TableName:                aws.String(s.table),
			Key:                      oauthGrantKey(r.GrantID),
			UpdateExpression:         aws.String("SET #e = :e, #exp = :exp, #ttl = :ttl"),
			ConditionExpression:      aws.String("attribute_exists(#pk) AND attribute_not_exists(#r)"),
			ExpressionAttributeNames: map[string]string{"#e": attrExpires, "#exp": attrExpiresNS, "#ttl": attrExpiresAt, "#pk": attrPK, "#r": attrRevokedAt},
			ExpressionAttributeValues: map[string]types.AttributeValue{":e": grant[attrExpires], ":exp": grant[attrExpiresNS],
				":ttl": grant[attrExpiresAt]},
		}},
	}
	for _, t := range r.Next {
		items = append(items, s.put(oauthTokenItem(t), "", nil, nil, false))
	}
	failed, err := s.writeOnce(ctx, items)
	if err != nil {
		return err
	}
	if failed >= 0 {
		return board.ErrUsed
	}
	return nil
}

// GetOAuthGrant is one consistent GetItem.
func (s *Store) GetOAuthGrant(ctx context.Context, id string) (board.OAuthGrant, error) {
	item, err := s.getItem(ctx, oauthGrantKey(id))
	if err != nil {
		return board.OAuthGrant{}, err
	}
	if item == nil {
		return board.OAuthGrant{}, board.ErrNotFound
	}
	return decodeOAuthGrant(item)
}

// ListOAuthGrants is one consistent Query of the grants' partition,
// filtered by expiry and, when one is given, handle.
func (s *Store) ListOAuthGrants(ctx context.Context, handle string, now time.Time) ([]board.OAuthGrant, error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		FilterExpression:          aws.String("#exp > :now"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#exp": attrExpiresNS},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkOAuthGrants), ":now": num(now.UnixNano())},
		ConsistentRead:            aws.Bool(true),
	}
	if handle != "" {
		in.FilterExpression = aws.String("#exp > :now AND #h = :h")
		in.ExpressionAttributeNames["#h"] = attrHandle
		in.ExpressionAttributeValues[":h"] = str(handle)
	}
	items, err := s.queryAll(ctx, in, 0)
	if err != nil {
		return nil, err
	}
	out := make([]board.OAuthGrant, 0, len(items))
	for _, item := range items {
		g, err := decodeOAuthGrant(item)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	slices.SortStableFunc(out, func(a, b board.OAuthGrant) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// RevokeOAuthGrant is one conditional UpdateItem that keeps a first
// revocation.
func (s *Store) RevokeOAuthGrant(ctx context.Context, id string, at time.Time) error {
	return s.revokeItem(ctx, oauthGrantKey(id), at)
}

// TouchOAuthGrant is one conditional UpdateItem; a refused condition is the
// no-op the contract asks for.
func (s *Store) TouchOAuthGrant(ctx context.Context, id string, at, staleBefore time.Time) error {
	return s.touchItem(ctx, oauthGrantKey(id), at, staleBefore)
}
