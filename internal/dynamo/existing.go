package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// recordVerdict is what a request record found under a write's key means
// for that write. This file is the one place that decides it, for every
// write that puts a record (creates, saves, claims).
type recordVerdict int

const (
	// recordTaken: an unexpired record of an earlier call holds the key.
	recordTaken recordVerdict = iota
	// recordOurs: the record is the one this call wrote in an earlier
	// attempt whose answer was lost; the write is done.
	recordOurs
	// recordFree: no record, an expired one, or (for a claim) one whose
	// lease ran out: the key may be written; try again.
	recordFree
)

// writeAttempts is the call that asks whose record holds its key: the txids
// of all its attempts so far (any of them may be the one whose answer was
// lost), and for a claim its owner token (a claim may take over an expired
// lease).
type writeAttempts struct {
	txids []string
	owner string
	claim bool
}

// judgeRecord decides what held (nil: none, or expired) means for w.
func judgeRecord(held *ledger.Record, heldTxID string, now time.Time, w writeAttempts) recordVerdict {
	if held == nil {
		return recordFree
	}
	for _, id := range w.txids {
		if id != "" && id == heldTxID {
			return recordOurs
		}
	}
	if w.claim {
		switch {
		case held.Status == ledger.StatusRunning && w.owner != "" && held.Owner == w.owner:
			return recordOurs // our own claim, whose answer was lost
		case held.LeaseExpired(now):
			return recordFree
		}
	}
	return recordTaken
}

// existingRecord resolves a failed condition on a write's request record:
// from the old item the cancellation carried (ALL_OLD), or, when the
// endpoint sent none, from a consistent read.
func (s *Store) existingRecord(ctx context.Context, key ledger.Key, old map[string]types.AttributeValue, now time.Time, w writeAttempts) (recordVerdict, *ledger.Record, error) {
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
	return judgeRecord(rec, txid, now, w), rec, nil
}

// recordCondition admits a write when no unexpired record holds its key.
// expires_ns is the exact expiry (expires_at, the TTL attribute, is rounded
// to seconds).
func recordCondition(now time.Time) (string, map[string]string, map[string]types.AttributeValue) {
	return "attribute_not_exists(#pk) OR #exp <= :now",
		map[string]string{"#pk": attrPK, "#exp": attrExpiresNS},
		map[string]types.AttributeValue{":now": num(now.UnixNano())}
}

// claimCondition admits a claim when no unexpired record holds the key or
// the one that does is running under an expired lease.
func claimCondition(now time.Time) (string, map[string]string, map[string]types.AttributeValue) {
	cond, names, values := recordCondition(now)
	names["#st"], names["#lease"] = attrReqStatus, attrLeaseNS
	values[":running"] = str(string(ledger.StatusRunning))
	return cond + " OR (#st = :running AND #lease <= :now)", names, values
}
