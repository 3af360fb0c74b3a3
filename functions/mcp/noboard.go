//go:build noboard

package main

import "net/http"

// mountBoard, in the agents' build (-tags noboard), leaves the board out:
// internal/web's html/template makes the linker keep every exported method
// of every type converted to an interface, and with goldmark and the
// templates that is 3.5 MB of the bootstrap and part of its start
// (docs/decisions.md, "Two builds of one server on Lambda"). API Gateway
// sends the board's paths to the other function; one arriving here is not
// found.
func mountBoard(mux *routeMux, _ boardDeps) {
	mux.Handle(boardPattern, http.NotFoundHandler())
}
