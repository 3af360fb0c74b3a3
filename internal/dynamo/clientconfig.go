package dynamo

import "github.com/aws/aws-sdk-go-v2/service/dynamodb"

// ClientConfig says how to reach DynamoDB.
type ClientConfig struct {
	// Endpoint of a DynamoDB-compatible server (moto, minidyn, DynamoDB
	// Local); empty: AWS itself, as the region says.
	Endpoint string
	// Region; empty: the SDK's default chain (AWS_REGION, profile, …), and
	// us-east-1 for an Endpoint when the chain names none.
	Region string
	// Options adjust the client further (tests add a request counter or a
	// faster retryer).
	Options []func(*dynamodb.Options)
}
