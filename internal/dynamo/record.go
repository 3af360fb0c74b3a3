package dynamo

import (
	"context"
	"fmt"
	"maps"
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
	// attrResultPart, on a record whose result did not fit beside its
	// arguments, names the part item (same partition, sort key R#result)
	// written in the same transaction; the part carries the same value.
	attrResultPart = "result_part"
)

const (
	typeRequest     = "request"
	typeRequestPart = "request-part"
	skResultPart    = "R#result"
	// recordInline is the size above which a record's result moves to its
	// part item. Arguments and result each stay far below the 400 KB
	// limit even deflated, but together, with every field of a ticket at
	// its limit and text that does not compress, they can reach it.
	recordInline = 300 * 1024
)

// recordItems is a request record as items: the record and, when its
// result does not fit beside it, the part holding the result (else nil).
func recordItems(r ledger.Record, txid string) (rec, part map[string]types.AttributeValue, err error) {
	rec = recordItem(r, txid)
	if itemSize(rec) > recordInline {
		partID := txid
		if partID == "" {
			partID = newTxID()
		}
		part = key(getS(rec, attrPK), skResultPart)
		part[attrType] = str(typeRequestPart)
		part[attrResultPart] = str(partID)
		part[attrExpiresAt] = rec[attrExpiresAt]
		for _, name := range []string{attrResult, zipped(attrResult)} {
			if v, ok := rec[name]; ok {
				part[name] = v
				delete(rec, name)
			}
		}
		rec[attrResultPart] = str(partID)
		if err := checkSize("request record result", part); err != nil {
			return nil, nil, err
		}
	}
	if err := checkSize("request record", rec); err != nil {
		return nil, nil, err
	}
	return rec, part, nil
}

// recordItem is the item of a request record with everything inline.
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
	putBlob(item, attrArgs, r.Args)
	putBlob(item, attrResult, r.Result)
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
	var err error
	if r.Args, err = getBlob(item, attrArgs); err != nil {
		return r, "", err
	}
	if r.Result, err = getBlob(item, attrResult); err != nil {
		return r, "", err
	}
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
// the item is absent or expired: past retention the key is free again. A
// result kept in a part item is read from it (one consistent GetItem; only
// results too large to sit beside their arguments have one).
func (s *Store) liveRecord(ctx context.Context, item map[string]types.AttributeValue, now time.Time) (*ledger.Record, string, error) {
	if len(item) == 0 {
		return nil, "", nil
	}
	if partID := getS(item, attrResultPart); partID != "" {
		if r, _, err := decodeRecord(item); err != nil || r.Expired(now) {
			return nil, "", err
		}
		part, err := s.getItem(ctx, key(getS(item, attrPK), skResultPart))
		if err != nil {
			return nil, "", err
		}
		if getS(part, attrResultPart) != partID {
			return nil, "", fmt.Errorf("dynamo: the result part of request record %s is missing", getS(item, attrPK))
		}
		merged := maps.Clone(item)
		for _, name := range []string{attrResult, zipped(attrResult)} {
			if v, ok := part[name]; ok {
				merged[name] = v
			}
		}
		item = merged
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
