package scrub

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ireneo-app/ireneo/scrub/scrubtest"
)

// False redactions on clean text: every message of the RealMem and RHELM
// data sets (public, LLM-written user–assistant histories with no real
// secret in them) and the real sessions under ../shared/fixtures, read
// where they lie under ../shared. Each finding is a
// false redaction unless it is listed in cleanCorporaTrue after a person
// looked at it. IRENEO_SCRUB_SHOW=1 prints each finding in its context.

// corpusMessage is one message of a data set and where it is.
type corpusMessage struct {
	where string
	text  string
}

// datasetsDir finds ../shared/datasets from this package's folder: the
// repository root's parent, or (in a worktree under wt/) its grandparent.
func datasetsDir() string {
	if d := os.Getenv("IRENEO_DATASETS"); d != "" {
		return d
	}
	for _, d := range []string{"../../shared/datasets", "../../../shared/datasets"} {
		if _, err := os.Stat(filepath.Join(d, "realmem")); err == nil {
			return d
		}
	}
	return ""
}

func loadRealMem(t testing.TB, dir string) []corpusMessage {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "realmem", "*_dialogues_*.json"))
	var out []corpusMessage
	for _, p := range paths {
		var f struct {
			Dialogues []struct {
				Identifier string `json:"session_identifier"`
				Turns      []struct {
					Speaker string `json:"speaker"`
					Content string `json:"content"`
				} `json:"dialogue_turns"`
			} `json:"dialogues"`
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		base := strings.TrimSuffix(filepath.Base(p), ".json")
		for _, d := range f.Dialogues {
			out = append(out, corpusMessage{fmt.Sprintf("realmem/%s/%s title", base, d.Identifier), d.Identifier})
			for i, tr := range d.Turns {
				out = append(out, corpusMessage{fmt.Sprintf("realmem/%s/%s turn %d %s", base, d.Identifier, i, tr.Speaker), tr.Content})
			}
		}
	}
	return out
}

func loadRHELM(t testing.TB, dir string) []corpusMessage {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "rhelm", "conversations", "*", "conversation_*.json"))
	var out []corpusMessage
	for _, p := range paths {
		var f struct {
			Conversation []struct {
				Turn      int    `json:"turn"`
				User      string `json:"user"`
				Assistant string `json:"assistant"`
			} `json:"conversation"`
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		rel := filepath.Base(filepath.Dir(p)) + "/" + strings.TrimSuffix(filepath.Base(p), ".json")
		for _, c := range f.Conversation {
			out = append(out,
				corpusMessage{fmt.Sprintf("rhelm/%s turn %d user", rel, c.Turn), c.User},
				corpusMessage{fmt.Sprintf("rhelm/%s turn %d assistant", rel, c.Turn), c.Assistant})
		}
	}
	return out
}

// loadFixtures reads the real Claude Code, Codex and claude.ai exports under
// ../shared/fixtures/real (technical sessions with tool calls), one raw
// JSON line or file a message.
func loadFixtures(t testing.TB, dir string) []corpusMessage {
	t.Helper()
	var out []corpusMessage
	root := filepath.Join(dir, "..", "fixtures", "real")
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		for i, line := range strings.Split(string(data), "\n") {
			out = append(out, corpusMessage{fmt.Sprintf("fixtures/%s line %d", rel, i+1), line})
		}
		return nil
	})
	return out
}

// cleanCorporaTrue lists findings in the data sets that are secrets after
// all (where, rule), as a person judged them. Empty: none were.
var cleanCorporaTrue = map[[2]string]bool{}

// corpusFinding is one finding in a data set.
type corpusFinding struct {
	where, rule, value, context string
}

func scanCorpus(sc *Scrubber, msgs []corpusMessage) (found []corpusFinding, bytes int64) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local []corpusFinding
			var n int64
			for i := w; i < len(msgs); i += workers {
				m := msgs[i]
				n += int64(len(m.text))
				for _, x := range sc.Scan(m.text) {
					lo, hi := max(0, x.Start-60), min(len(m.text), x.End+60)
					local = append(local, corpusFinding{m.where, x.Rule, m.text[x.Start:x.End], m.text[lo:hi]})
				}
			}
			mu.Lock()
			found = append(found, local...)
			bytes += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Slice(found, func(i, j int) bool { return found[i].where < found[j].where })
	return found, bytes
}

func TestCleanCorporaFalseRedactions(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 50 MB of data sets")
	}
	dir := datasetsDir()
	if dir == "" {
		t.Skip("../shared/datasets not found (set IRENEO_DATASETS)")
	}
	sc := newTestScrubber(t)
	show := os.Getenv("IRENEO_SCRUB_SHOW") == "1"
	for _, set := range []struct {
		name string
		load func(testing.TB, string) []corpusMessage
	}{{"RealMem", loadRealMem}, {"RHELM", loadRHELM}, {"fixtures", loadFixtures}} {
		msgs := set.load(t, dir)
		if len(msgs) == 0 {
			t.Errorf("%s: no messages under %s", set.name, dir)
			continue
		}
		found, size := scanCorpus(sc, msgs)
		falses := 0
		byRule := map[string]int{}
		for _, f := range found {
			if cleanCorporaTrue[[2]string{f.where, f.rule}] {
				continue
			}
			falses++
			byRule[f.rule]++
			if show {
				t.Logf("%s: %s %q in …%s…", f.where, f.rule, f.value, strings.ReplaceAll(f.context, "\n", "⏎"))
			} else {
				t.Errorf("%s: %s flagged %s (IRENEO_SCRUB_SHOW=1 shows it)", f.where, f.rule, maskedPreview(f.value))
			}
		}
		t.Logf("%s: %d messages, %.1f MB: %d findings, %d false redactions %v", set.name, len(msgs), float64(size)/1e6, len(found), falses, byRule)
	}
}

// maskedPreview is redact.MaskSecret's preview, for test output.
func maskedPreview(v string) string {
	r := []rune(v)
	if len(r) < 10 {
		return "…"
	}
	return string(r[:2]) + "…" + string(r[len(r)-2:])
}

// TestGeneratedTextFindsOnlyPlanted: in generated conversation text (prose,
// Go code, JSON tool results with UUIDs and commit ids, logs with request
// ids and digests, shell sessions), the scrubber finds every secret the
// generator planted, each whole, and nothing else.
func TestGeneratedTextFindsOnlyPlanted(t *testing.T) {
	sc := newTestScrubber(t)
	var planted []string
	for _, p := range scrubtest.Secrets() {
		planted = append(planted, p.Secret)
	}
	g := scrubtest.NewGen(42)
	var msgs []corpusMessage
	size := 0
	for i := 0; size < 4<<20; i++ {
		b := g.Block()
		size += len(b)
		msgs = append(msgs, corpusMessage{fmt.Sprintf("block %d", i), b})
	}
	// Where the generator planted each secret, block by block.
	spans := make([][][2]int, len(msgs))
	n := 0
	for i, m := range msgs {
		for _, p := range planted {
			for off := 0; ; {
				k := strings.Index(m.text[off:], p)
				if k < 0 {
					break
				}
				spans[i] = append(spans[i], [2]int{off + k, off + k + len(p)})
				off += k + len(p)
				n++
			}
		}
	}
	if n < 10 {
		t.Fatalf("the generator planted %d secrets; the test needs more to mean something", n)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	found, other := 0, 0
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(msgs); i += workers {
				m := msgs[i]
				ms := sc.Scan(m.text)
				mu.Lock()
				for _, sp := range spans[i] {
					if coveredSpan(ms, sp) {
						found++
					} else {
						t.Errorf("%s: a planted secret (%s) was not found whole", m.where, maskSpan(m.text, sp))
					}
				}
				for _, x := range ms {
					if !touchesAny(x, spans[i]) {
						other++
						lo, hi := max(0, x.Start-60), min(len(m.text), x.End+60)
						t.Errorf("%s: %s flagged %q in …%s…", m.where, x.Rule, m.text[x.Start:x.End], m.text[lo:hi])
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d blocks, %.1f MB: %d of %d planted secrets found, %d other findings", len(msgs), float64(size)/1e6, found, n, other)
}
