package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// recordVerdict is what a failed condition on a write's request record
// turned out to mean.
type recordVerdict int

const (
	// recordTaken: an unexpired record of an earlier call holds the key.
	recordTaken recordVerdict = iota
	// recordOurs: the record is the one this call wrote in an earlier
	// attempt whose answer was lost; the write is done.
	recordOurs
	// recordFree: the record is gone or expired by now; try again.
	recordFree
)

// existingRecord resolves a failed condition on the request record: from
// the old item the cancellation carried (ALL_OLD), or, when the endpoint
// sent none, from a consistent read. txids holds the ids of this call's
// earlier attempts.
func (s *Store) existingRecord(ctx context.Context, key ledger.Key, old map[string]types.AttributeValue, now time.Time, txids []string) (recordVerdict, *ledger.Record, error) {
	if len(old) == 0 {
		item, err := s.getItem(ctx, requestKey(key))
		if err != nil {
			return 0, nil, err
		}
		old = item
	}
	rec, txid, err := s.liveRecord(ctx, old, now)
	if err != nil {
		return 0, nil, err
	}
	if rec == nil {
		return recordFree, nil, nil
	}
	for _, id := range txids {
		if id != "" && id == txid {
			return recordOurs, rec, nil
		}
	}
	return recordTaken, rec, nil
}

// recordCondition admits a write when no unexpired record holds its key.
// expires_ns is the exact expiry (expires_at, the TTL attribute, is rounded
// to seconds).
func recordCondition(now time.Time) (string, map[string]string, map[string]types.AttributeValue) {
	return "attribute_not_exists(#pk) OR #exp <= :now",
		map[string]string{"#pk": attrPK, "#exp": attrExpiresNS},
		map[string]types.AttributeValue{":now": num(now.UnixNano())}
}
