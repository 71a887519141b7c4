package importers

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/bench/cputime"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// BenchmarkImportChatGPT10k imports a generated ChatGPT export of 10,000
// conversations (about 110 MB of conversations.json) into an empty memory,
// and reports the peak resident memory of the import.
func BenchmarkImportChatGPT10k(b *testing.B) { benchImportChatGPT(b, 10_000) }

// BenchmarkImportChatGPT500MB is the same at about 500 MB (45,000
// conversations). It takes minutes, so it runs only with
// IRENEO_BENCH_LARGE=1.
func BenchmarkImportChatGPT500MB(b *testing.B) {
	if os.Getenv("IRENEO_BENCH_LARGE") != "1" {
		b.Skip("set IRENEO_BENCH_LARGE=1 to run the 500 MB import")
	}
	benchImportChatGPT(b, 45_000)
}

// BenchmarkParseChatGPT10k is the parser alone on the same export: what
// the import costs before the memory stages and indexes anything.
func BenchmarkParseChatGPT10k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "conversations.json")
	size, err := writeChatGPTExport(path, 10_000)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ResetTimer()
	var cpu float64
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		resetPeakRSS()
		cpu0 := cputime.Seconds()
		turns := 0
		err = ParseChatGPT(context.Background(), f, path, Handler{Session: func(s *funes.Session) error {
			turns += len(s.Turns)
			return nil
		}})
		cpu += cputime.Seconds() - cpu0
		f.Close()
		if err != nil || turns != 60_000 {
			b.Fatalf("%v, %d turns", err, turns)
		}
	}
	b.ReportMetric(peakRSSMiB(), "peak-RSS-MiB")
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
}

func benchImportChatGPT(b *testing.B, n int) {
	dir := b.TempDir()
	path := filepath.Join(dir, "conversations.json")
	size, err := writeChatGPTExport(path, n)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ResetTimer()
	var peak, cpu float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m, err := memory.Open(filepath.Join(dir, "memory-"+strconv.Itoa(i)))
		if err != nil {
			b.Fatal(err)
		}
		resetPeakRSS()
		cpu0 := cputime.Seconds()
		b.StartTimer()
		sum, err := Run(context.Background(), m, []string{path}, Options{})
		b.StopTimer()
		cpu += cputime.Seconds() - cpu0
		if err != nil || sum.New != n {
			b.Fatalf("%v: %+v", err, sum)
		}
		peak = max(peak, peakRSSMiB())
		m.Close()
		os.RemoveAll(m.Dir())
		b.StartTimer()
	}
	b.ReportMetric(peak, "peak-RSS-MiB")
	// CPU time says how much work the import is whatever else the machine
	// is doing; wall time alone is meaningless on a shared, loaded box.
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(size)/(1<<20), "export-MiB")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "conversations/s")
}

// resetPeakRSS starts a new high-water mark (Linux: clear_refs 5), so the
// figure is the import's and not the generator's.
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSSMiB reads VmHWM, the peak resident set size, from /proc.
func peakRSSMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

var benchWords = strings.Fields(`the memory import stream sqlite index recall token budget project branch
	export conversation assistant answer question parser decoder archive zip bomb slip symlink cursor
	MT-4471 N-11 P-003 DR-512 3.4% lisbon everest kernel goroutine channel context deadline latency
	throughput benchmark fixture invariant deterministic checksum offset truncated shard manifest`)

// writeChatGPTExport streams a minified conversations.json of n
// conversations (about 10 KB each, like real ones: six messages, a branch,
// hidden system nodes and bulky metadata) to path, and returns its size.
func writeChatGPTExport(path string, n int) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(words int) string {
		var sb strings.Builder
		for i := 0; i < words; i++ {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(benchWords[rng.IntN(len(benchWords))])
		}
		return sb.String()
	}
	type node struct {
		ID       string         `json:"id"`
		Message  map[string]any `json:"message"`
		Parent   *string        `json:"parent"`
		Children []string       `json:"children"`
	}
	w.WriteByte('[')
	base := 1.7e9
	for c := 0; c < n; c++ {
		if c > 0 {
			w.WriteByte(',')
		}
		cid := fmt.Sprintf("6790%04x-0000-7000-8000-%012x", c%65536, c)
		mapping := map[string]node{}
		root := "client-created-root"
		mapping[root] = node{ID: root, Children: []string{}}
		parent := root
		t := base + float64(c)*600
		link := func(id string, msg map[string]any) {
			p := parent
			mapping[id] = node{ID: id, Message: msg, Parent: &p, Children: []string{}}
			pn := mapping[parent]
			pn.Children = append(pn.Children, id)
			mapping[parent] = pn
			parent = id
		}
		message := func(id, role string, parts []any, t float64, meta map[string]any) map[string]any {
			return map[string]any{"id": id, "author": map[string]any{"role": role, "name": nil, "metadata": map[string]any{}},
				"create_time": t, "update_time": t, "content": map[string]any{"content_type": "text", "parts": parts},
				"status": "finished_successfully", "end_turn": true, "weight": 1.0, "metadata": meta, "recipient": "all", "channel": nil}
		}
		link(cid+"-sys", message(cid+"-sys", "system", []any{""}, 0, map[string]any{"is_visually_hidden_from_conversation": true}))
		for turn := 0; turn < 3; turn++ {
			uid := fmt.Sprintf("%s-u%d", cid, turn)
			link(uid, message(uid, "user", []any{text(40)}, t, map[string]any{"request_id": uid, "message_source": nil, "timestamp_": "absolute"}))
			if turn == 1 { // an abandoned regeneration beside the kept answer
				alt := uid + "-alt"
				mapping[alt] = node{ID: alt, Message: message(alt, "assistant", []any{text(60)}, t+1, map[string]any{}), Parent: &uid, Children: []string{}}
				un := mapping[uid]
				un.Children = append(un.Children, alt)
				mapping[uid] = un
			}
			aid := fmt.Sprintf("%s-a%d", cid, turn)
			refs := make([]any, 4)
			for i := range refs {
				refs[i] = map[string]any{"matched_text": "\ue200cite\ue202turn0search" + strconv.Itoa(i) + "\ue201", "start_idx": i * 10, "end_idx": i*10 + 5,
					"type": "grouped_webpages", "items": []any{map[string]any{"title": text(5), "url": "https://example.com/" + strconv.Itoa(i), "snippet": text(8)}}}
			}
			link(aid, message(aid, "assistant", []any{text(50) + " \ue200cite\ue202turn0search1\ue201"}, t+5, map[string]any{
				"model_slug": "gpt-5", "finish_details": map[string]any{"type": "stop"}, "citations": []any{}, "content_references": refs}))
			t += 60
		}
		conv := map[string]any{"title": text(5), "create_time": base + float64(c)*600, "update_time": t, "mapping": mapping,
			"moderation_results": []any{}, "current_node": parent, "plugin_ids": nil, "conversation_id": cid, "id": cid,
			"conversation_template_id": nil, "gizmo_id": nil, "is_archived": false, "default_model_slug": "gpt-5", "safe_urls": []any{}}
		if c%10 == 0 {
			conv["gizmo_type"], conv["gizmo_id"] = "snorlax", fmt.Sprintf("g-p-%032x", c%7)
		}
		enc, err := json.Marshal(conv)
		if err != nil {
			return 0, err
		}
		w.Write(enc)
	}
	w.WriteByte(']')
	if err := w.Flush(); err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
