//go:build lambda

package main

import (
	"errors"
	"log/slog"
)

// errLambdaOnly is what the Lambda build answers outside Lambda.
var errLambdaOnly = errors.New("this build (-tags lambda) runs only inside Lambda or its emulator (AWS_LAMBDA_RUNTIME_API is not set); " +
	"to serve locally, build without the tag: go build ./functions/mcp")

// run, in the Lambda build, refuses: a function never serves on a port of
// its own, and leaving the local server out (its HTTP server, HTTP/2 server
// and background task runner) keeps 0.6 MB out of the bootstrap.
func run(*slog.Logger) error { return errLambdaOnly }
