//go:build !lambda

package sfn

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// NewClient calls Step Functions with the region and credentials of the
// SDK's default chain; endpoint names a local server (moto) and then dummy
// credentials do.
func NewClient(ctx context.Context, endpoint string) (*Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("sfn: loading AWS configuration: %w", err)
	}
	if endpoint != "" {
		if cfg.Region == "" {
			cfg.Region = "us-east-1"
		}
		if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
			cfg.Credentials = credentials.NewStaticCredentialsProvider("local", "local", "")
		}
	}
	if cfg.Region == "" {
		return nil, fmt.Errorf("sfn: no AWS region configured (set AWS_REGION)")
	}
	if cfg.Credentials == nil {
		return nil, fmt.Errorf("sfn: no AWS credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)")
	}
	creds := cfg.Credentials
	if _, cached := creds.(*aws.CredentialsCache); !cached {
		// Refreshed before they expire, not fetched for every call.
		creds = aws.NewCredentialsCache(creds)
	}
	return newClient(cfg.Region, endpoint, creds), nil
}
