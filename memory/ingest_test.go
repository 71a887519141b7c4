package memory

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

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
