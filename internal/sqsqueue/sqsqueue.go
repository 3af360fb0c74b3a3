// Package sqsqueue keeps the webhooks' queued deliveries (webhook.Delivery)
// on an SQS FIFO queue: the fan-out sends them, grouped per subscription
// and ticket (so each group goes out in order) and deduplicated per
// subscription and event (so a stream record handled twice queues its
// deliveries once); the sender, handed them by Lambda, sets how long a
// failed one waits before it is tried again.
package sqsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// MaxWait is the longest a failed message is kept invisible: SQS refuses
// a visibility timeout reaching more than 12 hours past the message's
// receive, and some of that has passed by the time the sender sets it. A
// longer retry step waits this long.
const MaxWait = 12*time.Hour - 10*time.Minute

// batchMax is how many messages one SendMessageBatch takes.
const batchMax = 10

// Queue is one FIFO queue.
type Queue struct {
	client *sqs.Client
	url    string
}

// Config names the queue and how to reach SQS.
type Config struct {
	// URL is the queue's URL (template.yaml passes it to the functions).
	URL string
	// Endpoint of an SQS-compatible server (moto); empty: AWS itself, as
	// the region says.
	Endpoint string
	// Region; empty: AWS_REGION (us-east-1 for an Endpoint without one).
	Region string
}

// New builds a client from the environment Lambda sets for the function's
// role (region and credentials), as the store's Lambda client does; a
// local endpoint without credentials signs with fixed dummy ones.
func New(cfg Config) (*Queue, error) {
	if cfg.URL == "" {
		return nil, errors.New("sqsqueue: no queue URL")
	}
	region := cfg.Region
	if region == "" {
		region = os.Getenv("AWS_REGION")
	}
	if region == "" && cfg.Endpoint != "" {
		region = "us-east-1"
	}
	if region == "" {
		return nil, errors.New("sqsqueue: AWS_REGION is not set (Lambda sets it)")
	}
	var creds aws.CredentialsProvider
	switch key := os.Getenv("AWS_ACCESS_KEY_ID"); {
	case key != "":
		creds = credentials.NewStaticCredentialsProvider(key, os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN"))
	case cfg.Endpoint != "":
		creds = credentials.NewStaticCredentialsProvider("local", "local", "")
	default:
		return nil, errors.New("sqsqueue: no AWS credentials in the environment (Lambda sets AWS_ACCESS_KEY_ID from the function's role)")
	}
	o := sqs.Options{Region: region, Credentials: creds}
	if cfg.Endpoint != "" {
		o.BaseEndpoint = aws.String(cfg.Endpoint)
	}
	return &Queue{client: sqs.New(o), url: cfg.URL}, nil
}

// Client is the SQS client, for tests that look at the queue.
func (q *Queue) Client() *sqs.Client { return q.client }

// URL is the queue's URL.
func (q *Queue) URL() string { return q.url }

// Enqueue sends the deliveries, ten a request; it returns an error unless
// SQS took every one (sending them all again is safe: deduplication).
func (q *Queue) Enqueue(ctx context.Context, ds []webhook.Delivery) error {
	for len(ds) > 0 {
		n := min(len(ds), batchMax)
		entries := make([]types.SendMessageBatchRequestEntry, 0, n)
		for i, d := range ds[:n] {
			body, err := json.Marshal(d)
			if err != nil {
				return err
			}
			entries = append(entries, types.SendMessageBatchRequestEntry{
				Id:                     aws.String(strconv.Itoa(i)),
				MessageBody:            aws.String(string(body)),
				MessageGroupId:         aws.String(d.Group()),
				MessageDeduplicationId: aws.String(d.Dedup()),
			})
		}
		out, err := q.client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.url), Entries: entries})
		if err != nil {
			return fmt.Errorf("sqsqueue: sending %d deliveries: %w", n, err)
		}
		if len(out.Failed) > 0 {
			var why []string
			for _, f := range out.Failed {
				why = append(why, aws.ToString(f.Code)+": "+aws.ToString(f.Message))
			}
			return fmt.Errorf("sqsqueue: SQS refused %d of %d deliveries (%s)", len(out.Failed), n, strings.Join(why, "; "))
		}
		ds = ds[n:]
	}
	return nil
}

// Decode reads a message's body.
func Decode(body string) (webhook.Delivery, error) {
	var d webhook.Delivery
	if err := json.Unmarshal([]byte(body), &d); err != nil || d.Subscription == "" || d.Event.ID == "" {
		return d, fmt.Errorf("sqsqueue: a message that is no delivery: %.200s", body)
	}
	return d, nil
}

// Wait keeps a received message (by its receipt handle) invisible for
// wait from now, at most MaxWait, in whole seconds: it is received again
// then, ahead of the rest of its group. A wait of 0 makes it visible at
// once.
func (q *Queue) Wait(ctx context.Context, receipt string, wait time.Duration) error {
	_, err := q.client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: aws.String(q.url), ReceiptHandle: aws.String(receipt), VisibilityTimeout: visibility(wait)})
	return err
}

// visibility is a wait as a visibility timeout: whole seconds, at least
// one for any wait (0 only for none), at most MaxWait.
func visibility(wait time.Duration) int32 {
	secs := int32(min(wait, MaxWait).Round(time.Second) / time.Second)
	if wait > 0 && secs == 0 {
		secs = 1
	}
	return secs
}
