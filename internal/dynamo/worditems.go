package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The word index: one keys-only item per (word, ticket), in the table
// itself, so a search reads it strongly consistently.
//
//	pk = S#<workspace>#<the word's first two runes>
//	sk = <word>#<tier><inverted number, 19 digits>
//
// tier is 0 when the word is in the ticket's title, 1 when it is only in
// its tags or body (board.IndexWords), and the inverted number is
// 9999999999999999999 − number. So within one word the items run title
// first, newest first (begins_with(sk, "<word>#")); a prefix is
// begins_with(sk, "<prefix>") in its first two runes' partition. '#' sorts
// below every rune of a word (words are letters, digits and marks), so
// "go#…" never mixes with "golang#…".
const (
	pkWordPrefix = "S#"
	wordSep      = "#"
	wordEnd      = "$" // sorts right after wordSep: the end of one word's items
	invertBase   = uint64(9_999_999_999_999_999_999)
	partRunes    = 2
)

// wordEntry is one index item of a ticket: a word and its tier.
type wordEntry struct {
	word string
	tier int
}

// wordPartition is the partition key of a word's (or a prefix's) items.
func wordPartition(workspace, word string) string {
	r := []rune(word)
	return pkWordPrefix + workspace + "#" + string(r[:min(len(r), partRunes)])
}

func invertedNumber(n int64) string { return fmt.Sprintf("%019d", invertBase-uint64(n)) }

func wordKey(workspace string, number int64, e wordEntry) map[string]types.AttributeValue {
	return key(wordPartition(workspace, e.word), e.word+wordSep+strconv.Itoa(e.tier)+invertedNumber(number))
}

// parseWordSK reads a word item's sort key back.
func parseWordSK(sk string) (word string, tier int, number int64, err error) {
	i := strings.LastIndex(sk, wordSep)
	rest := sk[i+1:]
	if i < 1 || len(rest) != 20 || (rest[0] != '0' && rest[0] != '1') {
		return "", 0, 0, fmt.Errorf("dynamo: word index item %q is malformed", sk)
	}
	inv, err := strconv.ParseUint(rest[1:], 10, 64)
	if err != nil || inv > invertBase {
		return "", 0, 0, fmt.Errorf("dynamo: word index item %q is malformed", sk)
	}
	return sk[:i], int(rest[0] - '0'), int64(invertBase - inv), nil
}

// ticketWordEntries are a ticket's index items, in the order they are
// written: title words, then tag words, then body words; tagged says how
// many come before the body's (those a write's transaction carries).
func ticketWordEntries(t *board.Ticket) (entries []wordEntry, tagged int) {
	if t == nil {
		return nil, 0
	}
	w := board.IndexWords(*t)
	for _, x := range w.Title {
		entries = append(entries, wordEntry{x, 0})
	}
	var tagWords []string
	for _, tag := range t.Tags {
		tagWords = append(tagWords, board.Words(tag)...)
	}
	var body []wordEntry
	for _, x := range w.Other {
		if slices.Contains(tagWords, x) {
			entries = append(entries, wordEntry{x, 1})
		} else {
			body = append(body, wordEntry{x, 1})
		}
	}
	return append(entries, body...), len(entries)
}

// wordChange is what a write does to a ticket's index items: the puts
// and deletes its own transaction carries (now), and the rest, written
// after the commit (later).
type wordChange struct {
	ticket     board.Ticket
	nowPut     []wordEntry
	nowClear   []wordEntry
	laterPut   []wordEntry
	laterClear []wordEntry
}

// diffWords compares a ticket's index items before and after a write;
// room is how many items the write's transaction has left. They fill it
// in this order: title and tag words (findable at once), then the
// deletion of words the ticket no longer has, then body words; what does
// not fit is for later.
func diffWords(before *board.Ticket, after board.Ticket, room int) wordChange {
	old, _ := ticketWordEntries(before)
	entries, tagged := ticketWordEntries(&after)
	had, has := entrySet(old), entrySet(entries)
	c := wordChange{ticket: after}
	var body []wordEntry
	for i, e := range entries {
		switch {
		case had[e]:
		case i >= tagged:
			body = append(body, e)
		case room > 0:
			c.nowPut, room = append(c.nowPut, e), room-1
		default:
			c.laterPut = append(c.laterPut, e)
		}
	}
	for _, e := range old {
		switch {
		case has[e]:
		case room > 0:
			c.nowClear, room = append(c.nowClear, e), room-1
		default:
			c.laterClear = append(c.laterClear, e)
		}
	}
	for _, e := range body {
		if room > 0 {
			c.nowPut, room = append(c.nowPut, e), room-1
		} else {
			c.laterPut = append(c.laterPut, e)
		}
	}
	return c
}

func entrySet(entries []wordEntry) map[wordEntry]bool {
	m := make(map[wordEntry]bool, len(entries))
	for _, e := range entries {
		m[e] = true
	}
	return m
}

// wordWrites are the transaction's items of c.
func (s *Store) wordWrites(c wordChange) []types.TransactWriteItem {
	var items []types.TransactWriteItem
	for _, e := range c.nowPut {
		items = append(items, s.put(wordKey(c.ticket.Workspace, c.ticket.Number, e), "", nil, nil, false))
	}
	for _, e := range c.nowClear {
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{
			TableName: aws.String(s.table), Key: wordKey(c.ticket.Workspace, c.ticket.Number, e)}})
	}
	return items
}

// maxTransactItems is TransactWriteItems' limit.
const maxTransactItems = 100

// attrWordsDone is, on a ticket's item, how many word changes the write
// that stored it carried in its own transaction. diffWords fills its room
// in a fixed order, so the stream consumer, given the same two tickets and
// this count, splits the change the same way and puts only the rest (each
// word item is put once; it deletes every removed word again, see
// IndexWordChange). Absent (imports, bulk loads, items
// written before it existed): 0, the consumer writes the whole change.
const attrWordsDone = "wd"

// withWords appends a write's word items to its transaction, as many as
// fit, records how many on the ticket's put (ticketAt), and says what is
// left for later.
func (s *Store) withWords(items []types.TransactWriteItem, ticketAt int, before *board.Ticket, after board.Ticket) ([]types.TransactWriteItem, wordChange) {
	c := diffWords(before, after, maxTransactItems-len(items))
	items[ticketAt].Put.Item[attrWordsDone] = num(int64(len(c.nowPut) + len(c.nowClear)))
	return append(items, s.wordWrites(c)...), c
}

// indexLater writes what a committed write left for later (what did not
// fit its transaction). With a stream
// consumer (Config.WordsByStream) that is the consumer's work and nothing
// happens here; otherwise it is done now, after the commit, and a failure
// is logged, not returned: the write itself stands, a missing body word
// only hides the ticket from that word's search until its next edit, and
// a stale item costs a read but never a wrong answer (every candidate is
// checked against its ticket).
func (s *Store) indexLater(ctx context.Context, changes ...wordChange) {
	pending := false
	for _, c := range changes {
		pending = pending || len(c.laterPut)+len(c.laterClear) > 0
	}
	if s.wordsByStream || !pending {
		return
	}
	if err := s.applyWords(ctx, changes...); err != nil {
		s.log.Warn("indexing words after a commit failed; the ticket may be missing from some searches until its next edit",
			"err", err)
	}
}

// batchWriteMax is BatchWriteItem's limit of requests per call.
const batchWriteMax = 25

// applyWords writes the later part of changes with BatchWriteItem.
func (s *Store) applyWords(ctx context.Context, changes ...wordChange) error {
	var reqs []types.WriteRequest
	for _, c := range changes {
		for _, e := range c.laterPut {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: wordKey(c.ticket.Workspace, c.ticket.Number, e)}})
		}
		for _, e := range c.laterClear {
			reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: wordKey(c.ticket.Workspace, c.ticket.Number, e)}})
		}
	}
	for start := 0; start < len(reqs); start += batchWriteMax {
		if err := s.batchWrite(ctx, reqs[start:min(start+batchWriteMax, len(reqs))]); err != nil {
			return err
		}
	}
	return nil
}

// batchWrite sends up to 25 write requests, sending again what DynamoDB
// leaves unprocessed, with backoff: the one loop of the store's batch
// writes (the word items a transaction left for later or a batch put
// leaves to them, a reindex).
func (s *Store) batchWrite(ctx context.Context, reqs []types.WriteRequest) error {
	for attempt := 0; len(reqs) > 0; attempt++ {
		if attempt >= maxAttempts {
			return errors.New("dynamo: BatchWriteItem kept leaving items unprocessed")
		}
		if attempt > 0 {
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
		}
		done, err := s.exclusiveWrite(ctx)
		if err != nil {
			return err
		}
		out, err := s.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{s.table: reqs}})
		done()
		if err != nil {
			return fmt.Errorf("dynamo: writing items in a batch: %w", err)
		}
		reqs = out.UnprocessedItems[s.table]
	}
	return nil
}

// IndexWordChange brings a ticket's word items from what before had to
// what after has, leaving out the puts among the first done changes
// (those the write's own transaction carried; attrWordsDone): the work of
// the stream consumer
// (functions/indexer), for each changed ticket of a stream batch. It is
// idempotent: a redelivered record puts and deletes the same items again.
// before is nil for a new ticket, after nil for a removed one.
func (s *Store) IndexWordChange(ctx context.Context, before, after *board.Ticket, done int) error {
	if after == nil {
		if before == nil {
			return nil
		}
		old, _ := ticketWordEntries(before)
		return s.applyWords(ctx, wordChange{ticket: *before, laterClear: old})
	}
	// Puts the transaction carried are left out; deletions never are: a
	// batch redelivered after a later edit's transaction re-puts the
	// earlier record's words, and only the later record's complete
	// deletions take them away again.
	c := diffWords(before, *after, done)
	c.laterClear = diffWords(before, *after, 0).laterClear
	return s.applyWords(ctx, c)
}

// indexImported indexes every word of the tickets an import chunk
// committed: the chunk's transaction has no room for them.
func (s *Store) indexImported(ctx context.Context, items []types.TransactWriteItem) {
	var changes []wordChange
	for _, t := range ticketsOfPuts(items) {
		changes = append(changes, diffWords(nil, t, 0))
	}
	s.indexLater(ctx, changes...)
}

// ticketsOfPuts are the tickets a transaction puts (an import chunk's).
func ticketsOfPuts(items []types.TransactWriteItem) []board.Ticket {
	var out []board.Ticket
	for _, it := range items {
		if it.Put == nil || getS(it.Put.Item, attrType) != typeTicket {
			continue
		}
		if t, err := decodeTicket(it.Put.Item); err == nil {
			out = append(out, t)
		}
	}
	return out
}

// queryWords is one Query of the word index, strongly consistent.
func (s *Store) queryWords(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	in.TableName, in.ConsistentRead = aws.String(s.table), aws.Bool(true)
	return s.query(ctx, in)
}
