//go:build !lambda

package sfn

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
)

// NewClient builds a Step Functions client from the SDK's default chain;
// endpoint names a local server (moto) and then dummy credentials do.
func NewClient(ctx context.Context, endpoint string) (*sfn.Client, error) {
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
	return sfn.NewFromConfig(cfg, func(o *sfn.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	}), nil
}
