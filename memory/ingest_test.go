package memory

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

func TestIngestIdempotentAndReplace(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	ctx := context.Background()
	s := conv("s1", funes.HarnessChatGPT, "Pumps", "", day0, "the seal on pump P-003 leaks", "raised work order MT-4471")
	if r := mustIngest(t, m, s); r.New != 1 {
		t.Fatalf("first import: %+v", r)
	}
	if r := mustIngest(t, m, s); r.Unchanged != 1 || r.New != 0 {
		t.Fatalf("second import: %+v", r)
	}
	grown := conv("s1", funes.HarnessChatGPT, "Pumps", "", day0, "the seal on pump P-003 leaks", "raised work order MT-4471", "thanks, closing ZZTOPMARK")
	if r := mustIngest(t, m, grown); r.Updated != 1 {
		t.Fatalf("grown import: %+v", r)
	}
	if hits := searchTurns(t, m, "ZZTOPMARK"); len(hits) != 1 {
		t.Fatalf("search after update: %+v", hits)
	}
	st, _ := m.Status(ctx)
	if st.Conversations != 1 || st.Turns != 3 {
		t.Fatalf("status: %+v", st)
	}
}

func TestHostileSessionIDsStayInSrc(t *testing.T) {
	t.Parallel()
	m := openTest(t)
	mustIngest(t, m, conv("../../etc/passwd", "../x", "", "", day0, "hi", "there"))
	filepath.WalkDir(filepath.Dir(m.Dir()), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".funes.jsonl") && !strings.HasPrefix(p, filepath.Join(m.Dir(), SrcDir)) {
			t.Errorf("file escaped src/: %s", p)
		}
		return nil
	})
}

// The last import's time is stamped once the files are in src/, after the
// counts commit: a watcher that reloads when either changes (the window)
// reads the files as they are at least once after they land. Two imports
// in one second stamp two times.
func TestLastImportStampedAfterFilesLand(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	mustIngest(t, m, conv("s1", funes.HarnessCodex, "Stamps", "", day0, "first words", "ok"))
	st, err := m.Status(ctx)
	if err != nil || st.LastImport == nil {
		t.Fatalf("no last import after an import: %v %+v", err, st)
	}
	first := *st.LastImport
	var between *time.Time
	counted := 0
	afterCommitTx = func() {
		s, err := m.Status(ctx)
		if err != nil {
			t.Errorf("status between commit and rename: %v", err)
		}
		counted, between = s.Turns, s.LastImport
	}
	defer func() { afterCommitTx = nil }()
	mustIngest(t, m, conv("s1", funes.HarnessCodex, "Stamps", "", day0, "first words", "ok", "second words", "ok too"))
	afterCommitTx = nil
	if counted != 4 {
		t.Fatalf("between commit and rename the counts say %d turns, want the committed 4", counted)
	}
	if between == nil || !between.Equal(first) {
		t.Fatalf("the last import was stamped %v before the files landed (the one before: %v)", between, first)
	}
	st, err = m.Status(ctx)
	if err != nil || st.LastImport == nil || !st.LastImport.After(first) {
		t.Fatalf("after the files landed the last import is %v, want after %v (%v)", st.LastImport, first, err)
	}
}
