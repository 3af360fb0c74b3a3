package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A workspace's ticket counts per status are spread over countShards
// items (shardKey), which the writes that change a count update with a
// blind ADD in their own transaction, and which a read sums (with the
// counts a workspace item kept before shards existed). No item is written
// by every write: each instance writes the shard of its slot, and the
// slots come from a sequence on the counter item (numbers.go). An
// instance takes one only when it holds no fresh free slot: on its first
// write, once every slotTTL, and for each write it runs beside another
// (riding on a block lease of numbers when one is due anyway, never
// because one is). So each instance active within a slotTTL took one or a
// few numbers of the sequence in it, and below countShards of them they
// hold distinct shards; a slot renewed with every block would let a busy
// fleet run the sequence round (32 instances leasing twice) and meet an
// older slot on its shard. Two writes meet on a shard only when they share
// it at the same moment, and then the store's commit retries (commit.go).
// Counts are exact whenever writes have stopped: every change is in the
// transaction that made it.
const (
	countShards = 64
	// slotTTL: a slot older than this is taken afresh before its next
	// write, so an instance that was idle while others took slots does
	// not keep a shard that a newer one holds. Each renewal is a write of
	// the counter item whatever the instance's rate, so it is long: an
	// old slot shares a shard with a newer one only after countShards
	// slots were taken meanwhile, and sharing costs a conflict now and
	// then (commit retries it), never a wrong count.
	slotTTL = 10 * time.Minute
)

// slot is one count-shard slot this instance holds for a workspace; one
// write at a time uses it, so concurrent writes of one instance use
// different shards too.
type slot struct {
	shard int
	at    time.Time
	busy  bool
}

// addSlot keeps a slot taken by a lease (sequence number seq) as the
// freshest free one: it replaces the oldest free slot.
func (w *wsLease) addSlot(seq int64, now time.Time) {
	sl := slot{shard: int(seq % countShards), at: now}
	oldest := -1
	for i, s := range w.slots {
		if !s.busy && (oldest < 0 || s.at.Before(w.slots[oldest].at)) {
			oldest = i
		}
	}
	if oldest >= 0 {
		w.slots[oldest] = sl
		return
	}
	w.slots = append(w.slots, sl)
}

// freshSlot is the index of a fresh free slot; -1 if none.
func (w *wsLease) freshSlot(now time.Time) int {
	for i, s := range w.slots {
		if !s.busy && now.Sub(s.at) < slotTTL {
			return i
		}
	}
	return -1
}

// freeSlot marks a fresh free slot busy and returns its index; -1 if none.
func (w *wsLease) freeSlot(now time.Time) int {
	i := w.freshSlot(now)
	if i >= 0 {
		w.slots[i].busy = true
	}
	return i
}

// hasFreeSlot reports whether a write could take a slot without a request.
func (s *Store) hasFreeSlot(slug string) bool {
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	w, ok := s.leases.ws[slug] // no entry is made for a slug only looked at
	return ok && w.freshSlot(time.Now()) >= 0
}

// takeSlot returns the count shard a write of slug adds to, and the
// function that gives it back once the write is done. Without a fresh free
// slot it takes one from the counter item: one UpdateItem.
func (s *Store) takeSlot(ctx context.Context, slug string) (int, func(), error) {
	for {
		s.leases.mu.Lock()
		w := s.leases.of(slug)
		if i := w.freeSlot(time.Now()); i >= 0 {
			shard := w.slots[i].shard
			s.leases.mu.Unlock()
			return shard, func() { s.releaseSlot(slug, shard) }, nil
		}
		s.leases.mu.Unlock()
		if err := s.leaseSlot(ctx, slug); err != nil {
			return 0, nil, err
		}
	}
}

func (s *Store) releaseSlot(slug string, shard int) {
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	w := s.leases.of(slug)
	for i := range w.slots {
		if w.slots[i].busy && w.slots[i].shard == shard {
			w.slots[i].busy = false
			return
		}
	}
}

// leaseSlot takes the next slot sequence number from the counter item.
func (s *Store) leaseSlot(ctx context.Context, slug string) error {
	out, err := s.addToCounter(ctx, slug, "ADD #slots :one", map[string]string{"#slots": attrSlots},
		map[string]types.AttributeValue{":one": num(1)})
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	if errors.Is(err, board.ErrNotFound) {
		delete(s.leases.ws, slug) // probing made-up slugs does not grow the map
	}
	if err != nil {
		return err
	}
	s.leases.of(slug).addSlot(getN(out, attrSlots), time.Now())
	return nil
}

// countAdd is the blind ADD of deltas (tickets per status) to one count
// shard of slug, for a write's transaction. It has no condition: a write
// that must find its workspace checks that elsewhere.
func (s *Store) countAdd(slug string, shard int, deltas map[board.Status]int64) types.TransactWriteItem {
	names := map[string]string{}
	values := map[string]types.AttributeValue{}
	var parts []string
	for i, st := range board.Statuses {
		if deltas[st] == 0 {
			continue
		}
		name, value := fmt.Sprintf("#c%d", i), fmt.Sprintf(":c%d", i)
		names[name], values[value] = countAttr(st), num(deltas[st])
		parts = append(parts, name+" "+value)
	}
	names["#type"], values[":type"] = attrType, str(typeCountShard)
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 aws.String(s.table),
		Key:                       shardKey(slug, shard),
		UpdateExpression:          aws.String("SET #type = :type ADD " + strings.Join(parts, ", ")),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}}
}

// moved is the count change of one ticket leaving from ("" for a new
// ticket) for to; nil when nothing changes.
func moved(from, to board.Status) map[board.Status]int64 {
	if from == to {
		return nil
	}
	d := map[board.Status]int64{to: 1}
	if from != "" {
		d[from] = -1
	}
	return d
}

// readWorkspace is one consistent Query of a workspace item with its count
// shards; ok is false when the workspace does not exist.
func (s *Store) readWorkspace(ctx context.Context, slug string) (workspaceState, bool, error) {
	items, err := s.queryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("#pk = :pk AND #sk BETWEEN :from AND :to"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pkWorkspaces), ":from": str(slug), ":to": str(slug + "#~")},
		ConsistentRead:            aws.Bool(true),
	}, 0)
	if err != nil {
		return workspaceState{}, false, err
	}
	ws := decodeWorkspaces(items)
	if len(ws) != 1 {
		return workspaceState{}, false, nil
	}
	return ws[0], true, nil
}

// decodeWorkspaces reads the items of the workspaces' partition in key
// order: each workspace item, then its count shards, whose counts it adds
// to the workspace's. Shards of a workspace with no item are skipped.
func decodeWorkspaces(items []map[string]types.AttributeValue) []workspaceState {
	var out []workspaceState
	for _, item := range items {
		sk := getS(item, attrSK)
		slug, _, isShard := strings.Cut(sk, skShardInfix)
		if !isShard {
			if getS(item, attrType) == typeWorkspace {
				out = append(out, decodeWorkspace(item))
			}
			continue
		}
		if len(out) == 0 || out[len(out)-1].Workspace.Slug != slug {
			continue
		}
		counts := out[len(out)-1].Workspace.Counts
		for _, st := range board.Statuses {
			if n := getN(item, countAttr(st)); n != 0 {
				counts[st] += int(n)
			}
		}
	}
	for _, w := range out {
		for st, n := range w.Workspace.Counts {
			if n == 0 {
				delete(w.Workspace.Counts, st)
			}
		}
	}
	return out
}
