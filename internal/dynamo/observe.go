package dynamo

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
)

// ObserveRequests (a client option; NewClient installs it) counts, in the record of the request a call serves
// (internal/obs), every request the client sends to DynamoDB — each
// attempt, so the SDK's retries count too — and the throttles and
// transaction conflicts among their answers. Outside a request (the
// worker, the admin commands) it notes nothing.
func ObserveRequests(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		// After the retry middleware: once per attempt.
		return st.Finalize.Add(middleware.FinalizeMiddlewareFunc("ObserveStoreRequests",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				obs.CountStoreRequest(ctx)
				out, md, err := next.HandleFinalize(ctx, in)
				switch {
				case err == nil:
				case isThrottle(err):
					obs.CountStoreThrottle(ctx)
				case isConflict(err):
					obs.CountStoreConflict(ctx)
				}
				return out, md, err
			}), middleware.After)
	})
}

// isThrottle: DynamoDB refused the request for capacity.
func isThrottle(err error) bool {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return false
	}
	switch api.ErrorCode() {
	case "ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded":
		return true
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for _, r := range tce.CancellationReasons {
			if r.Code != nil && (*r.Code == "ThrottlingError" || *r.Code == "ProvisionedThroughputExceeded") {
				return true
			}
		}
	}
	return false
}

// isConflict: a transaction met another on the same item (the SDK retries
// it; see NewRetryer).
func isConflict(err error) bool {
	var tcx *types.TransactionConflictException
	if errors.As(err, &tcx) {
		return true
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for _, r := range tce.CancellationReasons {
			if r.Code != nil && *r.Code == "TransactionConflict" {
				return true
			}
		}
	}
	return false
}
