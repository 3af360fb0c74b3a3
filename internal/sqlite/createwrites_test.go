package sqlite

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// walFrameSize is one WAL frame: its header and a page of the default size.
const walFrameSize = 24 + 4096

// BenchmarkCreateWrites creates tickets one at a time through the service,
// as a single agent does, on a board of a few thousand, and reports what
// each create costs the store: the process's CPU time (cpu-ns/op) and the
// pages its transaction wrote to the WAL (wal-frames/op: each is written
// and checksummed on COMMIT, and counts exactly, however busy the
// machine). The WAL is truncated between chunks of creates small enough
// that no automatic checkpoint runs inside one, so its size counts the
// frames.
func BenchmarkCreateWrites(b *testing.B) {
	s, svc := openSimilarBoard(b, 2000)
	ctx := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:similar", Source: board.SourceMCP})
	const chunk = 20
	var frames int64
	var cpu int64
	i := 0
	for b.Loop() {
		if i%chunk == 0 {
			b.StopTimer()
			frames += walFrames(b, s)
			if _, err := s.write.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		c0 := processCPU()
		if _, err := svc.CreateTicketFindingSimilar(ctx, board.CreateTicketInput{RequestID: fmt.Sprint("bench-", i), Workspace: "inbox",
			NewTicket: board.NewTicket{Title: fmt.Sprintf("benchmark ticket %d", i)}}); err != nil {
			b.Fatal(err)
		}
		cpu += int64(processCPU() - c0)
		i++
	}
	frames += walFrames(b, s)
	b.ReportMetric(float64(cpu)/float64(i), "cpu-ns/op")
	b.ReportMetric(float64(frames)/float64(i), "wal-frames/op")
}

// walFrames is the number of frames in the store's WAL file.
func walFrames(b *testing.B, s *Store) int64 {
	b.Helper()
	var seq int
	var name, file string
	if err := s.write.QueryRowContext(context.Background(), `PRAGMA database_list`).Scan(&seq, &name, &file); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(file + "-wal")
	if err != nil {
		b.Fatal(err)
	}
	if fi.Size() < 32 {
		return 0
	}
	return (fi.Size() - 32) / walFrameSize
}
