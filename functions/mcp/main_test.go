package main

import (
	"io"
	"os"
	"testing"
)

// TestMain keeps the in-process Lambda tests' EMF lines (on by default in
// Lambda) out of the test output; the tests that check EMF write it to
// their own buffers.
func TestMain(m *testing.M) {
	lambdaStdout = io.Discard
	os.Exit(m.Run())
}
