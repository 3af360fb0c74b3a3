// Package operations is the one list of what callers can ask of the board
// over MCP and REST: each use case of internal/board declared once, with
// its name, what it says to a model (the MCP tool's description and
// annotations) and to a script (the REST route, its summary and
// description), and its input and output types. internal/mcpserver
// registers a tool for every operation that has one, and internal/rest
// serves a route for every operation that has one, so a new use case is
// declared here and nowhere else, and the two surfaces cannot drift.
//
// It also holds the rules both surfaces apply to arguments the same way:
// the hint for a field the server decides (ArgumentHint).
package operations
