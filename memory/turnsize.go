package memory

import (
	"github.com/ireneo-app/ireneo/diskproblem"

	"bytes"
	"fmt"

	"github.com/ireneo-app/ireneo/funes"
)

// One size limit, for writer and reader alike: a funes jsonl line (one
// turn) over funes.MaxLineBytes is skipped by every reader, so a turn of
// 64-120 MiB was imported (an export may hold 120 MiB a conversation),
// then missing from recall and get, never scanned for secrets, and gone
// from the file at the next scrub --apply (73,400,754 bytes → 208). Such a
// turn is now refused where a conversation is staged, with its size.

// TurnTooLargeError refuses a conversation with a turn too large to read
// back.
type TurnTooLargeError struct {
	Harness, SessionID string
	Seq                int   // the turn's seq
	Bytes              int64 // its funes jsonl line, newline included
}

func (e *TurnTooLargeError) Error() string {
	return fmt.Sprintf("conversation %s (%s): turn %d is %d bytes (%s) as funes jsonl, over the %d bytes (%d MiB) a turn may be; the conversation is left out (a reader could not read the turn back)",
		e.SessionID, e.Harness, e.Seq, e.Bytes, diskproblem.ByteCount(e.Bytes), funes.MaxLineBytes, funes.MaxLineBytes>>20)
}

// checkTurnSizes refuses s when a line of data, its funes jsonl (one turn
// a line, as funes.MarshalSession writes it), is longer than a reader
// takes: funes.MaxLineBytes with its newline.
func checkTurnSizes(s *funes.Session, data []byte) error {
	if len(data) <= funes.MaxLineBytes {
		return nil // no line can be longer than all of them
	}
	for i := 0; len(data) > 0; i++ {
		n := bytes.IndexByte(data, '\n') + 1
		if n == 0 {
			n = len(data)
		}
		if n > funes.MaxLineBytes {
			seq := i
			if i < len(s.Turns) {
				seq = s.Turns[i].Seq
			}
			return &TurnTooLargeError{Harness: s.Harness, SessionID: s.ID, Seq: seq, Bytes: int64(n)}
		}
		data = data[n:]
	}
	return nil
}
