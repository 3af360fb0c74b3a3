// Package dynamotest models what DynamoDB does to writes that meet on one
// item, for the tests and benchmarks of the DynamoDB store. Tests only:
// nothing outside a _test.go file or a benchmark command imports it.
//
// The emulators the tests run on (minidyn, moto) apply one transaction at
// a time, so two transactions on one item never conflict there; on
// DynamoDB they do. The Injector sits in front of such an endpoint, as the
// HTTP transport of every client of the process, and adds that rule.
package dynamotest

import (
	"bytes"
	"context"
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultHold is how long a transaction holds its items when Injector.Hold
// is zero: about what one takes on DynamoDB, end to end.
const DefaultHold = 10 * time.Millisecond

// Injector models DynamoDB's transaction conflicts in front of an endpoint
// that has none. One Injector stands for one table's service: every store
// instance of a test (each with its own client, as separate Lambda
// instances have) sends through the same one, so they share its lock table.
//
// The rule (DynamoDB's, for the operations the store uses):
//   - a TransactWriteItems holds every item it names (Put, Update, Delete and
//     ConditionCheck alike) from its arrival until Hold has passed and its
//     answer is back; its caller gets the answer no earlier;
//   - a transaction naming an item another transaction holds is cancelled:
//     TransactionCanceledException, with TransactionConflict in the entries
//     of the items held and None in the others, nothing applied;
//   - a single PutItem, UpdateItem or DeleteItem of an item a transaction
//     holds is refused with TransactionConflictException. Single-item writes
//     hold nothing: DynamoDB applies them one after another on their item,
//     and a transaction does not conflict with one.
//
// With Serialize set it also gives the endpoint one write at a time and
// no read during a write, as the store's SerializeWrites would (moto needs
// it). It must do so itself, with the hold outside that serialization: behind the
// store's process-wide lock no two transactions ever overlap, so none could
// ever conflict. Stores behind an Injector therefore run with
// SerializeWrites off. A transaction's hold starts when the
// endpoint lets it through (DynamoDB has no such queue) and lasts H from there.
//
// It also counts writes per partition key and second, of the table and of
// each index (learned from the CreateTable it forwards), so a benchmark can
// name the hot keys.
type Injector struct {
	// Hold is how long a transaction holds its items (0: DefaultHold).
	Hold time.Duration
	// Serialize: one write at a time on the endpoint (see above).
	Serialize bool

	serialized sync.RWMutex

	mu        sync.Mutex
	held      map[string]int // item → the transaction holding it
	nextTx    int
	schemas   map[string]tableSchema // table → key attributes
	conflicts map[string]int         // item kind → conflicts
	refused   int                    // requests refused for a conflict
	writes    map[writeKey]int       // (second, index, partition key) → writes
	total     map[string]int         // index + "\x00" + partition key → writes
}

type writeKey struct {
	second int64
	index  string // "" for the table
	pk     string
}

// tableSchema is what the injector needs of a table: its key attributes
// and each index's partition key attribute.
type tableSchema struct {
	hash, rng string
	indexes   map[string]string // index name → partition key attribute
}

// Transport returns a RoundTripper that applies the injector's rule in
// front of next (nil: http.DefaultTransport), for a client's HTTPClient.
func (in *Injector) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripper{in: in, next: next}
}

// HTTPClient is an *http.Client whose transport is in.Transport(nil).
func (in *Injector) HTTPClient() *http.Client {
	return &http.Client{Transport: in.Transport(nil)}
}

type roundTripper struct {
	in   *Injector
	next http.RoundTripper
}

func (rt roundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	target := r.Header.Get("X-Amz-Target")
	op := target[strings.LastIndex(target, ".")+1:]
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	in := rt.in
	switch op {
	case "CreateTable":
		in.learn(body)
		return in.forward(rt.next, r, true)
	case "TransactWriteItems":
		return in.transact(rt.next, r, body)
	case "PutItem", "UpdateItem", "DeleteItem":
		return in.single(rt.next, r, op, body)
	case "BatchWriteItem":
		in.countBatch(body)
		return in.forward(rt.next, r, true)
	default:
		return in.forward(rt.next, r, isWriteOp(op))
	}
}

// isWriteOp: operations that change the endpoint's tables, which Serialize
// sends alone.
func isWriteOp(op string) bool {
	switch op {
	case "GetItem", "BatchGetItem", "Query", "Scan", "DescribeTable", "ListTables", "DescribeTimeToLive", "TransactGetItems":
		return false
	}
	return true
}

// forward sends r on once the endpoint lets it through (serialize).
func (in *Injector) forward(next http.RoundTripper, r *http.Request, write bool) (*http.Response, error) {
	defer in.serialize(write)()
	return send(next, r)
}

// serialize waits until the endpoint lets the request through (with
// Serialize: one write alone, reads together) and returns its release.
func (in *Injector) serialize(write bool) func() {
	switch {
	case !in.Serialize:
		return func() {}
	case write:
		in.serialized.Lock()
		return in.serialized.Unlock
	default:
		in.serialized.RLock()
		return in.serialized.RUnlock
	}
}

// send sends r and reads the whole answer.
func send(next http.RoundTripper, r *http.Request) (*http.Response, error) {
	resp, err := next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	// Read the answer inside the serialization: the endpoint is done with the
	// request only once it has written all of it.
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

// itemWrite is what the rule reads of one item's write, alone or in a
// transaction: its table and key (or whole item), and an update's
// expression, for the index keys it sets.
type itemWrite struct {
	TableName                 string
	Key                       map[string]json.RawMessage
	Item                      map[string]json.RawMessage
	UpdateExpression          string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]json.RawMessage
}

// transact applies the rule to one TransactWriteItems.
func (in *Injector) transact(next http.RoundTripper, r *http.Request, body []byte) (*http.Response, error) {
	var req struct {
		TransactItems []map[string]itemWrite
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return in.forward(next, r, true) // the endpoint says what is wrong with it
	}
	// The transaction starts when the endpoint takes it: the queue of the
	// endpoint's serialization is the emulator's, which DynamoDB does not
	// have, and holding items while queued would make every hold as long as
	// the queue.
	release := in.serialize(true)
	start := time.Now()
	keys := make([]string, len(req.TransactItems))
	kinds := make([]string, len(req.TransactItems))
	var counted []countedWrite
	in.mu.Lock()
	for i, entry := range req.TransactItems {
		for action, it := range entry {
			sc := in.schemaLocked(it.TableName)
			k := it.Key
			if action == "Put" {
				k = it.Item
			}
			keys[i], kinds[i] = itemKey(it.TableName, sc, k), kindOf(sc, k)
			if action == "ConditionCheck" {
				continue // reads the item: it conflicts, but writes nothing
			}
			counted = append(counted, writesOf(sc, k, it.Item, it.UpdateExpression, it.ExpressionAttributeNames, it.ExpressionAttributeValues)...)
		}
	}
	var clash []bool
	for i, k := range keys {
		if _, ok := in.held[k]; ok && k != "" {
			if clash == nil {
				clash = make([]bool, len(keys))
			}
			clash[i] = true
			in.conflictsLocked()[kinds[i]]++
		}
	}
	if clash != nil {
		in.refused++
		in.mu.Unlock()
		release()
		return cancelled(r, clash), nil
	}
	in.nextTx++
	tx := in.nextTx
	if in.held == nil {
		in.held = map[string]int{}
	}
	for _, k := range keys {
		if k != "" {
			in.held[k] = tx
		}
	}
	in.countLocked(start, counted)
	in.mu.Unlock()

	defer func() {
		in.mu.Lock()
		for _, k := range keys {
			if in.held[k] == tx {
				delete(in.held, k)
			}
		}
		in.mu.Unlock()
	}()
	resp, err := send(next, r)
	release() // the hold goes on without the endpoint's serialization
	if err != nil {
		return nil, err
	}
	if err := waitUntil(r.Context(), start.Add(in.hold())); err != nil {
		_ = resp.Body.Close()
		return nil, err
	}
	return resp, nil
}

// single applies the rule to one PutItem, UpdateItem or DeleteItem.
func (in *Injector) single(next http.RoundTripper, r *http.Request, op string, body []byte) (*http.Response, error) {
	var req itemWrite
	if err := json.Unmarshal(body, &req); err != nil {
		return in.forward(next, r, true)
	}
	k := req.Key
	if op == "PutItem" {
		k = req.Item
	}
	in.mu.Lock()
	sc := in.schemaLocked(req.TableName)
	key := itemKey(req.TableName, sc, k)
	if _, ok := in.held[key]; ok && key != "" {
		in.conflictsLocked()[kindOf(sc, k)]++
		in.refused++
		in.mu.Unlock()
		return apiError(r, "TransactionConflictException", "Transaction is ongoing for the item", nil), nil
	}
	in.countLocked(time.Now(), writesOf(sc, k, req.Item, req.UpdateExpression, req.ExpressionAttributeNames, req.ExpressionAttributeValues))
	in.mu.Unlock()
	return in.forward(next, r, true)
}

// countBatch counts a BatchWriteItem's writes; its items are single-item
// writes that DynamoDB does not refuse for a transaction in flight (they
// come back unprocessed instead, which the emulators never do).
func (in *Injector) countBatch(body []byte) {
	var req struct {
		RequestItems map[string][]struct {
			PutRequest    *struct{ Item map[string]json.RawMessage }
			DeleteRequest *struct{ Key map[string]json.RawMessage }
		}
	}
	if json.Unmarshal(body, &req) != nil {
		return
	}
	now := time.Now()
	in.mu.Lock()
	defer in.mu.Unlock()
	for table, reqs := range req.RequestItems {
		sc := in.schemaLocked(table)
		for _, w := range reqs {
			switch {
			case w.PutRequest != nil:
				in.countLocked(now, writesOf(sc, w.PutRequest.Item, w.PutRequest.Item, "", nil, nil))
			case w.DeleteRequest != nil:
				in.countLocked(now, writesOf(sc, w.DeleteRequest.Key, nil, "", nil, nil))
			}
		}
	}
}

func (in *Injector) hold() time.Duration {
	if in.Hold > 0 {
		return in.Hold
	}
	return DefaultHold
}

func (in *Injector) conflictsLocked() map[string]int {
	if in.conflicts == nil {
		in.conflicts = map[string]int{}
	}
	return in.conflicts
}

// schemaLocked is what the injector knows of table: what its CreateTable
// said, else the key attributes pk and sk and no indexes.
func (in *Injector) schemaLocked(table string) tableSchema {
	if sc, ok := in.schemas[table]; ok {
		return sc
	}
	return tableSchema{hash: "pk", rng: "sk"}
}

// learn takes a table's key attributes and indexes from its CreateTable.
func (in *Injector) learn(body []byte) {
	type keyElem struct{ AttributeName, KeyType string }
	var req struct {
		TableName              string
		KeySchema              []keyElem
		GlobalSecondaryIndexes []struct {
			IndexName string
			KeySchema []keyElem
		}
	}
	if json.Unmarshal(body, &req) != nil || req.TableName == "" {
		return
	}
	sc := tableSchema{indexes: map[string]string{}}
	for _, k := range req.KeySchema {
		if k.KeyType == "HASH" {
			sc.hash = k.AttributeName
		} else {
			sc.rng = k.AttributeName
		}
	}
	for _, g := range req.GlobalSecondaryIndexes {
		for _, k := range g.KeySchema {
			if k.KeyType == "HASH" {
				sc.indexes[g.IndexName] = k.AttributeName
			}
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.schemas == nil {
		in.schemas = map[string]tableSchema{}
	}
	in.schemas[req.TableName] = sc
}

// itemKey names an item across the injector's tables; "" when the request
// does not name its key (the endpoint will refuse it).
func itemKey(table string, sc tableSchema, attrs map[string]json.RawMessage) string {
	h, ok := attrs[sc.hash]
	if !ok {
		return ""
	}
	k := table + "\x00" + string(h)
	if sc.rng != "" {
		k += "\x00" + string(attrs[sc.rng])
	}
	return k
}

// KindOf names an item's kind for the conflict counts: its partition key
// up to and including the first '#' ("T#", "R#"), or all of it ("WS").
func KindOf(pk string) string {
	if i := strings.IndexByte(pk, '#'); i >= 0 {
		return pk[:i+1]
	}
	return pk
}

func kindOf(sc tableSchema, attrs map[string]json.RawMessage) string {
	return KindOf(scalar(attrs[sc.hash]))
}

// scalar is the value of a string or number attribute ({"S":"x"}, {"N":"1"}).
func scalar(raw json.RawMessage) string {
	var v struct{ S, N string }
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	if v.S != "" {
		return v.S
	}
	return v.N
}

// countedWrite is one partition key a write lands on.
type countedWrite struct{ index, pk string }

// writesOf lists the partition keys one item write lands on: the table's,
// and each index's whose key the item carries (a Put) or the update sets
// with "#name = :value" (the store's form). An update that leaves an
// index's key as it was also rewrites the index item on DynamoDB when a
// projected attribute changes; that is not counted here.
func writesOf(sc tableSchema, key, item map[string]json.RawMessage, update string, names map[string]string, values map[string]json.RawMessage) []countedWrite {
	out := []countedWrite{{"", scalar(key[sc.hash])}}
	for index, attr := range sc.indexes {
		if v, ok := item[attr]; ok {
			out = append(out, countedWrite{index, scalar(v)})
		}
	}
	if update == "" {
		return out
	}
	for _, clause := range strings.Split(update, ",") {
		name, value, ok := strings.Cut(clause, "=")
		if !ok {
			continue
		}
		name = strings.TrimSpace(name)
		if f := strings.Fields(name); len(f) > 0 {
			name = f[len(f)-1] // "SET #a" → "#a"
		}
		if n, ok := names[name]; ok {
			name = n
		}
		for index, attr := range sc.indexes {
			if attr == name {
				if v, ok := values[strings.TrimSpace(value)]; ok {
					out = append(out, countedWrite{index, scalar(v)})
				}
			}
		}
	}
	return out
}

func (in *Injector) countLocked(at time.Time, ws []countedWrite) {
	if in.writes == nil {
		in.writes, in.total = map[writeKey]int{}, map[string]int{}
	}
	sec := at.Unix()
	for _, w := range ws {
		in.writes[writeKey{sec, w.index, w.pk}]++
		in.total[w.index+"\x00"+w.pk]++
	}
}

// waitUntil returns at t, or when ctx ends.
func waitUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cancelled is DynamoDB's answer to a transaction that met others: a
// reason per item, TransactionConflict where it met one.
func cancelled(r *http.Request, clash []bool) *http.Response {
	reasons := make([]map[string]string, len(clash))
	codes := make([]string, len(clash))
	for i, c := range clash {
		if c {
			reasons[i] = map[string]string{"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"}
			codes[i] = "TransactionConflict"
		} else {
			reasons[i] = map[string]string{"Code": "None"}
			codes[i] = "None"
		}
	}
	return apiError(r, "TransactionCanceledException",
		"Transaction cancelled, please refer cancellation reasons for specific reasons ["+strings.Join(codes, ", ")+"]", reasons)
}

// apiError is an error answer as DynamoDB sends it (JSON 1.0, HTTP 400,
// with the checksum header the SDK verifies).
func apiError(r *http.Request, typ, msg string, reasons []map[string]string) *http.Response {
	body := map[string]any{"__type": "com.amazonaws.dynamodb.v20120810#" + typ, "Message": msg}
	if reasons != nil {
		body["CancellationReasons"] = reasons
	}
	b, _ := json.Marshal(body)
	h := http.Header{}
	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(b)), 10))
	h.Set("Content-Length", strconv.Itoa(len(b)))
	return &http.Response{
		Status: "400 Bad Request", StatusCode: http.StatusBadRequest,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(b)), ContentLength: int64(len(b)), Request: r,
	}
}

// Stats is what the injector saw since it was made (or Reset).
type Stats struct {
	// Conflicts counts the items found held, by kind (KindOf).
	Conflicts map[string]int
	// Refused counts the requests refused for a conflict.
	Refused int
	// Busiest is the partition key (of the table or an index) with the
	// most writes in any one second, and that number.
	Busiest Hot
}

// Hot is one partition key's busiest second.
type Hot struct {
	Index     string // "" for the table
	Key       string
	PerSecond int
}

// Stats reports the counts.
func (in *Injector) Stats() Stats {
	in.mu.Lock()
	defer in.mu.Unlock()
	st := Stats{Conflicts: map[string]int{}, Refused: in.refused}
	for k, n := range in.conflicts {
		st.Conflicts[k] = n
	}
	var keys []writeKey
	for k := range in.writes {
		keys = append(keys, k)
	}
	// Ties go to the first in a fixed order, so a report is reproducible.
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.index != b.index {
			return a.index < b.index
		}
		if a.pk != b.pk {
			return a.pk < b.pk
		}
		return a.second < b.second
	})
	for _, k := range keys {
		if n := in.writes[k]; n > st.Busiest.PerSecond {
			st.Busiest = Hot{Index: k.index, Key: k.pk, PerSecond: n}
		}
	}
	return st
}

// Writes is how many writes landed on partition key pk of index (""
// for the table).
func (in *Injector) Writes(index, pk string) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.total[index+"\x00"+pk]
}

// PeakWrites is the most writes partition key pk of index ("" for the
// table) took in any one second.
func (in *Injector) PeakWrites(index, pk string) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	peak := 0
	for k, n := range in.writes {
		if k.index == index && k.pk == pk && n > peak {
			peak = n
		}
	}
	return peak
}

// Reset forgets the counts (not the items held, nor the tables learnt).
func (in *Injector) Reset() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.conflicts, in.refused, in.writes, in.total = nil, 0, nil, nil
}

// Held is how many items transactions hold now.
func (in *Injector) Held() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.held)
}
