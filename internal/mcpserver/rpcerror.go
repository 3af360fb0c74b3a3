package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Resources and prompts have no tool result to carry an error in: a
// refusal is a JSON-RPC error whose message is the domain's, which says
// what to do next. What the caller got wrong (a bad id, an absent or hidden
// workspace or ticket) is -32602, invalid params, as the specification has
// it for an unknown resource; a failure of ours is -32603 with the error id
// the operator finds in the log.

// rpcError turns a use case's error into a JSON-RPC error. uri, when set,
// goes into the error's data as the specification's resource-not-found
// error carries it.
func rpcError(err error, uri string) error {
	code := int64(jsonrpc.CodeInvalidParams)
	if board.ErrorCode(err) == board.CodeInternal {
		code = jsonrpc.CodeInternalError
	}
	data := map[string]string{"code": string(board.ErrorCode(err))}
	if board.ErrorCode(err) == board.CodeNotFound && uri != "" {
		code = mcp.CodeResourceNotFound
		data["uri"] = uri
	}
	raw, _ := json.Marshal(data)
	return &jsonrpc.Error{Code: code, Message: err.Error(), Data: raw}
}

// invalidParams is a refusal of the arguments themselves.
func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}
