package importers

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/funes"
)

// errNoConversation says an input was read to the end and held nothing to
// import: an aborted session, a file of snapshots only, an empty export.
var errNoConversation = errors.New("no conversation in it")

// lineStats counts what a JSONL read skipped.
type lineStats struct {
	Lines    int
	Bad      int
	FirstBad string
}

func (st *lineStats) bad(n int, why string) {
	st.Bad++
	if st.FirstBad == "" {
		st.FirstBad = fmt.Sprintf("line %d: %s", n, why)
	}
}

// emit hands a JSONL file's one conversation to h, and the lines it
// could not read. With none, the file is an error: every line unreadable,
// or nothing to import.
func (st *lineStats) emit(h Handler, s *funes.Session) error {
	if s != nil {
		st.report(h)
		return h.Session(s)
	}
	if st.Lines > 0 && st.Bad == st.Lines {
		return fmt.Errorf("no readable line (%s)", st.FirstBad)
	}
	return errNoConversation
}

// report tells h how many lines were left out as unreadable (an
// invalid-UTF-8 line was dropped with no word in the summary).
func (st *lineStats) report(h Handler) {
	reportUnreadable(h, st.Bad, st.FirstBad)
}

func reportUnreadable(h Handler, bad int, first string) {
	if bad == 0 {
		return
	}
	if h.Unreadable != nil {
		h.Unreadable(bad, first)
		return
	}
	h.skip(unreadableLines(bad), first)
}

func unreadableLines(n int) string {
	if n == 1 {
		return "1 line could not be read"
	}
	return fmt.Sprintf("%d lines could not be read", n)
}

// readJSONLines calls fn with each line of a JSONL input that is worth
// decoding. Blank lines, NUL-filled lines (a crash mid-write leaves them),
// lines that are not UTF-8 and lines over funes.MaxLineBytes are skipped
// and counted, never fatal: transcripts are appended to while tools crash.
// fn returns a reason when it cannot use a line, or "" when it can.
func readJSONLines(ctx context.Context, r io.Reader, progress func(int64), fn func(n int, line []byte) string) (lineStats, error) {
	var st lineStats
	cr := &countReader{ctx: ctx, r: r, progress: progress}
	br := bufio.NewReaderSize(cr, 256<<10)
	var buf []byte
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br, &buf)
		line = bytes.Trim(line, "\x00 \t\r\n\ufeff")
		switch {
		case tooLong:
			st.Lines++
			st.bad(n, fmt.Sprintf("longer than %d MiB", funes.MaxLineBytes>>20))
		case len(line) == 0:
		case !utf8.Valid(line):
			st.Lines++
			st.bad(n, "not UTF-8")
		default:
			st.Lines++
			if why := fn(n, line); why != "" {
				st.bad(n, why)
			}
		}
		if err == io.EOF {
			return st, nil
		}
		if err != nil {
			return st, err
		}
	}
}

// readLine returns the next line, reusing *buf. A line longer than
// funes.MaxLineBytes is drained without being kept.
func readLine(br *bufio.Reader, buf *[]byte) ([]byte, bool, error) {
	b := (*buf)[:0]
	for {
		frag, err := br.ReadSlice('\n')
		if len(b)+len(frag) > funes.MaxLineBytes {
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			*buf = b[:0]
			return nil, true, err
		}
		if len(b) == 0 && allNUL(frag) {
			// A crash pads transcripts with NULs: skip them without
			// buffering, however long the run.
			frag = nil
		}
		b = append(b, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if cap(b) > 4<<20 {
			*buf = nil // don't pin one huge line's buffer for the whole file
		} else {
			*buf = b
		}
		return b, false, err
	}
}

// allNUL reports a fragment of NUL bytes, perhaps ending the line.
func allNUL(b []byte) bool {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return len(b) > 0 && bytes.Count(b, []byte{0}) == len(b) // Count is vectorised; Trim is not
}
