package memory

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// bigTurn is a conversation whose second turn's funes jsonl line is
// exactly n bytes, newline included.
func bigTurn(t testing.TB, n int) (*funes.Session, []byte) {
	t.Helper()
	s := conv("big-1", funes.HarnessChatGPT, "Big", "", day0, "a short question", "x", "thanks")
	probe, err := funes.MarshalSession(s)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(probe, []byte("\n"))
	s.Turns[1].Blocks[0].Text = strings.Repeat("y", n-len(lines[1])+1)
	data, err := funes.MarshalSession(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(bytes.SplitAfter(data, []byte("\n"))[1]); got != n {
		t.Fatalf("the turn's line is %d bytes, want %d", got, n)
	}
	return s, data
}

// TestTurnSizeBoundary: a turn whose line is funes.MaxLineBytes is taken
// and reads back whole; one byte more is refused, naming its size.
func TestTurnSizeBoundary(t *testing.T) {
	s, data := bigTurn(t, funes.MaxLineBytes)
	if err := checkTurnSizes(s, data); err != nil {
		t.Fatalf("a turn at the limit: %v", err)
	}
	ss, st, err := funes.ReadSessions(bytes.NewReader(data))
	if err != nil || st.Bad != 0 || len(ss) != 1 || len(ss[0].Turns) != 3 || ss[0].Turns[1].Blocks[0].Text != s.Turns[1].Blocks[0].Text {
		t.Fatalf("a turn at the limit does not read back whole: %d bad, %v", st.Bad, err)
	}
	s, data = bigTurn(t, funes.MaxLineBytes+1)
	err = checkTurnSizes(s, data)
	var big *TurnTooLargeError
	if !errors.As(err, &big) || big.Seq != 1 || big.Bytes != funes.MaxLineBytes+1 || !strings.Contains(err.Error(), "67108865 bytes") || !strings.Contains(err.Error(), "big-1") {
		t.Fatalf("a turn one byte over: %v", err)
	}
	if _, st, _ := funes.ReadSessions(bytes.NewReader(data)); st.Bad != 1 {
		t.Fatalf("the reader took a line over the limit (%d bad): the limit is not the reader's", st.Bad)
	}
}
