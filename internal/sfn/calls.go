package sfn

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Client makes the two Step Functions calls the runner needs,
// StartExecution and StopExecution, as the service's JSON protocol
// (awsJson1_0) over HTTPS, signed with the SDK's SigV4 signer and retried by
// the SDK's standard retryer. The generated client (service/sfn) would do
// the same, but it brings every one of the service's forty-odd operations
// into the binary: a program that executes templates (the web board) keeps
// every exported method of a type it reaches, and its serializers with it,
// some 1.4 MB of the Lambda bootstrap for two small JSON requests.
type Client struct {
	endpoint string // https://states.<region>.amazonaws.com, or a local server
	region   string
	creds    aws.CredentialsProvider
	signer   *v4.Signer
	http     interface {
		Do(*http.Request) (*http.Response, error)
	}
	retryer *retry.Standard
	now     func() time.Time
}

// newClient calls Step Functions in region, or at endpoint when it is set
// (a local server such as moto). retryOpts adjust the standard retryer
// (tests shorten its waits).
func newClient(region, endpoint string, creds aws.CredentialsProvider, retryOpts ...func(*retry.StandardOptions)) *Client {
	if endpoint == "" {
		endpoint = regionalEndpoint(region)
	}
	return &Client{
		endpoint: strings.TrimSuffix(endpoint, "/"),
		region:   region,
		creds:    creds,
		signer:   v4.NewSigner(),
		http:     awshttp.NewBuildableClient(),
		retryer:  retry.NewStandard(retryOpts...),
		now:      time.Now,
	}
}

// regionalEndpoint is the service's public endpoint in region: the China
// regions are under amazonaws.com.cn, every other commercial and GovCloud
// region under amazonaws.com.
func regionalEndpoint(region string) string {
	if strings.HasPrefix(region, "cn-") {
		return "https://states." + region + ".amazonaws.com.cn"
	}
	return "https://states." + region + ".amazonaws.com"
}

// StartExecutionInput is StartExecution's request.
type StartExecutionInput struct {
	StateMachineArn string `json:"stateMachineArn"`
	Name            string `json:"name,omitempty"`
	Input           string `json:"input,omitempty"`
}

// StopExecutionInput is StopExecution's request.
type StopExecutionInput struct {
	ExecutionArn string `json:"executionArn"`
	Error        string `json:"error,omitempty"`
	Cause        string `json:"cause,omitempty"`
}

// StartExecution starts an execution. The answer's fields (the execution's
// ARN and start date) are not read: the runner derives the ARN from the name.
func (c *Client) StartExecution(ctx context.Context, in StartExecutionInput) error {
	return c.call(ctx, "StartExecution", in)
}

// StopExecution stops an execution.
func (c *Client) StopExecution(ctx context.Context, in StopExecutionInput) error {
	return c.call(ctx, "StopExecution", in)
}

// call sends one operation, retrying as the generated client's retry
// middleware does: attempts up to the retryer's maximum, each retry paid for
// from the retryer's quota (a successful first attempt adds to it, a
// successful retry refunds its cost) and preceded by its jittered backoff.
// Both operations are safe to repeat: a start with the same name and input
// answers the existing execution, and stopping twice stops once.
func (c *Client) call(ctx context.Context, operation string, in any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	releaseRetry := func(error) error { return nil }
	for attempt := 1; ; attempt++ {
		err = c.send(ctx, operation, body)
		if attempt == 1 {
			if release, tokenErr := c.retryer.GetAttemptToken(ctx); tokenErr == nil {
				release(err)
			}
		}
		releaseRetry(err)
		if err == nil {
			return nil
		}
		if attempt >= c.retryer.MaxAttempts() || !c.retryer.IsErrorRetryable(err) {
			return err
		}
		release, quotaErr := c.retryer.GetRetryToken(ctx, err)
		if quotaErr != nil {
			return fmt.Errorf("%w (not retried: %v)", err, quotaErr)
		}
		releaseRetry = release
		delay, delayErr := c.retryer.RetryDelay(attempt, err)
		if delayErr != nil {
			return err
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return fmt.Errorf("%w (retry abandoned: %w)", err, ctx.Err())
		case <-timer.C:
		}
	}
}

// send makes one attempt. Its errors have the types the generated client's
// have, so the retryer classifies them the same way: a request that never
// got an answer is a *smithyhttp.RequestSendError (a connection error), and
// a refusal an *awshttp.ResponseError carrying the HTTP status and a
// smithy.APIError whose code is the service's error name.
func (c *Client) send(ctx context.Context, operation string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint+"/", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "AWSStepFunctions."+operation)
	creds, err := c.creds.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("sfn: retrieving AWS credentials: %w", err)
	}
	sum := sha256.Sum256(body)
	if err := c.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "states", c.region, c.now()); err != nil {
		return fmt.Errorf("sfn: signing %s: %w", operation, err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return &smithyhttp.RequestSendError{Err: err}
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return &smithyhttp.RequestSendError{Err: err}
	}
	if resp.StatusCode/100 == 2 {
		return nil
	}
	return &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: resp}, Err: apiError(resp, answer)},
		RequestID:     resp.Header.Get("X-Amzn-Requestid"),
	}
}
