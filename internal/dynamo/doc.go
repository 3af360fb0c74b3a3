// Package dynamo implements the stores on Amazon DynamoDB (aws-sdk-go-v2),
// for the Lambda deployment: board.Store, and beside it the contracts
// internal/auth, internal/oauth and internal/boardfile own (people and
// tokens, the authorization server's records, moving a board).
//
// One table holds everything (single-table design, see docs/dynamodb.md):
// workspaces, tickets with their notes and events, and the request records
// of the exactly-once ledger. Every write is one TransactWriteItems that
// carries the request record with its stored result, so a retried call finds
// the first call's answer in the failed condition of its own transaction
// (ReturnValuesOnConditionCheckFailure ALL_OLD) without a second read.
package dynamo
