package boardfile_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// A hostile board file is made as it is read, never held: a header and a
// workspace, then its body repeated up to the file's size, then an end
// line. The tests measure what the import holds while it reads one.

// streamedFile is an io.Reader of a file of about size bytes: head, then
// unit again and again, then tail. It counts what it gave.
type streamedFile struct {
	head, unit, tail []byte
	size             int64
	given            int64
	pos              int // within the current piece
	stage            int // 0 head, 1 units, 2 tail, 3 done
}

func (f *streamedFile) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && f.stage < 3 {
		piece := [][]byte{f.head, f.unit, f.tail}[f.stage]
		c := copy(p[n:], piece[f.pos:])
		n += c
		f.pos += c
		f.given += int64(c)
		if f.pos == len(piece) {
			f.pos = 0
			if f.stage != 1 || f.given+int64(len(f.unit)) > f.size {
				f.stage++
			}
		}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

const hostileHead = `{"format":"ticket-ledger-board","version":1,"exported_at":"2026-11-30T09:00:00Z","with_people":false,"export_id":"0ba5ed"}
{"kind":"workspace","workspace":{"slug":"big","name":"Big","ai_policy":"read_write","next_number":1}}
`

// moveLine is a move of ticket big-1 with a reason of reason bytes.
func moveLine(i int, reason int) []byte {
	return fmt.Appendf(nil, `{"kind":"event","event":{"id":"ev-%d","workspace":"big","ticket_id":"big-1","type":"ticket.moved","from":"doing","to":"done","reason":"%s","author":"human:ada","source":"web","at":"2026-11-30T09:00:00Z"}}`+"\n",
		i, strings.Repeat("r", reason))
}

// hostileMB is LEDGER_TEST_HOSTILE_MB: the size of the large valid file,
// when set.
func hostileMB(t *testing.T) int64 {
	v := os.Getenv("LEDGER_TEST_HOSTILE_MB")
	if v == "" {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		t.Fatalf("LEDGER_TEST_HOSTILE_MB=%q: want a number of megabytes", v)
	}
	return n
}

// peakHeap runs fn and reports the most heap it saw in use above what
// was in use before, sampling every millisecond.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	runtime.ReadMemStats(&ms)
	peak = max(peak, ms.HeapAlloc)
	return peak - base
}

// hostileSize is the size of the hostile files: 300 MB, made as they are
// read; every import below stops at the first bad line, so none is read
// whole.
const hostileSize = 300 << 20

// TestHostileFileIsRefusedWithBoundedMemory: a 300 MB file is refused at
// its first bad line — one line of 300 MB, or lines just under the line
// limit whose move reasons the service would refuse — reading little of
// it and holding a few megabytes, on every store.
func TestHostileFileIsRefusedWithBoundedMemory(t *testing.T) {
	const bound = 16 << 20 // a few lines of MaxLine, and the store's own
	cases := []struct {
		name string
		file func() *streamedFile
		line int
		want string
	}{
		{"one line of 300 MB", func() *streamedFile {
			return &streamedFile{head: []byte(hostileHead + `{"kind":"event","event":{"reason":"`), unit: bytes.Repeat([]byte("r"), 64<<10),
				tail: []byte("\"}}\n"), size: hostileSize}
		}, 3, "longer than"},
		{"lines just under the limit", func() *streamedFile {
			unit := moveLine(1, boardfile.MaxLine-400)
			return &streamedFile{head: []byte(hostileHead), unit: unit, tail: []byte(`{"kind":"end","counts":{}}` + "\n"), size: hostileSize}
		}, 3, "the limit is 1000"},
	}
	for _, backend := range testbackends.Names() {
		for _, c := range cases {
			t.Run(backend+"/"+c.name, func(t *testing.T) {
				clock := testbackends.NewClock(t0)
				dst := open(t, backend, clock)
				file := c.file()
				var err error
				peak := peakHeap(func() {
					_, err = boardfile.Load(context.Background(), dst.store, file, boardfile.LoadOptions{Now: clock.Now()})
				})
				var le *boardfile.LineError
				if !errors.As(err, &le) || le.Line != c.line || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("import: %.200v; want line %d refused with %q", err, c.line, c.want)
				}
				if file.given > 4*boardfile.MaxLine {
					t.Errorf("the import read %d bytes of the file before it stopped; want at most a few lines", file.given)
				}
				if peak > bound {
					t.Errorf("the import held %d MB at its peak; want at most %d MB", peak>>20, bound>>20)
				}
				t.Logf("read %d KB of a %d MB file; peak heap above the start %.1f MB", file.given>>10, hostileSize>>20, float64(peak)/(1<<20))
			})
		}
	}
}

// TestLargeFileLoadsWithBoundedMemory: a file of valid items near their
// size limit (move reasons of MaxReason characters JSON writes in 6
// bytes) is imported in batches bounded by bytes, so what the import holds
// does not grow with the file. 8 MB here (four batches); LEDGER_TEST_HOSTILE_MB sets
// another size (docs/benchmarks.md has the 300 MB figure).
func TestLargeFileLoadsWithBoundedMemory(t *testing.T) {
	size := int64(8 << 20)
	if testing.Short() {
		size = 4 << 20
	}
	if mb := hostileMB(t); mb > 0 {
		size = mb << 20
	}
	reason := strings.Repeat("\\u003c", board.MaxReason)
	// One ticket; its moves, each with the longest reason.
	head := hostileHead + `{"kind":"ticket","ticket":{"id":"big-1","workspace":"big","title":"t","body":"","status":"done","priority":"normal","owner":null,"due":null,"tags":[],"links":[],"created_by":"human:ada","created_at":"2026-11-30T09:00:00Z","updated_at":"2026-11-30T09:00:00Z","completed_at":null,"url":"","version":1,"number":1}}` + "\n"
	var unit bytes.Buffer
	for i := range 64 {
		fmt.Fprintf(&unit, `{"kind":"event","event":{"id":"ev-%%d-%d","workspace":"big","ticket_id":"big-1","type":"ticket.moved","from":"doing","to":"done","reason":"%s","author":"human:ada","source":"web","at":"2026-11-30T09:00:00Z"}}`+"\n", i, reason)
	}
	file := &numberedFile{head: []byte(head), unit: unit.Bytes(), size: size}
	clock := testbackends.NewClock(t0)
	dst := open(t, testbackends.SQLite, clock)
	var res boardfile.LoadResult
	var err error
	start := time.Now()
	peak := peakHeap(func() {
		res, err = boardfile.Load(context.Background(), dst.store, file, boardfile.LoadOptions{Now: clock.Now()})
	})
	if err != nil {
		t.Fatalf("import: %.300v", err)
	}
	if res.Written[boardfile.KindEvent] != file.events {
		t.Fatalf("written %v; want %d events", res.Written, file.events)
	}
	if peak > 32<<20 {
		t.Errorf("the import held %d MB at its peak; want at most 32 MB whatever the file's size", peak>>20)
	}
	t.Logf("imported %d events, %d MB, in %s; peak heap above the start %.1f MB", file.events, file.given>>20, time.Since(start).Round(time.Millisecond), float64(peak)/(1<<20))
}

// numberedFile is head, then unit's lines again and again with %d in
// each replaced by the round (so every event's id differs), then an end
// line with the counts.
type numberedFile struct {
	head, unit []byte
	size       int64
	given      int64
	events     int
	round      int
	buf        []byte
	ended      bool
}

func (f *numberedFile) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		switch {
		case f.ended:
			return 0, io.EOF
		case f.given == 0 && f.round == 0:
			f.buf = f.head
			f.round++
		case f.given+int64(len(f.unit)) <= f.size:
			f.buf = bytes.ReplaceAll(f.unit, []byte("%d"), fmt.Append(nil, f.round))
			f.events += bytes.Count(f.unit, []byte("\n"))
			f.round++
		default:
			f.buf = fmt.Appendf(nil, `{"kind":"end","counts":{"workspace":1,"ticket":1,"event":%d}}`+"\n", f.events)
			f.ended = true
		}
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	f.given += int64(n)
	return n, nil
}
