// Command noop-lambda is the cold-start baseline for functions/mcp: a
// minimal go-sdk MCP server with one no-op tool and no store, served in
// Lambda the same way (stateless streamable HTTP with JSON responses, behind
// aws-lambda-go-api-proxy's API Gateway HTTP API adapter). `make
// bench-coldstart` runs both under the Lambda runtime emulator.
package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type args struct {
	RequestID string `json:"request_id,omitempty"`
}

func main() {
	quiet := slog.New(slog.DiscardHandler)
	s := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "0.0.1"}, &mcp.ServerOptions{Logger: quiet})
	mcp.AddTool(s, &mcp.Tool{Name: "noop", Description: "does nothing"},
		func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, args, error) {
			return nil, args{}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		Stateless: true, JSONResponse: true, DisableLocalhostProtection: true,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	lambda.Start(httpadapter.NewV2(mux).ProxyWithContext)
}
