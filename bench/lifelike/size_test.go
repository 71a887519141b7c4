package lifelike

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"
)

// TestSizeReport writes a history and reports its size: files, bytes,
// approximate tokens (bytes of text / 4) and time taken, and checks its
// shape (every harness written, every question type asked, conversations
// of realistic length). It runs at N = 300 by default; LIFELIKE_SIZE_N sets
// N (e.g. LIFELIKE_SIZE_N=10000 go test -run SizeReport -v ./bench/lifelike),
// and with LIFELIKE_SIZE_DIR the export stays there, with questions.jsonl.
func TestSizeReport(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LIFELIKE_SIZE_N"))
	if n == 0 {
		if testing.Short() {
			t.Skip("writes a small history")
		}
		n = 300
	}
	dir := os.Getenv("LIFELIKE_SIZE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	start := time.Now()
	d := Generate(Config{N: n, Seed: 1})
	planned := time.Since(start)
	if err := d.WriteExports(dir); err != nil {
		t.Fatal(err)
	}
	total := time.Since(start)
	if os.Getenv("LIFELIKE_SIZE_DIR") != "" {
		f, err := os.Create(filepath.Join(dir, "questions.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		d.WriteQuestions(f)
		f.Close()
	}
	files, size := 0, int64(0)
	filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			fi, _ := de.Info()
			files++
			size += fi.Size()
		}
		return nil
	})
	var text int64
	turns := 0
	byH := map[string]int64{}
	var sizes []int64
	for _, c := range d.convs {
		var ct int64
		for _, tu := range d.render(c).turns {
			turns++
			for _, b := range tu.blocks {
				ct += int64(len(b.text) + len(b.input))
			}
		}
		text += ct
		byH[c.harness] += ct / 4
		sizes = append(sizes, ct/4)
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	for h, v := range byH {
		t.Logf("%s: ≈%d tokens per conversation", h, v/int64(d.Conversations[h]))
	}
	t.Logf("tokens per conversation: p10 %d, p50 %d, p90 %d, p99 %d, max %d", sizes[len(sizes)/10], sizes[len(sizes)/2], sizes[len(sizes)*9/10], sizes[len(sizes)*99/100], sizes[len(sizes)-1])
	per := map[string]int{}
	for _, q := range d.Questions {
		per[q.Type]++
	}
	t.Logf("N=%d: %d files, %.1f MB, %d turns, text %.1f MB ≈ %.1fM tokens (%.0f per conversation); plan %v, plan+write %v",
		n, files, float64(size)/1e6, turns, float64(text)/1e6, float64(text)/4e6, float64(text)/4/float64(n), planned.Round(time.Millisecond), total.Round(time.Millisecond))
	t.Logf("conversations %v; questions %v", d.Conversations, per)
	// The shape the README measures: all four harnesses, every question
	// type, and conversations about as long as a person's (p50 ≈ 1–1.5k
	// tokens, a long tail).
	if files == 0 || len(byH) != 4 {
		t.Errorf("%d files, harnesses %v; want files of all four harnesses", files, byH)
	}
	for _, typ := range []string{TypeShort, TypeLong, TypeNoID, TypeUserSaid, TypeAssistantSaid, TypeTemporal, TypeUpdate} {
		if per[typ] == 0 {
			t.Errorf("no %s questions: %v", typ, per)
		}
	}
	if p50 := sizes[len(sizes)/2]; p50 < 500 || p50 > 5000 {
		t.Errorf("median conversation ≈%d tokens, want 500–5,000", p50)
	}
	if sizes[len(sizes)-1] < 4*sizes[len(sizes)/2] {
		t.Errorf("longest conversation ≈%d tokens, median %d: want a long tail", sizes[len(sizes)-1], sizes[len(sizes)/2])
	}
}
