package recalldata

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

func digest(t *testing.T, d *Dataset) [32]byte {
	t.Helper()
	b, err := json.Marshal(struct {
		C []*Conversation
		Q []Question
	}{d.Conversations, d.Questions})
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestGenerateDeterministic(t *testing.T) {
	a := Generate(Config{N: 800, Seed: 7})
	b := Generate(Config{N: 800, Seed: 7})
	if digest(t, a) != digest(t, b) {
		t.Fatal("the same seed gave two different datasets")
	}
	c := Generate(Config{N: 800, Seed: 8})
	if digest(t, a) == digest(t, c) {
		t.Fatal("two seeds gave the same dataset")
	}
	// Asking fewer questions must not change the history.
	d := Generate(Config{N: 800, Seed: 7, FactQuestions: 10})
	ha, _ := json.Marshal(a.Conversations)
	hd, _ := json.Marshal(d.Conversations)
	if !bytes.Equal(ha, hd) {
		t.Fatal("the number of questions changed the history")
	}
}

func TestWriteExportsDeterministic(t *testing.T) {
	d := Generate(Config{N: 120, Seed: 3})
	sum := func() map[string][32]byte {
		dir := t.TempDir()
		if _, err := d.WriteExports(dir); err != nil {
			t.Fatal(err)
		}
		out := map[string][32]byte{}
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(dir, p)
				out[rel] = sha256.Sum256(b)
			}
			return err
		})
		return out
	}
	a, b := sum(), sum()
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("wrote %d then %d files", len(a), len(b))
	}
	for k, v := range a {
		if b[k] != v {
			t.Fatalf("%s differs between two writes", k)
		}
	}
}

var identRE = regexp.MustCompile(`\b[A-Z]+-\d+\b`)

var wordRE = regexp.MustCompile(`[A-Za-z]+`)

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range wordRE.FindAllString(strings.ToLower(s), -1) {
		out[w] = true
	}
	return out
}

// TestNoIDNamesOneConversation checks that every identifier-free question's
// combination (site, machine noun, topic) is told in exactly one
// conversation, by its structure and by its text.
func TestNoIDNamesOneConversation(t *testing.T) {
	for _, n := range []int{1000, 10000} {
		d := Generate(Config{N: n, Seed: 1, NoIDQuestions: -1})
		byID := d.ByID()
		texts := make([]string, len(d.Conversations))
		ws := make([]map[string]bool, len(d.Conversations))
		for i, c := range d.Conversations {
			texts[i] = strings.ToLower(c.Text())
			ws[i] = words(texts[i])
		}
		combos := map[string]int{}
		for _, c := range d.Conversations {
			combos[ComboKey(c.Fact)]++
		}
		// Conversations that mention a site and a machine noun.
		bySiteNoun := map[[2]string][]int{}
		for i, w := range ws {
			for _, site := range sites {
				if !w[strings.ToLower(site)] {
					continue
				}
				for _, e := range equipmentTypes {
					if w[e.Noun] {
						k := [2]string{strings.ToLower(site), e.Noun}
						bySiteNoun[k] = append(bySiteNoun[k], i)
					}
				}
			}
		}
		asked := 0
		for _, q := range d.Questions {
			if q.Type != TypeNoID {
				continue
			}
			asked++
			want := byID[[2]string{q.Harness, q.SessionID}]
			if want == nil {
				t.Fatalf("%s: expected conversation missing", q.ID)
			}
			if identRE.MatchString(q.Text) {
				t.Fatalf("%s has an identifier: %q", q.ID, q.Text)
			}
			f := want.Fact
			qw := words(q.Text)
			if !qw[strings.ToLower(f.Site)] || !qw[f.Noun] {
				t.Fatalf("%s does not name its site and machine kind: %q", q.ID, q.Text)
			}
			structural, textual := combos[ComboKey(f)], 0
			for _, i := range bySiteNoun[[2]string{strings.ToLower(f.Site), f.Noun}] {
				if strings.Contains(texts[i], f.Key()) {
					textual++
					if c := d.Conversations[i]; c != want {
						t.Errorf("%s %q: also told in %s: %s", q.ID, q.Text, c.ID, c.Text())
					}
				}
			}
			if structural != 1 || textual != 1 {
				t.Fatalf("%s %q: combination in %d conversations by fact, %d by text", q.ID, q.Text, structural, textual)
			}
		}
		if asked < 100 {
			t.Fatalf("N=%d: only %d identifier-free questions", n, asked)
		}
	}
}

// TestShape checks the history's shape: size, machines recurring about six
// times, distractor clusters, update series and question targets.
func TestShape(t *testing.T) {
	d := Generate(Config{N: 2000, Seed: 1, FactQuestions: -1, UpdateQuestions: -1})
	if len(d.Conversations) != 2000 {
		t.Fatalf("%d conversations, want 2000", len(d.Conversations))
	}
	perMachine := map[string]int{}
	harness := map[string]int{}
	series := map[string][]*Conversation{}
	for i, c := range d.Conversations {
		if i > 0 && c.Started().Before(d.Conversations[i-1].Started()) {
			t.Fatal("conversations out of order")
		}
		if n := len(c.Messages); n < 4 || n > 8 {
			t.Fatalf("%s has %d messages", c.ID, n)
		}
		if !strings.Contains(c.Messages[c.FactMsg].Text, c.Fact.Machine) {
			t.Fatalf("%s: fact message does not name %s", c.ID, c.Fact.Machine)
		}
		if !strings.Contains(c.Text(), c.Fact.Answer) {
			t.Fatalf("%s: answer %s not in the text", c.ID, c.Fact.Answer)
		}
		harness[c.Harness]++
		if c.Fact.Kind == KindMeasure {
			series[c.Fact.Series] = append(series[c.Fact.Series], c)
		} else {
			perMachine[c.Fact.Machine]++
		}
		for _, m := range c.Messages {
			if m.TS.Location() != time.UTC {
				t.Fatalf("%s: time not in UTC", c.ID)
			}
		}
	}
	for _, h := range []string{funes.HarnessChatGPT, funes.HarnessClaude, funes.HarnessCodex, funes.HarnessClaudeCode} {
		if harness[h] < 200 {
			t.Errorf("only %d %s conversations", harness[h], h)
		}
	}
	total := 0
	for _, n := range perMachine {
		total += n
	}
	if avg := float64(total) / float64(len(perMachine)); avg < 5 || avg > 7 {
		t.Errorf("machines recur %.1f times on average, want about 6", avg)
	}
	for k, s := range series {
		if len(s) < 3 {
			t.Errorf("series %s has %d reports", k, len(s))
		}
	}
	byID := d.ByID()
	for _, q := range d.Questions {
		c := byID[[2]string{q.Harness, q.SessionID}]
		if c == nil || c.Fact.Answer != q.Answer {
			t.Fatalf("%s: expected conversation or answer wrong", q.ID)
		}
		if q.Type == TypeUpdate {
			for _, o := range series[c.Fact.Series] {
				if o.Started().After(c.Started()) {
					t.Fatalf("%s: expects %s but %s is newer", q.ID, c.ID, o.ID)
				}
			}
		}
	}
}

// TestSmallTalkIsNeutral checks that small talk names no site, machine
// kind, person or identifier, so that only fact messages carry them.
func TestSmallTalkIsNeutral(t *testing.T) {
	var all []string
	for _, p := range smallTalk {
		all = append(all, p[0], p[1])
	}
	all = append(all, smallOpeners...)
	all = append(all, smallReplies...)
	all = append(all, smallClosers...)
	all = append(all, assistantClosers...)
	all = append(all, thoughts...)
	all = append(all, genericTitles...)
	banned := map[string]bool{}
	for _, s := range sites {
		banned[strings.ToLower(s)] = true
	}
	for _, e := range equipmentTypes {
		banned[e.Noun] = true
	}
	for _, p := range people {
		banned[strings.ToLower(p)] = true
	}
	for _, s := range all {
		for w := range words(s) {
			if banned[w] {
				t.Errorf("small talk %q uses %q", s, w)
			}
		}
	}
}
