package dynamo

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// RequestCounter counts the requests a DynamoDB client sends, by operation.
// It sits after the SDK's retry middleware, so every attempt counts: this
// is the round-trip figure the budgets in docs/dynamodb.md are about. It also counts
// the items each answered operation read (a Query's ScannedCount: items
// read before its filter; the items a GetItem or BatchGetItem returned),
// which is what a read costs as the board grows.
//
//	var c dynamo.RequestCounter
//	client, _ := dynamo.NewClient(ctx, dynamo.ClientConfig{Options: []func(*dynamodb.Options){c.Register}})
type RequestCounter struct {
	mu    sync.Mutex
	ops   map[string]int
	items int
}

// Register adds the counter to a client's options.
func (c *RequestCounter) Register(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		if err := stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("ticketLedgerRequestCounter",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				c.add(middleware.GetOperationName(ctx))
				return next.HandleFinalize(ctx, in)
			}), middleware.After); err != nil {
			return err
		}
		// Once per operation, outside the retries: the answer that counts.
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("ticketLedgerItemCounter",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				if err == nil {
					c.addItems(itemsRead(out.Result))
				}
				return out, md, err
			}), middleware.After)
	})
}

// itemsRead is how many items an operation's answer says it read.
func itemsRead(result any) int {
	switch r := result.(type) {
	case *dynamodb.QueryOutput:
		// An endpoint that reports no ScannedCount (minidyn) read at
		// least what it returned.
		return int(max(r.ScannedCount, r.Count, int32(len(r.Items))))
	case *dynamodb.ScanOutput:
		return int(r.ScannedCount)
	case *dynamodb.GetItemOutput:
		if len(r.Item) > 0 {
			return 1
		}
	case *dynamodb.BatchGetItemOutput:
		n := 0
		for _, items := range r.Responses {
			n += len(items)
		}
		return n
	}
	return 0
}

func (c *RequestCounter) addItems(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items += n
}

// ItemsRead is the number of items read since the last Reset.
func (c *RequestCounter) ItemsRead() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.items
}

func (c *RequestCounter) add(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ops == nil {
		c.ops = map[string]int{}
	}
	c.ops[op]++
}

// Reset forgets what was counted.
func (c *RequestCounter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ops = nil
	c.items = 0
}

// Total is the number of requests since the last Reset.
func (c *RequestCounter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.ops {
		n += v
	}
	return n
}

// Ops lists the operations since the last Reset, e.g. "BatchGetItem, TransactWriteItems×2".
func (c *RequestCounter) Ops() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.ops))
	for op, n := range c.ops {
		if n > 1 {
			op += "×" + strconv.Itoa(n)
		}
		names = append(names, op)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
