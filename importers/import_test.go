package importers

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

func TestRunEverything(t *testing.T) {
	m := newMemory(t)
	ctx := context.Background()
	var phases = map[string]bool{}
	sum, err := Run(ctx, m, fixtureDirs(t), Options{Progress: func(p Progress) { phases[p.Phase] = true }})
	if err != nil {
		t.Fatal(err)
	}
	// 54 conversations (10 of them the real Cursor samples'); the shards and
	// the 2026 Claude file repeat 4 of them, opencode's exports 2 of its
	// database's.
	if sum.New != 54 || sum.Unchanged != 6 || sum.Updated != 0 || sum.Failed != 0 {
		t.Errorf("summary %+v", sum)
	}
	// The bad conversations inside good exports are named, the rest imported.
	var skipped []string
	for _, s := range sum.Skipped {
		skipped = append(skipped, s.Path+": "+s.Reason)
	}
	all := strings.Join(skipped, "\n")
	for _, w := range []string{"conversations.json: conversation conv-bad", "conversation conv-empty", `conversation c-4 ("Broken")`} {
		if !strings.Contains(all, w) {
			t.Errorf("skipped lacks %q:\n%s", w, all)
		}
	}
	if !phases[PhaseDetect] || !phases[PhaseRead] || !phases[PhaseCommit] {
		t.Errorf("progress phases %v", phases)
	}
	before := snapshot(t, m)
	if !strings.Contains(before, "total 54") {
		t.Errorf("snapshot:\n%s", before)
	}

	// Re-importing everything changes nothing.
	sum, err = Run(ctx, m, fixtureDirs(t), Options{})
	if err != nil || sum.New != 0 || sum.Updated != 0 || sum.Unchanged != 60 {
		t.Errorf("re-import: %v %+v", err, sum)
	}
	if after := snapshot(t, m); after != before {
		t.Errorf("re-import changed the memory:\n%s\n---\n%s", before, after)
	}

	// A forgotten conversation stays forgotten, until asked for.
	if _, err := m.Forget(ctx, []string{"conv-branch"}, nil); err != nil {
		t.Fatal(err)
	}
	sum, err = Run(ctx, m, []string{testdata("chatgpt")}, Options{})
	if err != nil || sum.Forgotten != 1 || sum.New != 0 {
		t.Errorf("after forget: %v %+v", err, sum)
	}
	if strings.Contains(snapshot(t, m), "conv-branch") {
		t.Error("forgotten conversation came back")
	}
	sum, err = Run(ctx, m, []string{testdata("chatgpt")}, Options{IncludeForgotten: true})
	if err != nil || sum.New != 1 {
		t.Errorf("include forgotten: %v %+v", err, sum)
	}
}

func TestRunZipsAndGrowth(t *testing.T) {
	m := newMemory(t)
	ctx := context.Background()
	dir := t.TempDir()
	z := writeZip(t, filepath.Join(dir, "chatgpt-export.zip"),
		file("conversations-000.json", testdata("chatgpt-sharded", "conversations-000.json")),
		file("conversations-001.json", testdata("chatgpt-sharded", "conversations-001.json")),
		file("user.json", testdata("chatgpt-sharded", "user.json")))
	cz := writeZip(t, filepath.Join(dir, "data-batch-0000.zip"), file("conversations.json", testdata("claude", "conversations.json")))
	pz := writeZip(t, filepath.Join(dir, "projects-000.zip"), file("projects/0195b000-0000-7000-8000-0000000000aa.json", testdata("claude-2026", "projects", "0195b000-0000-7000-8000-0000000000aa.json")))
	sum, err := Run(ctx, m, []string{z, cz, pz}, Options{})
	if err != nil || sum.New != 6 || sum.Failed != 0 || sum.Inputs != 2 {
		t.Fatalf("%v %+v", err, sum)
	}

	// A Codex session that grew is replaced; the others are unchanged.
	src := codexFile("2026/03/01/rollout-2026-03-01T10-00-00-0195a000-0000-7000-8000-000000000001.jsonl")
	live := filepath.Join(dir, "sessions", filepath.Base(src))
	os.MkdirAll(filepath.Dir(live), 0o755)
	data, _ := os.ReadFile(src)
	os.WriteFile(live, data, 0o644)
	if sum, err = Run(ctx, m, []string{filepath.Dir(live)}, Options{}); err != nil || sum.New != 1 {
		t.Fatalf("%v %+v", err, sum)
	}
	f, _ := os.OpenFile(live, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"timestamp":"2026-03-01T12:00:00Z","type":"event_msg","payload":{"type":"user_message","message":"One more thing"}}` + "\n")
	f.Close()
	if sum, err = Run(ctx, m, []string{filepath.Dir(live)}, Options{}); err != nil || sum.Updated != 1 || sum.New != 0 {
		t.Fatalf("%v %+v", err, sum)
	}
	s, err := m.LoadSession(ctx, "0195a000-0000-7000-8000-000000000001")
	if err != nil || s.Turns[len(s.Turns)-1].Blocks[0].Text != "One more thing" {
		t.Fatalf("%v %+v", err, s)
	}
}

func TestRunRedact(t *testing.T) {
	m := newMemory(t)
	redact := func(s *funes.Session) map[string]int {
		n := 0
		for i := range s.Turns {
			for j := range s.Turns[i].Blocks {
				b := &s.Turns[i].Blocks[j]
				if strings.Contains(b.Text, "8849") {
					b.Text = strings.ReplaceAll(b.Text, "8849", "[REDACTED]")
					n++
				}
			}
		}
		return map[string]int{"height": n}
	}
	sum, err := Run(context.Background(), m, []string{testdata("chatgpt")}, Options{Redact: redact})
	if err != nil || sum.Redacted["height"] != 3 {
		t.Fatalf("%v %+v", err, sum)
	}
}

// badCase is an input that must fail alone and change nothing.
type badCase struct {
	name  string
	make  func(t *testing.T, dir string) string // returns the path to import
	want  string                                // in the failure reason
	alloc uint64                                // if set: most bytes the import may allocate
}

func badCases() []badCase {
	conv := func() zipEnt { return file("conversations.json", testdata("chatgpt", "conversations.json")) }
	write := func(name string, data []byte) func(t *testing.T, dir string) string {
		return func(t *testing.T, dir string) string {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	full, _ := os.ReadFile(testdata("chatgpt", "conversations.json"))
	return []badCase{
		{name: "corrupt zip", make: write("export.zip", append([]byte("PK\x03\x04\x14\x00"), make([]byte, 300)...)), want: "corrupt or truncated zip"},
		{name: "truncated zip", make: func(t *testing.T, dir string) string {
			p := writeZip(t, filepath.Join(dir, "t.zip"), conv())
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)*2/3], 0o644)
			return p
		}, want: "corrupt or truncated zip"},
		{name: "corrupt entry after a good one", make: func(t *testing.T, dir string) string {
			// Shard 000 is fine and parses; 001's compressed bytes are
			// damaged. The whole archive must change nothing.
			p := writeZip(t, filepath.Join(dir, "c.zip"),
				file("conversations-000.json", testdata("chatgpt-sharded", "conversations-000.json")),
				zipEnt{name: "conversations-001.json", data: []byte(strings.Repeat(`[{"title":"x","mapping":{},"id":"q"}]`, 1))},
				file("conversations-002.json", testdata("chatgpt", "conversations.json")))
			data, _ := os.ReadFile(p)
			zr, _ := zipReader(data)
			f := zr.File[2]
			off, _ := f.DataOffset()
			for i := off + 20; i < off+int64(f.CompressedSize64)-4; i++ {
				data[i] ^= 0x5a
			}
			os.WriteFile(p, data, 0o644)
			return p
		}, want: "conversations-002.json"},
		{name: "zip-slip", make: func(t *testing.T, dir string) string {
			return writeZip(t, filepath.Join(dir, "s.zip"), conv(), zipEnt{name: "../../etc/evil.json", data: []byte("[]")})
		}, want: "zip-slip"},
		{name: "symlink entry", make: func(t *testing.T, dir string) string {
			return writeZip(t, filepath.Join(dir, "l.zip"), conv(), zipEnt{name: "conversations-001.json", data: []byte("/etc/passwd"), mode: os.ModeSymlink | 0o777})
		}, want: "symbolic link"},
		{name: "zip bomb", make: func(t *testing.T, dir string) string {
			bomb := append([]byte("["), make([]byte, 64<<20)...)
			for i := 1; i < len(bomb); i++ {
				bomb[i] = ' '
			}
			return writeZip(t, filepath.Join(dir, "b.zip"), conv(), zipEnt{name: "conversations-001.json", data: append(bomb, ']')})
		}, want: "refusing a likely zip bomb"},
		{name: "truncated JSON", make: write("conversations.json", full[:len(full)/2]), want: "unexpected end of JSON (the file is truncated)"},
		{name: "truncated JSON in a zip", make: func(t *testing.T, dir string) string {
			return writeZip(t, filepath.Join(dir, "tj.zip"), zipEnt{name: "conversations.json", data: full[:len(full)-40]})
		}, want: "tj.zip!/conversations.json: offset"},
		{name: "wrong JSON shape", make: write("conversations.json", []byte(`{"user":{"name":"ana"},"settings":[1,2]}`)), want: "not a format Ireneo imports"},
		{name: "wrong shape inside", make: write("conversations.json", []byte(`[{"title":"a","mapping":"x","id":"1"},{"title":"b","mapping":7,"id":"2"}]`)), want: "wrong shape: no readable ChatGPT conversation in 2 entries"},
		{name: "empty export", make: write("conversations.json", []byte("[]")), want: "empty export"},
		{name: "empty zip export", make: func(t *testing.T, dir string) string {
			return writeZip(t, filepath.Join(dir, "e.zip"), zipEnt{name: "conversations.json", data: []byte("[]")}, zipEnt{name: "user.json", data: []byte("{}")})
		}, want: "empty export"},
		{name: "empty file", make: write("conversations.json", nil), want: "empty export"},
		{name: "2 GB sparse file", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "conversations.json")
			f, _ := os.Create(p)
			f.Close()
			if err := os.Truncate(p, 2<<30); err != nil {
				t.Skip("no sparse files here:", err)
			}
			return p
		}, want: "only NUL bytes", alloc: 16 << 20},
		{name: "2 GB sparse after a good start", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "conversations.json")
			os.WriteFile(p, full[:len(full)-1], 0o644) // the list, left open
			os.Truncate(p, 2<<30)
			return p
		}, want: "invalid JSON", alloc: 64 << 20},
		{name: "2 GB sparse transcript", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "rollout.jsonl")
			os.WriteFile(p, []byte(`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"0195a000-0000-7000-8000-0000000000ff"}}`+"\n"), 0o644)
			os.Truncate(p, 2<<30)
			return p
		}, want: "no conversation in it yet", alloc: 16 << 20},
		{name: "non-UTF-8", make: write("conversations.json", []byte(strings.Replace(string(full), "Branches and blocks", "Caf\xe9 and blocks", 1))), want: "not UTF-8"},
		{name: "unreadable (mode 000)", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "conversations.json")
			if os.Geteuid() != 0 {
				os.WriteFile(p, full, 0o000)
				return p
			}
			// Root reads mode-000 files, and CI runs as root. A write-only
			// sysfs attribute refuses every reader, root too (kernfs has no
			// read for it): the export here is a link to one.
			const writeOnly = "/sys/bus/cpu/uevent"
			if _, err := os.ReadFile(writeOnly); !errors.Is(err, fs.ErrPermission) {
				t.Skipf("running as root, and %s is not there to stand for an unreadable file (%v)", writeOnly, err)
			}
			if err := os.Symlink(writeOnly, p); err != nil {
				t.Fatal(err)
			}
			return p
		}, want: "permission denied"},
		{name: "unreadable (under a file)", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "export")
			os.WriteFile(p, full, 0o644)
			return filepath.Join(p, "conversations.json")
		}, want: "cannot read: not a directory"},
		{name: "unreadable (FIFO)", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "conversations.json")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip(err)
			}
			return p
		}, want: "not a regular file"},
		{name: "missing", make: func(t *testing.T, dir string) string { return filepath.Join(dir, "nope.zip") }, want: "no such file"},
	}
}

func TestRunBadInputChangesNothing(t *testing.T) {
	m := newMemory(t)
	ctx := context.Background()
	if _, err := Run(ctx, m, []string{testdata("claude"), testdata("codex")}, Options{}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, m)
	for _, c := range badCases() {
		t.Run(c.name, func(t *testing.T) {
			p := c.make(t, t.TempDir())
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			sum, err := Run(ctx, m, []string{p}, Options{})
			runtime.ReadMemStats(&ms1)
			if err == nil {
				t.Errorf("Run returned no error though nothing could be imported: %+v", sum)
			}
			if sum.Failed != 1 || len(sum.Failures) != 1 || sum.New+sum.Updated != 0 {
				t.Fatalf("summary %+v", sum)
			}
			f := sum.Failures[0]
			line := f.Path + ": " + f.Reason
			if !strings.HasPrefix(f.Path, p) || !strings.Contains(line, c.want) {
				t.Errorf("failure %q, want it to name %s and say %q", line, p, c.want)
			}
			if c.alloc > 0 && ms1.TotalAlloc-ms0.TotalAlloc > c.alloc {
				t.Errorf("allocated %d MiB reading it", (ms1.TotalAlloc-ms0.TotalAlloc)>>20)
			}
			if after := snapshot(t, m); after != before {
				t.Errorf("the memory changed:\n%s\n---\n%s", before, after)
			}
			if ents, _ := os.ReadDir(filepath.Join(m.Dir(), ".staging")); len(ents) != 0 {
				t.Errorf("staging left behind: %v", ents)
			}
		})
	}
}

func TestRunPartialAndCancel(t *testing.T) {
	m := newMemory(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.zip")
	os.WriteFile(bad, []byte("PK\x03\x04 not really"), 0o644)
	// One bad input among good ones: the good ones are imported, Run says
	// which failed and returns no error.
	sum, err := Run(context.Background(), m, []string{bad, testdata("claude")}, Options{})
	if err != nil || sum.Failed != 1 || sum.New != 3 || sum.Failures[0].Path != bad {
		t.Fatalf("%v %+v", err, sum)
	}
	before := snapshot(t, m)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, m, []string{testdata("chatgpt")}, Options{}); err != context.Canceled {
		t.Errorf("cancelled run: %v", err)
	}
	if snapshot(t, m) != before {
		t.Error("a cancelled run changed the memory")
	}
	if _, err := Run(context.Background(), m, []string{t.TempDir()}, Options{}); err == nil || !strings.Contains(err.Error(), "nothing to import") {
		t.Errorf("empty folder: %v", err)
	}
}
