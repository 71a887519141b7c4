package sync

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// The journal's reader reads whole lines only, skips what is not an entry
// and counts it, and a partial last line waits.
func TestReadJournal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, journalName)
	var buf bytes.Buffer
	for _, name := range []string{"tag", "star", "rename", "forget", "redact", "bad"} {
		data, err := os.ReadFile(filepath.Join("testdata", "journal", name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(data)
	}
	buf.WriteString(`{"t":1796155824200,"n":0,"op":"tag","conv":"e303d9e18ae1596e08a6b9de6de367ad6f0ee7db0571c3eedce45687506e41e8","pro`)
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	es, next, bad, err := readJournal(p, 0)
	if err != nil || len(es) != 5 || bad != 4 {
		t.Fatalf("entries %d, bad %d, err %v", len(es), bad, err)
	}
	if whole := int64(bytes.LastIndexByte(buf.Bytes(), '\n') + 1); next != whole {
		t.Fatalf("read to %d, want %d (the partial line waits)", next, whole)
	}
	// The rest of the line arrives: read from where it stopped.
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`ject":"later"}` + "\n")
	f.Close()
	es, _, bad, err = readJournal(p, next)
	if err != nil || len(es) != 1 || es[0].Project != "later" || bad != 0 {
		t.Fatalf("after the rest arrived: %v %+v bad %d", err, es, bad)
	}
}

// An append after a crash that left half a line starts on a line of its
// own, so the entries after it are whole.
func TestAppendAfterHalfALine(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), journalName)
	os.WriteFile(p, []byte(`{"t":1,"n":0,"op":"ta`), 0o600)
	line, _ := json.Marshal(Entry{Clock: Clock{T: 2}, Op: opForget, Conv: memory.ConversationHash("claude", "x")})
	if err := appendLines(p, append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	es, _, bad, err := readJournal(p, 0)
	if err != nil || len(es) != 1 || bad != 1 {
		t.Fatalf("%v %+v bad %d", err, es, bad)
	}
}

// FuzzParseEntry: no panic on any line, and what it accepts is an entry
// the replay can take as it is.
func FuzzParseEntry(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "journal", "*.jsonl"))
	for _, p := range files {
		data, _ := os.ReadFile(p)
		for _, l := range bytes.Split(data, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := parseEntry(line)
		if err != nil {
			return
		}
		if e.T <= 0 || (e.Op != opRename && !isHash(e.Conv)) {
			t.Fatalf("accepted %q as %+v", line, e)
		}
		for _, s := range e.Spans {
			if s.Start < 0 || s.End > s.Len || s.Start >= s.End {
				t.Fatalf("accepted span %+v", s)
			}
		}
		e.machine = "0123456789abcdef"
		replay([]Entry{e}, map[string]string{e.Conv: "p"}, "fedcba9876543210")
	})
}

// FuzzReadCopy: a conversation file of any bytes is read or refused with a
// reason, never half read; one it accepts holds the conversation its name
// says, whole.
func FuzzReadCopy(f *testing.F) {
	s := conv("x", funes.HarnessClaude, "Tea", "", "oolong or sencha", "both")
	good, _ := funes.MarshalSession(s)
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(good[:len(good)/2])
	f.Add(append(append([]byte{}, good...), good...))
	f.Add([]byte("{}\n"))
	conv := memory.ConversationHash(funes.HarnessClaude, "x")
	f.Fuzz(func(t *testing.T, data []byte) {
		rec := &fileRecord{}
		s, err := parseCopy(data, conv, rec)
		if err != nil {
			if rec.Bad == "" {
				t.Fatal("refused without a reason")
			}
			return
		}
		if s.ID != "x" || s.Harness != funes.HarnessClaude || rec.Turns != len(s.Turns) || data[len(data)-1] != '\n' {
			t.Fatalf("accepted %q as %+v", data, rec)
		}
	})
}
