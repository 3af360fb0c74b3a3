package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// api is the part of the DynamoDB client the store calls, held as method
// values rather than as the *dynamodb.Client itself. It keeps the binary
// small: a program that executes text/template (the web board's
// html/template) makes the linker keep every exported method of every type
// reflection could reach, and a *dynamodb.Client in a field of Store (which
// is reachable, as a board.Store) would keep all of its sixty-odd operations
// with their serializers: 1.1 MB of the Lambda bootstrap. Method values
// capture the client without exposing its type to reflection. A new
// operation the store needs gets a field here.
type api struct {
	BatchGetItem       func(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	BatchWriteItem     func(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	DeleteItem         func(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	GetItem            func(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem            func(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	Query              func(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	TransactWriteItems func(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	UpdateItem         func(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	// Scan is only for exporting a board (boardscan.go); the Lambda build
	// leaves it nil.
	Scan func(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

func apiOf(c *dynamodb.Client) api {
	return api{
		BatchGetItem:       c.BatchGetItem,
		BatchWriteItem:     c.BatchWriteItem,
		DeleteItem:         c.DeleteItem,
		GetItem:            c.GetItem,
		PutItem:            c.PutItem,
		Query:              c.Query,
		TransactWriteItems: c.TransactWriteItems,
		UpdateItem:         c.UpdateItem,
		Scan:               scanOf(c),
	}
}
