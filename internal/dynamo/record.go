package dynamo

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Attributes of a request record. Times are kept twice where a condition
// needs them: exactly (RFC 3339 with nanoseconds) so the record reads back
// unchanged, and as integer nanoseconds for conditions, since DynamoDB
// compares numbers but not timestamps.
const (
	attrTool        = "tool"
	attrFingerprint = "fingerprint"
	attrArgs        = "args"
	attrReqStatus   = "status"
	attrResult      = "result"
	attrOwner       = "owner"
	attrLeaseUntil  = "lease_until"
	attrLeaseNS     = "lease_ns"
	attrCreatedAt   = "created_at"
	attrExpires     = "expires"
	attrExpiresNS   = "expires_ns"
	// attrExpiresAt is the TTL attribute (epoch seconds). TTL deletes up to
	// days late, so it only frees space; every condition and read uses
	// expires_ns.
	attrExpiresAt = "expires_at"
	// attrTxID names the transaction that wrote the record. When a commit's
	// answer is lost and the call retries, the retry finds its own txid and
	// reports success instead of a replay.
	attrTxID = "txid"
	attrType = "type"
)

const typeRequest = "request"

// recordItem is the full item of a request record.
func recordItem(r ledger.Record, txid string) map[string]types.AttributeValue {
	item := requestKey(r.Key)
	item[attrType] = str(typeRequest)
	item[attrTool] = str(r.Tool)
	item[attrFingerprint] = str(r.Fingerprint)
	item[attrReqStatus] = str(string(r.Status))
	item[attrCreatedAt] = str(r.CreatedAt.UTC().Format(time.RFC3339Nano))
	item[attrExpires] = str(r.ExpiresAt.UTC().Format(time.RFC3339Nano))
	item[attrExpiresNS] = num(r.ExpiresAt.UnixNano())
	item[attrExpiresAt] = num(ttlSeconds(r.ExpiresAt))
	putOptional(item, attrArgs, string(r.Args))
	putOptional(item, attrResult, string(r.Result))
	putOptional(item, attrOwner, r.Owner)
	putOptional(item, attrTxID, txid)
	if !r.LeaseUntil.IsZero() {
		item[attrLeaseUntil] = str(r.LeaseUntil.UTC().Format(time.RFC3339Nano))
		item[attrLeaseNS] = num(r.LeaseUntil.UnixNano())
	}
	return item
}

// ttlSeconds rounds up, so TTL never deletes a record before it expires.
func ttlSeconds(t time.Time) int64 {
	s := t.Unix()
	if t.After(time.Unix(s, 0)) {
		s++
	}
	return s
}

// putOptional leaves empty values out: an absent attribute reads back as the
// zero value, and not every DynamoDB-compatible endpoint stores "" the same.
func putOptional(item map[string]types.AttributeValue, name, v string) {
	if v != "" {
		item[name] = str(v)
	}
}

// decodeRecord reads a request record item back.
func decodeRecord(item map[string]types.AttributeValue) (ledger.Record, string, error) {
	var r ledger.Record
	pk := getS(item, attrPK)
	principal, requestID, ok := splitRequestPK(pk)
	if !ok {
		return r, "", fmt.Errorf("dynamo: item %q is not a request record", pk)
	}
	r.Key = ledger.Key{Principal: principal, RequestID: requestID}
	r.Tool = getS(item, attrTool)
	r.Fingerprint = getS(item, attrFingerprint)
	r.Status = ledger.Status(getS(item, attrReqStatus))
	r.Owner = getS(item, attrOwner)
	if v := getS(item, attrArgs); v != "" {
		r.Args = []byte(v)
	}
	if v := getS(item, attrResult); v != "" {
		r.Result = []byte(v)
	}
	var err error
	if r.CreatedAt, err = parseTime(item, attrCreatedAt); err != nil {
		return r, "", err
	}
	if r.ExpiresAt, err = parseTime(item, attrExpires); err != nil {
		return r, "", err
	}
	if r.LeaseUntil, err = parseTime(item, attrLeaseUntil); err != nil {
		return r, "", err
	}
	return r, getS(item, attrTxID), nil
}

func parseTime(item map[string]types.AttributeValue, name string) (time.Time, error) {
	v := getS(item, name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return t, fmt.Errorf("dynamo: attribute %s: %w", name, err)
	}
	return t, nil
}

// splitRequestPK undoes requestKey. A principal never contains '#', so the
// first '#' after the prefix separates it from the request_id.
func splitRequestPK(pk string) (principal, requestID string, ok bool) {
	if len(pk) <= len(pkRequestPrefix) || pk[:len(pkRequestPrefix)] != pkRequestPrefix {
		return "", "", false
	}
	rest := pk[len(pkRequestPrefix):]
	for i := 0; i < len(rest); i++ {
		if rest[i] == '#' {
			return rest[:i], rest[i+1:], true
		}
	}
	return "", "", false
}

// liveRecord decodes an item into an unexpired record, or returns nil when
// the item is absent or expired: past retention the key is free again.
func liveRecord(item map[string]types.AttributeValue, now time.Time) (*ledger.Record, string, error) {
	if len(item) == 0 {
		return nil, "", nil
	}
	r, txid, err := decodeRecord(item)
	if err != nil {
		return nil, "", err
	}
	if r.Expired(now) {
		return nil, "", nil
	}
	return &r, txid, nil
}
