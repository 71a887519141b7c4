package answer

import "time"

// RecallResult is recall's answer as the CLI (`recall --json`) and the GUI
// have it: the context block for an agent and the structured hits behind
// it, both within the budget.
type RecallResult struct {
	Query        string `json:"query"`
	ContextBlock string `json:"context_block"`
	TotalTokens  int    `json:"total_tokens"`
	Budget       int    `json:"budget"`
	Cut          int    `json:"cut"`
	Hits         []Hit  `json:"hits"`
}

// Hit is one recalled passage with its receipt (SessionID, TurnUUID).
type Hit struct {
	SessionID string     `json:"session_id"`
	TurnUUID  string     `json:"turn_uuid"`
	Seq       int        `json:"seq"`
	TS        time.Time  `json:"ts"`
	Role      string     `json:"role"`
	Source    string     `json:"source"`
	Title     string     `json:"title"`
	Projects  []string   `json:"projects"`
	Text      string     `json:"text"`
	Neighbors []Neighbor `json:"neighbors"`
	Score     float64    `json:"score"`
	Signals   Signals    `json:"signals"`
	Tokens    int        `json:"tokens"`
	Truncated bool       `json:"truncated,omitempty"`
	// Copies counts the turns of other conversations that say the same
	// (the same question asked again), shown once as this hit.
	Copies int `json:"copies,omitempty"`

	// TextTokens is Text's o200k count as stored at import, 0 if unknown:
	// the budget then counts only the frame around the text.
	TextTokens int `json:"-"`
}

// Neighbor is a short preview of the turn before or after a hit.
type Neighbor struct {
	Seq  int    `json:"seq"`
	Role string `json:"role"`
	Text string `json:"text"`
}

// Signals are the parts of a hit's score.
type Signals struct {
	BM25       float64 `json:"bm25"`
	Recency    float64 `json:"recency"`
	Importance float64 `json:"importance"`
}

// FitRecall keeps the ranked hits that fit budget tokens as the context
// block counts them (Fit's rules) and renders the block: recall's answer
// for the CLI and the GUI.
func FitRecall(query string, hits []Hit, budget int, count Count) *RecallResult {
	res := &RecallResult{Query: query, Budget: budget, Hits: []Hit{}}
	used := newUse(budget, 1)
	res.Hits, res.Cut = fitHits(hits, &used, cliMinTrim, func(n int, h *Hit) costs {
		h.Tokens = entryTokens(n, h, count)
		return costs{h.Tokens}
	})
	res.TotalTokens = used.used[0]
	res.ContextBlock = contextBlock(query, res)
	return res
}

// entryTokens counts a hit's entry in the context block. The passage's own
// count was stored at import, so only the frame around it is counted here;
// a token of slack per seam keeps the sum from ever undercounting the whole.
func entryTokens(n int, h *Hit, count Count) int {
	if h.TextTokens == 0 {
		return count(hitEntry(n, *h))
	}
	frame := *h
	frame.Text = ""
	return count(hitEntry(n, frame)) + h.TextTokens + 2
}

// The hits of both recall forms are fitted by fitHits.
func (h *Hit) dropNeighbours() { h.Neighbors = []Neighbor{} }
func (h *Hit) passage() string { return h.Text }
func (h *Hit) shorten(text string) {
	h.Text, h.Truncated, h.TextTokens = text, true, 0
}
