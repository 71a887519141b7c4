package agentwork

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
)

func render(t *testing.T, d *Dataset) map[string]*funes.Session {
	t.Helper()
	out := map[string]*funes.Session{}
	if err := d.Sessions(func(s *funes.Session) error {
		if out[s.ID] != nil {
			return fmt.Errorf("session id %s twice", s.ID)
		}
		out[s.ID] = s
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// The same (N, Seed) gives the same history and questions; another seed
// another.
func TestDeterministic(t *testing.T) {
	a, b := Generate(Config{N: 300, Seed: 3}), Generate(Config{N: 300, Seed: 3})
	if !reflect.DeepEqual(a.Questions, b.Questions) {
		t.Fatal("questions differ for one seed")
	}
	sa, sb := render(t, a), render(t, b)
	if !reflect.DeepEqual(sa, sb) {
		t.Fatal("sessions differ for one seed")
	}
	if c := Generate(Config{N: 300, Seed: 4}); reflect.DeepEqual(a.Questions, c.Questions) {
		t.Fatal("another seed gave the same questions")
	}
}

// Every question's gold turn states its fact (identifier and answer), no
// other conversation states that identifier with that fact, and each type
// is asked.
func TestGoldTurns(t *testing.T) {
	d := Generate(Config{N: 1000, Seed: 1})
	ss := render(t, d)
	types := map[string]int{}
	var buried []int
	for _, q := range d.Questions {
		types[q.Type]++
		s := ss[q.SessionID]
		if s == nil || s.Harness != q.Harness {
			t.Fatalf("%s: no conversation %s/%s", q.ID, q.Harness, q.SessionID)
		}
		var gold *funes.Turn
		for i := range s.Turns {
			if s.Turns[i].TurnUUID == q.TurnUUID {
				gold = &s.Turns[i]
			}
		}
		if gold == nil {
			t.Fatalf("%s: no gold turn %s", q.ID, q.TurnUUID)
		}
		if text := gold.Text(); !strings.Contains(text, q.Ident) || !strings.Contains(text, q.Answer) {
			t.Fatalf("%s: gold turn lacks %q or %q:\n%.300s", q.ID, q.Ident, q.Answer, text)
		}
		// As the index reads it: the identifier a word of its own, not glued
		// to the sentence before ("is gone.SEC-1007").
		// (EMFILE and such are words, not identifiers.)
		if id := engine.Identifiers(q.Ident); len(id) == 1 && !slices.Contains(engine.Identifiers(gold.Text()), id[0]) {
			i := strings.Index(gold.Text(), q.Ident)
			t.Fatalf("%s: the index does not find %q whole in its gold turn: %q", q.ID, q.Ident, gold.Text()[max(0, i-40):i+len(q.Ident)])
		}
		if strings.HasPrefix(q.Type, "buried") {
			buried = append(buried, len(gold.Text()))
		}
	}
	for _, ty := range Types {
		if types[ty] == 0 {
			t.Errorf("no %s questions: %v", ty, types)
		}
	}
	sort.Ints(buried)
	if len(buried) > 0 && buried[len(buried)/2] < 3000 {
		t.Errorf("buried facts sit in turns of median %d bytes, want long ones", buried[len(buried)/2])
	}
	// A fact's sentence is said in its conversation only.
	said := map[string]string{}
	for _, f := range d.facts {
		said[f.said()] = d.convs[f.conv].id
	}
	for _, s := range ss {
		for _, tn := range s.Turns {
			for sent, sid := range said {
				if sid != s.ID && strings.Contains(tn.Text(), sent) {
					t.Fatalf("fact %q also in %s", sent, s.ID)
				}
			}
		}
	}
}

// TestSizeReport prints the history's size (AGENTWORK_SIZE_N=10000 for the
// bench's).
func TestSizeReport(t *testing.T) {
	n := 1000
	if v := os.Getenv("AGENTWORK_SIZE_N"); v != "" {
		fmt.Sscan(v, &n)
	}
	d := Generate(Config{N: n, Seed: 1})
	var turns, bytes int
	var per, asst []int
	_ = d.Sessions(func(s *funes.Session) error {
		b := 0
		for _, tn := range s.Turns {
			b += len(tn.Text())
			if tn.Role == funes.RoleAssistant {
				asst = append(asst, len(tn.Text()))
			}
		}
		turns += len(s.Turns)
		bytes += b
		per = append(per, b)
		return nil
	})
	sort.Ints(per)
	sort.Ints(asst)
	q := func(xs []int, p float64) int { return xs[int(p*float64(len(xs)-1))] }
	t.Logf("N=%d: %d questions, %d turns, %.1f MB (≈%.1fM tokens); per conversation p50 %d / p90 %d / p99 %d bytes; assistant turns p50 %d / p90 %d",
		n, len(d.Questions), turns, float64(bytes)/1e6, float64(bytes)/4e6, q(per, .5), q(per, .9), q(per, .99), q(asst, .5), q(asst, .9))
	for _, q := range d.Questions[:min(8, len(d.Questions))] {
		t.Logf("%-12s %-40s %s", q.Type, q.ID, q.Text)
	}
}

// TestShow prints one conversation of each kind (AGENTWORK_SHOW=1).
func TestShow(t *testing.T) {
	if os.Getenv("AGENTWORK_SHOW") == "" {
		t.Skip("AGENTWORK_SHOW is not set")
	}
	d := Generate(Config{N: 300, Seed: 1})
	seen := map[int]bool{}
	for i, c := range d.convs {
		if seen[c.kind] {
			continue
		}
		seen[c.kind] = true
		s, gold := d.render(i)
		fmt.Printf("=== kind %d %s %s %q (gold %d)\n", c.kind, s.Harness, s.ID, s.Title, gold)
		for _, tn := range s.Turns {
			fmt.Printf("--- %d %s\n%s\n", tn.Seq, tn.Role, tn.Text())
		}
	}
}
