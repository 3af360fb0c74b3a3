package main

import (
	"net/http"
	"time"
)

// serverLimits bound what one client can hold of the local server: a
// client that trickles its headers or body, reads its answer slowly, or
// keeps an idle connection open is cut off, so a few hundred of them cannot
// take every file descriptor and stop the server accepting.
type serverLimits struct {
	ReadHeader time.Duration // to send the request line and headers
	Read       time.Duration // to send the whole request, body included
	Write      time.Duration // from the end of the headers to the end of the answer
	Idle       time.Duration // a keep-alive connection between requests
	// MaxHeaderBytes bounds the request line and headers (Go adds 4 KiB of
	// slack); more is answered 431.
	MaxHeaderBytes int
}

// defaultLimits: generous for any real client (a 1 MiB body at 35 KB/s; a
// tool call that waits out contention or DynamoDB's retries), short for
// one that holds a connection on purpose.
var defaultLimits = serverLimits{
	ReadHeader:     10 * time.Second,
	Read:           30 * time.Second,
	Write:          60 * time.Second,
	Idle:           60 * time.Second,
	MaxHeaderBytes: 64 << 10,
}

// newHTTPServer is the local server with its limits.
func newHTTPServer(h http.Handler, l serverLimits) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.ReadHeader,
		ReadTimeout:       l.Read,
		WriteTimeout:      l.Write,
		IdleTimeout:       l.Idle,
		MaxHeaderBytes:    l.MaxHeaderBytes,
	}
}
