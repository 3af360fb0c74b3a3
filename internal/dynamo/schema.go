package dynamo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// tableReadyTimeout bounds the wait for a new table and its indexes to
// become ACTIVE (DynamoDB takes seconds to minutes; local endpoints none).
const tableReadyTimeout = 5 * time.Minute

// CreateTableInput is the table's schema: the key, the seven indexes and
// on-demand billing. The SAM template declares the same (docs/dynamodb.md).
func CreateTableInput(table string) *dynamodb.CreateTableInput {
	gsiWith := func(name, pk, sk string, p *types.Projection) types.GlobalSecondaryIndex {
		return types.GlobalSecondaryIndex{
			IndexName: aws.String(name),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange},
			},
			Projection: p,
		}
	}
	gsi := func(name, pk, sk string) types.GlobalSecondaryIndex {
		// ALL: list filters (text, owner under a status) read attributes
		// other than the keys, and a filter sees only projected ones.
		return gsiWith(name, pk, sk, &types.Projection{ProjectionType: types.ProjectionTypeAll})
	}
	attr := func(name string, t types.ScalarAttributeType) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: t}
	}
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(attrPK), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(attrSK), KeyType: types.KeyTypeRange},
		},
		AttributeDefinitions: []types.AttributeDefinition{
			attr(attrPK, types.ScalarAttributeTypeS),
			attr(attrSK, types.ScalarAttributeTypeS),
			attr(attrWS, types.ScalarAttributeTypeS),
			attr(attrWSStatus, types.ScalarAttributeTypeS),
			attr(attrWSOwner, types.ScalarAttributeTypeS),
			attr(attrNumKey, types.ScalarAttributeTypeS),
			attr(attrEventWS, types.ScalarAttributeTypeS),
			attr(attrEventOrder, types.ScalarAttributeTypeS),
			attr(attrWSTag, types.ScalarAttributeTypeS),
			attr(attrDueWS, types.ScalarAttributeTypeS),
			attr(attrDueKey, types.ScalarAttributeTypeS),
			attr(attrClaimWS, types.ScalarAttributeTypeS),
			attr(attrClaimKey, types.ScalarAttributeTypeS),
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			gsi(indexTickets, attrWS, attrNumKey),
			gsi(indexByStatus, attrWSStatus, attrNumKey),
			gsi(indexByOwner, attrWSOwner, attrNumKey),
			gsi(indexEvents, attrEventWS, attrEventOrder),
			// Tag items carry no ticket: a tag listing reads the keys here,
			// then the tickets by key.
			gsiWith(indexByTag, attrWSTag, attrNumKey, &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}),
			// due_soon reads whole tickets from here, and nothing else.
			gsiWith(indexOpenDue, attrDueWS, attrDueKey, &types.Projection{ProjectionType: types.ProjectionTypeInclude,
				NonKeyAttributes: []string{attrDoc, zipped(attrDoc), attrNum}}),
			// claim_next reads whole tickets from here, and filters on
			// the claim, the owner and the tags.
			gsiWith(indexClaimable, attrClaimWS, attrClaimKey, &types.Projection{ProjectionType: types.ProjectionTypeInclude,
				NonKeyAttributes: []string{attrDoc, zipped(attrDoc), attrNum, attrClaimUntil, attrOwnerTk, attrTags}}),
		},
	}
}

// CreateTable creates the table, waits until it and its indexes are
// ACTIVE, and turns on TTL for expires_at. An endpoint without
// UpdateTimeToLive (minidyn) is tolerated: TTL only frees space, expiry is
// checked logically everywhere.
func CreateTable(ctx context.Context, client *dynamodb.Client, table string) error {
	return createTable(ctx, client, table, slog.Default())
}

func createTable(ctx context.Context, client *dynamodb.Client, table string, log *slog.Logger) error {
	_, err := client.CreateTable(ctx, CreateTableInput(table))
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) { // in use: another instance is creating it
		return fmt.Errorf("dynamo: creating table %s: %w", table, err)
	}
	if err := waitActive(ctx, client, table); err != nil {
		return err
	}
	enableTTL(ctx, client, table, log)
	return nil
}

// EnsureTable creates the table when it does not exist, and otherwise checks
// that it has the indexes this package queries.
func EnsureTable(ctx context.Context, client *dynamodb.Client, table string) error {
	return ensureTable(ctx, client, table, slog.Default())
}

func ensureTable(ctx context.Context, client *dynamodb.Client, table string, log *slog.Logger) error {
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	var missing *types.ResourceNotFoundException
	if errors.As(err, &missing) {
		return createTable(ctx, client, table, log)
	}
	if err != nil {
		return fmt.Errorf("dynamo: describing table %s: %w", table, err)
	}
	return checkSchema(out.Table, table)
}

func checkSchema(d *types.TableDescription, table string) error {
	var have []string
	for _, g := range d.GlobalSecondaryIndexes {
		have = append(have, aws.ToString(g.IndexName))
	}
	for _, want := range indexNames {
		if !slices.Contains(have, want) {
			return fmt.Errorf("dynamo: table %s exists but lacks index %q (has %v); it was not created by this version: create it with dynamo.CreateTable or the SAM template", table, want, have)
		}
	}
	return nil
}

// waitActive polls DescribeTable until the table and every index are
// ACTIVE, backing off up to two seconds, within tableReadyTimeout.
func waitActive(ctx context.Context, client *dynamodb.Client, table string) error {
	ctx, cancel := context.WithTimeout(ctx, tableReadyTimeout)
	defer cancel()
	delay := 50 * time.Millisecond
	for {
		out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err == nil && tableActive(out.Table) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dynamo: table %s did not become active: %w (last error: %v)", table, ctx.Err(), err)
		case <-time.After(delay):
		}
		delay = min(delay*2, 2*time.Second)
	}
}

func tableActive(d *types.TableDescription) bool {
	// Some local endpoints (minidyn) report no status: they create at once.
	if d == nil || (d.TableStatus != "" && d.TableStatus != types.TableStatusActive) {
		return false
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus != "" && g.IndexStatus != types.IndexStatusActive {
			return false
		}
	}
	return true
}

func enableTTL(ctx context.Context, client *dynamodb.Client, table string, log *slog.Logger) {
	_, err := client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(attrExpiresAt),
			Enabled:       aws.Bool(true),
		},
	})
	if err != nil {
		log.Warn("dynamo: TTL on expires_at not enabled; expired request records stay until deleted (they are ignored either way)",
			"table", table, "error", err)
	}
}
