package boardfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// LineError is what stops an import: the line it stopped at and why.
// Nothing from that line on was written.
type LineError struct {
	Line int
	Err  error
}

// Error names the line and says that nothing from it on was written.
func (e *LineError) Error() string {
	return fmt.Sprintf("line %d: %v; nothing from this line on was written", e.Line, e.Err)
}

// Unwrap lets errors.Is and errors.As see the line's failure.
func (e *LineError) Unwrap() error { return e.Err }

// lineReader reads a file line by line, each at most MaxLine bytes, so an
// import holds one line at a time.
type lineReader struct {
	r *bufio.Reader
	n int // lines read
}

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: bufio.NewReaderSize(r, 64<<10)} }

// next returns the next non-empty line without its newline, or io.EOF.
func (l *lineReader) next() ([]byte, error) {
	for {
		b, err := l.readLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(b)) > 0 {
			return b, nil
		}
	}
}

func (l *lineReader) readLine() ([]byte, error) {
	var out []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(out)+len(chunk) > MaxLine+1 {
			l.n++
			return nil, &LineError{Line: l.n, Err: fmt.Errorf("the line is longer than %d bytes, more than any item this program writes: the file is not an export, or is damaged", MaxLine)}
		}
		out = append(out, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(out) == 0 {
				return nil, io.EOF
			}
			l.n++
			return out, nil
		case err != nil:
			return nil, err
		}
		l.n++
		return bytes.TrimSuffix(bytes.TrimSuffix(out, []byte("\n")), []byte("\r")), nil
	}
}
