package importers

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnreadableLinesCounted: a transcript line that is not UTF-8 (or not
// JSON) is left out and counted in the summary, naming the input and the
// first such line; it was dropped with no word.
func TestUnreadableLinesCounted(t *testing.T) {
	line := func(typ, uuid, parent, ts, content string) string {
		return `{"type":"` + typ + `","uuid":"` + uuid + `","parentUuid":` + parent + `,"sessionId":"s-utf8","cwd":"/w/p","timestamp":"` + ts +
			`","message":{"role":"` + typ + `","id":"` + uuid + `m","content":` + content + `}}`
	}
	u1 := line("user", "u1", "null", "2026-01-01T00:00:00Z", `"hello there"`)
	bad := line("assistant", "a0", `"u1"`, "2026-01-01T00:00:01Z", "[{\"type\":\"text\",\"text\":\"caf\xe9\"}]")
	a1 := line("assistant", "a1", `"u1"`, "2026-01-01T00:00:02Z", `[{"type":"text","text":"hi"}]`)
	for _, c := range []struct {
		name, dir, file, data string
		lines                 int
	}{
		{"claude code", "projects/-w-p", "s-utf8.jsonl", u1 + "\n" + bad + "\n" + a1 + "\n{broken\n", 2},
		{"funes jsonl", "funes", "f.funes.jsonl", `{"session_id":"f1","turn_uuid":"t0","seq":0,"role":"user","harness":"funes","blocks":[{"type":"text","text":"ok"}]}` + "\n" +
			"{\"session_id\":\"f1\",\"turn_uuid\":\"t1\",\"seq\":1,\"role\":\"assistant\",\"blocks\":[{\"type\":\"text\",\"text\":\"caf\xe9\"}]}\n", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newMemory(t)
			p := filepath.Join(t.TempDir(), c.dir, c.file)
			os.MkdirAll(filepath.Dir(p), 0o700)
			os.WriteFile(p, []byte(c.data), 0o600)
			sum, err := Run(context.Background(), m, []string{p}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if sum.New != 1 || sum.UnreadableLines != c.lines || len(sum.Skipped) != 1 {
				t.Fatalf("summary: %+v, want 1 new, %d unreadable lines in one skip", sum, c.lines)
			}
			if sk := sum.Skipped[0]; !strings.Contains(sk.Path, p) || !strings.Contains(sk.Path, "could not be read") || !strings.Contains(sk.Reason, "not UTF-8") || sk.Lines != c.lines {
				t.Errorf("skip: %+v", sk)
			}
		})
	}
}
