package main

import "net/http"

// boardPattern is the web board's pattern: every path the other surfaces
// leave (board.go; not found in the agents' build, noboard.go).
const boardPattern = "/"

// routeMux is the server's ServeMux remembering its patterns, so that a
// test can hold the template's API Gateway routes to them: each of the
// agents' patterns routed to the agents' function, the board's to the
// board's.
type routeMux struct {
	*http.ServeMux
	patterns []string
}

// Handle registers the pattern on the ServeMux and remembers it.
func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.ServeMux.Handle(pattern, h)
	m.patterns = append(m.patterns, pattern)
}
