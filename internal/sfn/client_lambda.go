//go:build lambda

package sfn

import (
	"context"
	"errors"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// NewClient, in the Lambda build, takes region and credentials from the
// environment Lambda sets for the function's role (as internal/dynamo does).
func NewClient(_ context.Context, endpoint string) (*Client, error) {
	region := os.Getenv("AWS_REGION")
	if region == "" && endpoint != "" {
		region = "us-east-1"
	}
	if region == "" {
		return nil, errors.New("sfn: AWS_REGION is not set")
	}
	var creds aws.CredentialsProvider
	switch key := os.Getenv("AWS_ACCESS_KEY_ID"); {
	case key != "":
		creds = credentials.NewStaticCredentialsProvider(key, os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN"))
	case endpoint != "":
		creds = credentials.NewStaticCredentialsProvider("local", "local", "")
	default:
		return nil, errors.New("sfn: no AWS credentials in the environment")
	}
	return newClient(region, endpoint, creds), nil
}
