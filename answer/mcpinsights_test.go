package answer

import (
	"encoding/json"
	"reflect"
	"testing"
)

// MCPInsights cuts copies of the series it fits, never the caller's: a
// second call on the same counts panicked (its series shorter than its
// periods).
func TestMCPInsightsLeavesItsInput(t *testing.T) {
	in := InsightsOutput{Period: "month", Periods: []string{"2026-01", "2026-02", "2026-03"},
		BySource:  []InsightsSeries{{Name: "chatgpt", Conversations: []int{1, 2, 3}, Turns: []int{1, 2, 3}, Tokens: []int{9, 9, 9}}},
		ByProject: []InsightsSeries{{Name: "plant", Conversations: []int{1, 0, 1}, Turns: []int{1, 0, 1}, Tokens: []int{9, 0, 9}}},
		Agents:    []InsightsAccess{{Client: "a", Answered: []int{1, 1, 1}, NoMatch: []int{0, 0, 0}, Refused: []int{0, 0, 0}, Failed: []int{0, 0, 0}}}}
	before := clone(t, in)
	budget := budgetFor("insights of fewer periods", func(b int) bool {
		o, _ := MCPInsights(clone(t, in), b, countTokens)
		return len(o.Periods) == 1
	})
	first, text1 := MCPInsights(in, budget, countTokens)
	if !reflect.DeepEqual(in, before) {
		t.Fatalf("the input changed:\n%+v\nwas\n%+v", in, before)
	}
	second, text2 := MCPInsights(in, budget, countTokens)
	if text1 != text2 || !reflect.DeepEqual(first, second) {
		t.Errorf("two calls differ:\n%s\n%s", text1, text2)
	}
	if len(first.Periods) != 1 || len(first.BySource[0].Conversations) != 1 || first.BySource[0].Conversations[0] != 3 {
		t.Errorf("not cut to the newest period: %+v", first)
	}
}

func clone(t *testing.T, in InsightsOutput) InsightsOutput {
	t.Helper()
	var out InsightsOutput
	if err := json.Unmarshal([]byte(mustJSON(in)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
