package lambdatest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/aws/aws-lambda-go/events"
)

// StreamRecords reads every record of a table's stream from a moto
// endpoint (DynamoDB Streams' JSON API: the records as Lambda's stream
// poller delivers them), every shard from its start, shard by shard.
func StreamRecords(ctx context.Context, endpoint, streamARN string) ([]events.DynamoDBEventRecord, error) {
	call := func(target string, in, out any) error {
		body, _ := json.Marshal(in)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("X-Amz-Target", "DynamoDBStreams_20120810."+target)
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: HTTP %d %s", target, resp.StatusCode, raw)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s: %w", target, err)
		}
		return nil
	}
	var desc struct {
		StreamDescription struct{ Shards []struct{ ShardId string } }
	}
	if err := call("DescribeStream", map[string]string{"StreamArn": streamARN}, &desc); err != nil {
		return nil, err
	}
	var all []events.DynamoDBEventRecord
	for _, sh := range desc.StreamDescription.Shards {
		var it struct{ ShardIterator *string }
		if err := call("GetShardIterator", map[string]string{"StreamArn": streamARN, "ShardId": sh.ShardId, "ShardIteratorType": "TRIM_HORIZON"}, &it); err != nil {
			return nil, err
		}
		for it.ShardIterator != nil {
			var page struct {
				Records           []events.DynamoDBEventRecord
				NextShardIterator *string
			}
			if err := call("GetRecords", map[string]string{"ShardIterator": *it.ShardIterator}, &page); err != nil {
				return nil, err
			}
			if len(page.Records) == 0 {
				break
			}
			all = append(all, page.Records...)
			it.ShardIterator = page.NextShardIterator
		}
	}
	return all, nil
}
