//go:build lambda

package dynamo

import (
	"context"
	"errors"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// NewClient, in the Lambda build (-tags lambda), takes region and
// credentials from the environment Lambda sets for the function's role
// (AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
// It leaves out the SDK's shared-config chain (profiles, SSO, STS), whose
// packages alone cost a cold start milliseconds and which a function never
// uses. A local endpoint without credentials gets fixed dummy ones, as in
// the default build.
func NewClient(_ context.Context, cc ClientConfig) (*dynamodb.Client, error) {
	region := firstSet(cc.Region, os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"))
	if region == "" && cc.Endpoint != "" {
		region = "us-east-1"
	}
	if region == "" {
		return nil, errors.New("dynamo: AWS_REGION is not set (Lambda sets it; elsewhere set it or use the default build)")
	}
	var creds aws.CredentialsProvider
	switch key := os.Getenv("AWS_ACCESS_KEY_ID"); {
	case key != "":
		creds = credentials.NewStaticCredentialsProvider(key, os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN"))
	case cc.Endpoint != "":
		creds = credentials.NewStaticCredentialsProvider("local", "local", "")
	default:
		return nil, errors.New("dynamo: no AWS credentials in the environment (Lambda sets AWS_ACCESS_KEY_ID from the function's role)")
	}
	o := dynamodb.Options{Region: region, Credentials: creds, Retryer: NewRetryer()}
	if cc.Endpoint != "" {
		o.BaseEndpoint = aws.String(cc.Endpoint)
	}
	ObserveRequests(&o)
	return dynamodb.New(o, cc.Options...), nil
}

func firstSet(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
