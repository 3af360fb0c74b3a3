// Package mcpserver adapts board.Service to the Model Context Protocol: the
// tools (made from internal/operations' one list, with typed inputs and
// outputs and annotations), the resources and prompts, server
// instructions, the tasks extension for long imports, answers held to the
// size budget, and the stateless streamable HTTP handler at /mcp with its
// JSON-RPC envelope checks. Domain errors become tool errors (isError)
// carrying the domain's message.
package mcpserver
