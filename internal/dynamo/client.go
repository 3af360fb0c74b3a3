//go:build !lambda

package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// NewClient builds a client from the SDK's default chain (environment,
// shared config, the Lambda role). For a local endpoint it needs no AWS
// account: when the chain has no credentials it signs with fixed dummy ones,
// which such servers accept, and it never asks EC2 instance metadata. The
// SDK retries with NewRetryer.
func NewClient(ctx context.Context, cc ClientConfig) (*dynamodb.Client, error) {
	var opts []func(*config.LoadOptions) error
	if cc.Region != "" {
		opts = append(opts, config.WithRegion(cc.Region))
	}
	if cc.Endpoint != "" {
		opts = append(opts, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("dynamo: loading AWS configuration: %w", err)
	}
	if cc.Endpoint != "" {
		if cfg.Region == "" {
			cfg.Region = "us-east-1"
		}
		if !hasCredentials(ctx, cfg) {
			cfg.Credentials = credentials.NewStaticCredentialsProvider("local", "local", "")
		}
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.Retryer = NewRetryer()
		ObserveRequests(o)
		if cc.Endpoint != "" {
			o.BaseEndpoint = aws.String(cc.Endpoint)
		}
		for _, fn := range cc.Options {
			fn(o)
		}
	}), nil
}

func hasCredentials(ctx context.Context, cfg aws.Config) bool {
	if cfg.Credentials == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := cfg.Credentials.Retrieve(ctx)
	return err == nil
}
