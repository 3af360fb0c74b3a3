package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ticket-ledger/ticket-ledger/internal/obs"
)

// noteMethods notes every JSON-RPC method the server receives in the
// request's record (internal/obs), for its log line and metrics. It is
// added last, so it is the outermost receiving middleware and sees the
// methods the tasks extension answers itself.
func noteMethods(s *mcp.Server) {
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			obs.SetMethod(ctx, method)
			return next(ctx, method, req)
		}
	})
}
