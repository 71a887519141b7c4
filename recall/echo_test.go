package recall

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

func TestEchoesTable(t *testing.T) {
	stems := queryStems("what port does the heron migration use?")
	for preview, want := range map[string]bool{
		"what port does the heron migration use?":              true,
		"What port does the Heron migration use again?":        true,
		"which port do the heron migrations use":               true,
		"the heron migration uses port 6412":                   false,
		"what port does the heron migration use? I tried 6412": false,
		"heron migration port, use …":                          false, // cut short: it says more
		"":                                                     false,
		"ok thanks":                                            false, // holds none of the query's words
	} {
		if got := echoes(preview, stems); got != want {
			t.Errorf("echoes(%q) = %v, want %v", preview, got, want)
		}
	}
}

// The person asked the same question in three later sessions; the fourth
// time the answer, not the earlier copies, comes first, and the copies
// are shown once.
func TestAnswerBeatsEarlierCopiesOfTheQuestion(t *testing.T) {
	m := openTest(t)
	q := "what port does the heron migration use?"
	ss := []*funes.Session{conv("plan", funes.HarnessClaude, "Heron migration", "", day0,
		"Let's settle the details of the heron migration before Friday.", "Sure. The heron migration uses port 6412, and it runs after the backup window.")}
	ss = append(ss, background(120)...)
	for i := range 3 {
		ss = append(ss, conv(fmt.Sprintf("ask-%d", i), funes.HarnessClaudeCode, "", "", day0.Add(time.Duration(10+i)*24*time.Hour),
			q, "Recall found nothing useful."))
	}
	mustIngest(t, m, ss...)
	for _, k := range []int{3, 8} {
		res, err := Recall(context.Background(), m, Options{Query: q, K: k})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].SessionID != "plan" {
			t.Fatalf("K %d: first hit %+v, want the answer", k, res.Hits)
		}
		copies := 0
		for _, h := range res.Hits {
			if h.Text == q {
				copies++
				if h.Copies != 2 {
					t.Errorf("the question shown with %d copies, want 2", h.Copies)
				}
			}
		}
		if copies != 1 {
			t.Errorf("K %d: the question shown %d times, want once", k, copies)
		}
	}
	// Control: without the stage the copies come first.
	tn := DefaultTuning
	tn.Echo, tn.FoldCopies = 0, false
	res, err := Recall(context.Background(), m, Options{Query: q, K: 3, Tuning: &tn})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Text != q {
		t.Fatalf("control: %v %+v", err, res)
	}
}

// background is n conversations of everyday work talk, so words weigh as
// they do in a real memory: the question's function words are everywhere,
// its content words in a few.
func background(n int) []*funes.Session {
	var out []*funes.Session
	topics := []string{"the billing export", "a flaky test", "the release notes", "the staging database", "our on-call rota", "the port forwarding on my laptop", "the data migration for the reports"}
	for i := range n {
		tp := topics[i%len(topics)]
		out = append(out, conv(fmt.Sprintf("bg-%03d", i), funes.HarnessChatGPT, "Work", "", day0.Add(time.Duration(i)*time.Hour),
			fmt.Sprintf("What does the team use for %s, and what should I check first?", tp),
			fmt.Sprintf("For %s the usual first step is to look at what changed last; then check the logs and what the dashboards show.", tp)))
	}
	return out
}
