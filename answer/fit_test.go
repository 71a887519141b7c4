package answer

import (
	"strings"
	"testing"
	"time"
)

func TestFitRecallTable(t *testing.T) {
	hit := func(seq int, text string) Hit {
		return Hit{SessionID: "s", TurnUUID: "u", Seq: seq, TS: time.Unix(0, 0), Role: "user", Source: "chatgpt", Text: text,
			Neighbors: []Neighbor{{Seq: seq + 1, Role: "assistant", Text: "a neighbour"}}}
	}
	long := strings.Repeat("word ", 400)
	short := hit(0, "short")
	one := entryTokens(1, &short, countTokens)
	for _, c := range []struct {
		name      string
		hits      []Hit
		budget    int
		wantHits  int
		wantCut   int
		truncated bool
	}{
		{"all fit", []Hit{hit(0, "short"), hit(2, "short too")}, 2000, 2, 0, false},
		{"second cut when too little room is left to trim into", []Hit{hit(0, "short"), hit(2, long)}, one + cliMinTrim - 1, 1, 1, false},
		{"long one trimmed into the room left", []Hit{hit(0, long)}, 200, 1, 0, true},
		{"nothing fits", []Hit{hit(0, long)}, 20, 0, 1, false},
	} {
		res := FitRecall("q", c.hits, c.budget, countTokens)
		if len(res.Hits) != c.wantHits || res.Cut != c.wantCut || res.TotalTokens > c.budget {
			t.Errorf("%s: %d hits, %d cut, %d tokens of %d; want %d hits, %d cut", c.name, len(res.Hits), res.Cut, res.TotalTokens, c.budget, c.wantHits, c.wantCut)
			continue
		}
		if c.truncated && (!res.Hits[0].Truncated || len(res.Hits[0].Neighbors) != 0) {
			t.Errorf("%s: want the passage trimmed and its neighbours dropped: %+v", c.name, res.Hits[0])
		}
	}
}

// The fit ends for every budget, even when a short text is a token over
// and trimming it would only swap its tail for " …" (it used to loop
// forever there: the MCP tool error in bench-speed).
func TestFitRecallEndsOnShortTexts(t *testing.T) {
	h := Hit{SessionID: "01a10282-1d20-7ed5-b81e-1d7704244d73", TurnUUID: "01a10282-1d20-7ed5-b81e-1d7704244d73-0",
		Role: "user", Source: "codex", Title: "Meeting notes on the logging setup for beacon, for the record: we…",
		Projects: []string{"beacon"}, Neighbors: []Neighbor{}}
	for _, text := range []string{"ok", "the logging setup", "structured JSON logs with ids", "x y z w v u t s r q p o n m"} {
		for budget := cliMinTrim; budget < 200; budget++ {
			done := make(chan struct{})
			go func() {
				defer close(done)
				hh := h
				hh.Text = text
				res := FitRecall("q", []Hit{hh, hh}, budget, countTokens)
				if res.TotalTokens > budget {
					t.Errorf("budget %d: %d tokens", budget, res.TotalTokens)
				}
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("FitRecall(%q, %d) does not end", text, budget)
			}
		}
	}
}
