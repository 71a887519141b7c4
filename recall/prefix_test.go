package recall_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/bench/agentwork"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/funes/funestest"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/recall"
)

// Issue 27 item 9: the first hits do not depend on how many are asked for.
// On the agentwork set's questions, and on each without its identifier (a
// broad question over many turns alike), top_k 50's first ten are top_k
// 10's list, top_k 3's are its first three, and pages of ten with Offset
// are the slices of the long list.
func TestFirstHitsDoNotDependOnK(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests a 400-conversation history")
	}
	ctx := context.Background()
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	d := agentwork.Generate(agentwork.Config{N: 400, Seed: 7, PerType: 15})
	var batch []*funes.Session
	if err := d.Sessions(func(s *funes.Session) error {
		batch = append(batch, s)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Ingest(ctx, batch, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	// A question naming its gold conversation's month takes the dated road:
	// the month's own best turns join every layer of the pool.
	began := map[string]time.Time{}
	var now time.Time
	for _, s := range batch {
		if len(s.Turns) > 0 {
			began[s.ID] = s.Started()
			now = maxTime(now, s.Turns[len(s.Turns)-1].TS)
		}
	}
	var qs []string
	for _, q := range d.Questions {
		bare := strings.TrimSpace(strings.ReplaceAll(q.Text, q.Ident, ""))
		qs = append(qs, q.Text, bare)
		if t := began[q.SessionID]; !t.IsZero() {
			qs = append(qs, bare+" in "+t.Format("January 2006"))
		}
	}
	now = now.Add(24 * time.Hour)
	list := func(q string, k, off int) []string {
		res, err := recall.Recall(ctx, m, recall.Options{Query: q, K: k, Offset: off, Budget: 1 << 30, Now: now})
		if err != nil {
			t.Fatalf("%q K %d offset %d: %v", q, k, off, err)
		}
		out := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			out[i] = h.SessionID + "/" + h.TurnUUID
		}
		return out
	}
	long := 0
	for _, q := range qs {
		l50 := list(q, 50, 0)
		if len(l50) > 10 {
			long++
		}
		for _, k := range []int{3, 10} {
			if got, want := list(q, k, 0), l50[:min(k, len(l50))]; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%q: top_k %d gave\n%v\nbut top_k 50 begins\n%v", q, k, got, want)
			}
		}
		for off := 10; off < len(l50); off += 10 {
			if got, want := list(q, 10, off), l50[off:min(off+10, len(l50))]; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%q: the page at %d is\n%v\nnot the long list's\n%v", q, off, got, want)
			}
		}
	}
	if len(qs) < 100 || long < len(qs)/2 {
		t.Fatalf("%d questions, %d with more than ten hits: too few to tell", len(qs), long)
	}
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// The same short turn in hundreds of agent sessions ("continue") scores the
// same in all of them: more than the engine keeps tied with the K-th. The
// first hits still do not depend on top_k, and a deeper layer does not list
// a second copy of the folded hit.
func TestFirstHitsOfManyCopies(t *testing.T) {
	ctx := context.Background()
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tools := []string{"kafka", "redis", "nginx", "postgres", "docker"}
	var batch []*funes.Session
	for i := range 400 {
		id := fmt.Sprintf("run-%03d", i)
		batch = append(batch, funestest.Conv(id, "claude_code", "session "+id, "",
			funestest.Day0.Add(time.Duration(i)*time.Hour),
			"Look at the "+tools[i%len(tools)]+" setup", "The "+tools[i%len(tools)]+" part looks fine.", "continue", "Done: the setup is fine."))
	}
	if _, err := m.Ingest(ctx, batch, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"continue", "continue with the setup", "kafka setup"} {
		var lists [][]string
		for _, k := range []int{3, 10, 50} {
			res, err := recall.Recall(ctx, m, recall.Options{Query: q, K: k, Budget: 1 << 30})
			if err != nil {
				t.Fatal(err)
			}
			var l []string
			texts := map[string]bool{}
			for _, h := range res.Hits {
				l = append(l, h.SessionID+"/"+h.TurnUUID)
				if strings.HasSuffix(h.TurnUUID, "-t2") {
					if texts["continue"] {
						t.Errorf("%q top_k %d: a second copy of %q listed: %v", q, k, "continue", l)
					}
					texts["continue"] = true
				}
			}
			lists = append(lists, l)
		}
		for i, k := range []int{3, 10} {
			if want := lists[2][:min(k, len(lists[2]))]; fmt.Sprint(lists[i]) != fmt.Sprint(want) {
				t.Errorf("%q: top_k %d gave\n%v\nbut top_k 50 begins\n%v", q, k, lists[i], want)
			}
		}
	}
}
