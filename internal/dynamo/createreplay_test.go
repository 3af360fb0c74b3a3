package dynamo

import (
	"fmt"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// answeredRequests keeps the last maxAnswered keys: the oldest is
// forgotten first, a key added again does not take a second place.
func TestAnsweredRequestsForgetsTheOldestFirst(t *testing.T) {
	var a answeredRequests
	key := func(i int) ledger.Key { return ledger.Key{Principal: "ai:x", RequestID: fmt.Sprintf("r%d", i)} }
	for i := range maxAnswered {
		a.add(key(i))
	}
	a.add(key(0)) // already there: nothing moves
	if !a.has(key(0)) || !a.has(key(maxAnswered-1)) || a.has(key(maxAnswered)) {
		t.Fatal("the first maxAnswered keys are not all kept")
	}
	a.add(key(maxAnswered))
	a.add(key(maxAnswered + 1))
	if a.has(key(0)) || a.has(key(1)) || !a.has(key(2)) || !a.has(key(maxAnswered+1)) {
		t.Error("past the bound, the two oldest keys should be forgotten and the rest kept")
	}
	if len(a.keys) != maxAnswered {
		t.Errorf("%d keys kept, want %d", len(a.keys), maxAnswered)
	}
}
