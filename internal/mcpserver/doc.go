// Package mcpserver adapts board.Service to the Model Context Protocol: the
// tool catalog with typed inputs and outputs, annotations, server
// instructions, and the stateless streamable HTTP handler at /mcp. Domain
// errors become tool errors (isError) carrying the domain's message.
package mcpserver
