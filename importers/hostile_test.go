package importers

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// endless streams n bytes of 'a' without holding them: a hostile file
// without a file.
type endless struct{ left, read int64 }

func (r *endless) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), r.left)
	for i := range p[:n] {
		p[i] = 'a'
	}
	r.left -= n
	r.read += n
	return int(n), nil
}

// heapPeak samples the heap in use while fn runs.
func heapPeak(fn func()) uint64 {
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	<-done
	return peak.Load()
}

// Issue 11 item 10: a 500 MB single-string conversation is refused with
// the cap enforced while reading: the parser reads no more than the cap of
// it and holds a small multiple of the cap, never gigabytes.
func TestHugeConversationRefusedWhileReading(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 1 GB")
	}
	const size = 500 << 20
	for _, c := range []struct {
		name       string
		fn         parseFunc
		head, tail string
	}{
		{"chatgpt", ParseChatGPT, `[{"id":"x","mapping":{},"title":"`, `"}]`},
		{"claude", ParseClaude, `{"uuid":"x","name":"n","chat_messages":[{"text":"`, `"}]}`},
	} {
		src := &endless{left: size}
		var err error
		peak := heapPeak(func() {
			r := io.MultiReader(strings.NewReader(c.head), src, strings.NewReader(c.tail))
			err = c.fn(context.Background(), r, c.name, Handler{Session: func(*funes.Session) error { return nil }})
		})
		t.Logf("%s: read %d MiB of %d, heap peak %d MiB, %v", c.name, src.read>>20, size>>20, peak>>20, err)
		if err == nil || !strings.Contains(err.Error(), "larger than 120 MiB") {
			t.Errorf("%s: err %v", c.name, err)
		}
		if src.read > maxConversationBytes+(1<<20) {
			t.Errorf("%s: read %d bytes past a cap of %d", c.name, src.read, maxConversationBytes)
		}
		if peak > 3*uint64(maxConversationBytes) {
			t.Errorf("%s: heap peaked at %d MiB", c.name, peak>>20)
		}
	}
}

// A JSONL transcript's one endless line is skipped as too long, drained
// without being held.
func TestHugeLineSkippedWhileReading(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 500 MB")
	}
	src := &endless{left: 500 << 20}
	var err error
	peak := heapPeak(func() {
		r := io.MultiReader(strings.NewReader(`{"type":"user","uuid":"u","message":{"role":"user","content":"`), src, strings.NewReader(`"}}`+"\n"))
		err = ParseClaudeCode(context.Background(), r, "s.jsonl", Handler{Session: func(*funes.Session) error { return nil }})
	})
	t.Logf("heap peak %d MiB, %v", peak>>20, err)
	if err == nil || !strings.Contains(err.Error(), "longer than 64 MiB") {
		t.Errorf("err %v", err)
	}
	if peak > 4*funes.MaxLineBytes {
		t.Errorf("heap peaked at %d MiB", peak>>20)
	}
}

// A zip's directory is read once per import, not once per entry; and an
// archive of more entries than the cap is refused whole.
func TestZipOpenedOnce(t *testing.T) {
	dir := t.TempDir()
	const n = 300
	var ents []zipEnt
	for i := range n {
		conv := fmt.Sprintf(`[{"id":"c-%d","title":"t%d","mapping":{"r":{"id":"r","message":null,"parent":null,"children":["u"]},"u":{"id":"u","message":{"id":"u%d","author":{"role":"user"},"create_time":1700000000.0,"content":{"content_type":"text","parts":["question %d"]},"weight":1.0,"recipient":"all"},"parent":"r","children":[]}},"current_node":"u","conversation_id":"c-%d"}]`, i, i, i, i, i)
		ents = append(ents, zipEnt{name: fmt.Sprintf("conversations-%03d.json", i), data: []byte(conv)})
	}
	path := writeZip(t, filepath.Join(dir, "export.zip"), ents...)
	m := newMemory(t)
	before := zipOpens.Load()
	sum, err := Run(context.Background(), m, []string{path}, Options{})
	if err != nil || sum.New != n {
		t.Fatalf("%v %+v", err, sum)
	}
	if opens := zipOpens.Load() - before; opens > 2 {
		t.Errorf("the archive was opened %d times for %d entries", opens, n)
	}

	defer func(v int) { maxArchiveEntries = v }(maxArchiveEntries)
	maxArchiveEntries = n - 1
	snap := snapshot(t, m)
	sum, err = Run(context.Background(), m, []string{path}, Options{})
	if err == nil || !strings.Contains(err.Error(), "entries, more than the") || snapshot(t, m) != snap {
		t.Errorf("over the entry cap: %v %+v", err, sum)
	}
}
