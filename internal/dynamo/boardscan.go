//go:build !lambda

package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// scanOf gives the store Scan, which only an export uses (the admin
// commands of the local build); the Lambda build leaves it out
// (boardscan_lambda.go), and with it Scan's serializers.
func scanOf(c *dynamodb.Client) func(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return c.Scan
}
