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
// is the round-trip figure the budgets in docs/dynamodb.md are about.
//
//	var c dynamo.RequestCounter
//	client, _ := dynamo.NewClient(ctx, dynamo.ClientConfig{Options: []func(*dynamodb.Options){c.Register}})
type RequestCounter struct {
	mu  sync.Mutex
	ops map[string]int
}

// Register adds the counter to a client's options.
func (c *RequestCounter) Register(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("ticketLedgerRequestCounter",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				c.add(middleware.GetOperationName(ctx))
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
	})
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
