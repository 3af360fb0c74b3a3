package dynamo_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	miniserver "github.com/truora/minidyn/server"
)

// fault is what the injector does to one request.
type fault int

const (
	// faultThrottle answers ThrottlingException without passing the request on.
	faultThrottle fault = iota
	// faultServerError has minidyn fail the request with its own failure
	// emulation (InternalServerError, HTTP 500): nothing is applied.
	faultServerError
	// faultLostResponse lets minidyn apply the request, then answers 500:
	// the write happened but the caller cannot know.
	faultLostResponse
	// faultTxConflict answers a TransactWriteItems with a
	// TransactionCanceledException whose reason is TransactionConflict.
	faultTxConflict
	// faultItemConflict answers a single-item write with
	// TransactionConflictException (it met a transaction on the item).
	faultItemConflict
)

// injector sits between the SDK and minidyn and applies faults to the next
// requests of an operation, as armed by the test.
type injector struct {
	mini  *miniserver.Server
	table string
	next  http.Handler

	mu      sync.Mutex
	pending map[string][]fault // operation -> faults for its next requests
	applied map[string]int     // operation -> faults applied so far
}

func newInjector(mini *miniserver.Server) *injector {
	return &injector{mini: mini, next: mini, pending: map[string][]fault{}, applied: map[string]int{}}
}

// arm queues faults for the next requests of op (e.g. "TransactWriteItems").
func (in *injector) arm(op string, faults ...fault) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.pending[op] = append(in.pending[op], faults...)
}

// disarm drops the faults not applied yet: the network heals.
func (in *injector) disarm() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.pending = map[string][]fault{}
}

// count reports how many faults were applied to op.
func (in *injector) count(op string) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.applied[op]
}

func (in *injector) take(op string) (fault, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	q := in.pending[op]
	if len(q) == 0 {
		return 0, false
	}
	in.pending[op] = q[1:]
	in.applied[op]++
	return q[0], true
}

func (in *injector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	target := r.Header.Get("X-Amz-Target")
	op := target[strings.LastIndex(target, ".")+1:]
	f, ok := in.take(op)
	if !ok {
		in.next.ServeHTTP(w, r)
		return
	}
	switch f {
	case faultThrottle:
		writeAPIError(w, http.StatusBadRequest, "ThrottlingException", "injected throttling", nil)
	case faultServerError:
		// minidyn's own emulation; the table scope is what the store uses.
		in.mini.EmulateFailureForTable(in.table, miniserver.FailureConditionInternalServerError)
		in.next.ServeHTTP(w, r)
		in.mini.EmulateFailureForTable(in.table, miniserver.FailureConditionNone)
	case faultLostResponse:
		rec := httptest.NewRecorder()
		in.next.ServeHTTP(rec, r)
		writeAPIError(w, http.StatusInternalServerError, "InternalServerError", "injected: applied, answer lost", nil)
	case faultTxConflict:
		body, _ := io.ReadAll(r.Body)
		var req struct{ TransactItems []json.RawMessage }
		_ = json.Unmarshal(body, &req)
		reasons := make([]map[string]string, len(req.TransactItems))
		for i := range reasons {
			reasons[i] = map[string]string{"Code": "None"}
		}
		if len(reasons) > 0 {
			reasons[len(reasons)-1] = map[string]string{"Code": "TransactionConflict", "Message": "injected conflict"}
		}
		writeAPIError(w, http.StatusBadRequest, "TransactionCanceledException",
			"Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]", reasons)
	case faultItemConflict:
		writeAPIError(w, http.StatusBadRequest, "TransactionConflictException", "injected: the item is part of a transaction in flight", nil)
	}
}

func writeAPIError(w http.ResponseWriter, status int, typ, msg string, reasons []map[string]string) {
	body := map[string]any{"__type": "com.amazonaws.dynamodb.v20120810#" + typ, "message": msg}
	if reasons != nil {
		body["CancellationReasons"] = reasons
	}
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(body)
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func (f fault) String() string {
	return [...]string{"throttle", "server error", "lost response", "transaction conflict", "item conflict"}[f]
}
