package memory

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
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
	// Words, as a real turn has: one 64 MiB word costs the tokenizer minutes.
	fill := n - len(lines[1]) + 1
	s.Turns[1].Blocks[0].Text = strings.Repeat("pump seal ", fill/10) + strings.Repeat("y", fill%10)
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

// TestIngestTurnSizeBoundary: a conversation whose largest turn is at the
// limit is stored and reads back whole (get, and its file with no line
// skipped); one byte over is refused with its size and nothing is stored.
// The importer took up to 120 MiB a conversation, and a turn over 64 MiB
// was stored, then skipped by every reader.
func TestIngestTurnSizeBoundary(t *testing.T) {
	if testing.Short() {
		t.Skip("writes two 64 MiB turns")
	}
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	s, _ := bigTurn(t, funes.MaxLineBytes)
	mustIngest(t, m, s)
	tr, err := m.LoadSession(ctx, "big-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Turns) != 3 || len(tr.Turns[1].Blocks) == 0 || len(tr.Turns[1].Blocks[0].Text) != len(s.Turns[1].Blocks[0].Text) {
		t.Fatalf("the turn at the limit does not read back whole: %d turns", len(tr.Turns))
	}
	f, err := os.Open(filepath.Join(m.Dir(), mustRef(t, m, "big-1").path))
	if err != nil {
		t.Fatal(err)
	}
	_, st, err := funes.ReadSessions(f)
	f.Close()
	if err != nil || st.Bad != 0 {
		t.Fatalf("its file: %d lines skipped, %v", st.Bad, err)
	}

	over, _ := bigTurn(t, funes.MaxLineBytes+1)
	over.ID = "big-2"
	_, err = m.Ingest(ctx, []*funes.Session{over}, IngestOptions{})
	var big *TurnTooLargeError
	if !errors.As(err, &big) || big.SessionID != "big-2" || !strings.Contains(err.Error(), "67108865 bytes") {
		t.Fatalf("a turn one byte over: %v", err)
	}
	if _, err := findSession(ctx, m.db, "big-2", nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the refused conversation is stored: %v", err)
	}
}
