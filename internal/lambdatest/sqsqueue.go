package lambdatest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// FIFOQueue is an SQS FIFO queue on a moto endpoint, and the part of
// Lambda's SQS event source a test plays: receiving a batch as the event
// a function is handed, and deleting what the function did not report.
type FIFOQueue struct {
	URL    string
	Client *sqs.Client
}

// NewFIFOQueue creates a FIFO queue of its own (a random name, no
// content-based deduplication: the sender names each message) on endpoint,
// with the visibility timeout given.
func NewFIFOQueue(ctx context.Context, endpoint string, visibility time.Duration) (*FIFOQueue, error) {
	client := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("hooks-" + hex.EncodeToString(b) + ".fifo"),
		Attributes: map[string]string{"FifoQueue": "true", "VisibilityTimeout": strconv.Itoa(int(visibility / time.Second))}})
	if err != nil {
		return nil, err
	}
	return &FIFOQueue{URL: aws.ToString(out.QueueUrl), Client: client}, nil
}

// Receive takes up to max visible messages (no wait) as the event Lambda
// hands a function: each record with its receipt handle and the
// attributes Lambda passes (MessageGroupId, ApproximateReceiveCount, …).
func (q *FIFOQueue) Receive(ctx context.Context, max int) (events.SQSEvent, error) {
	out, err := q.Client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.URL), MaxNumberOfMessages: int32(max),
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
	if err != nil {
		return events.SQSEvent{}, err
	}
	var ev events.SQSEvent
	for _, m := range out.Messages {
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle),
			Body: aws.ToString(m.Body), Attributes: m.Attributes, EventSource: "aws:sqs", AWSRegion: "us-east-1"})
	}
	return ev, nil
}

// Settle does what Lambda does with a function's answer: it deletes every
// message of the batch the answer does not report as failed.
func (q *FIFOQueue) Settle(ctx context.Context, ev events.SQSEvent, resp events.SQSEventResponse) error {
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	for _, m := range ev.Records {
		if failed[m.MessageId] {
			continue
		}
		if _, err := q.Client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(q.URL), ReceiptHandle: aws.String(m.ReceiptHandle)}); err != nil {
			return err
		}
	}
	return nil
}
