package recall

import (
	"context"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// The best match is a question; its answer, which shares few of its words,
// comes right after it: in a plain conversation, and in an agent session
// where tool calls stand between the two.
func TestAnswerFollowsMatchingQuestion(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	agent := conv("agent", funes.HarnessClaudeCode, "Volunteer notes", "", day0.AddDate(0, 1, 0),
		"Which charity runs the coding workshops at the library on Saturdays?")
	agent.Turns = append(agent.Turns,
		funes.Turn{TurnUUID: "agent-t1", Seq: 1, TS: day0.AddDate(0, 1, 0), Role: funes.RoleAssistant, Blocks: []funes.Block{
			{Type: funes.BlockText, Text: "Let me look in the notes."}, {Type: funes.BlockToolUse, Text: `{"command":"rg -i saturday notes/"}`, ToolName: "Bash"}}},
		funes.Turn{TurnUUID: "agent-t2", Seq: 2, TS: day0.AddDate(0, 1, 0), Role: funes.RoleTool, Blocks: []funes.Block{
			{Type: funes.BlockToolResult, Text: "notes/2026-02.md: Brightside Trust, ages 9-14, room B", ToolName: "Bash"}}},
		funes.Turn{TurnUUID: "agent-t3", Seq: 3, TS: day0.AddDate(0, 1, 0), Role: funes.RoleAssistant, Blocks: []funes.Block{
			{Type: funes.BlockText, Text: "Brightside Trust: ages nine to fourteen, in room B."}}})
	mustIngest(t, m,
		conv("people", funes.HarnessChatGPT, "Catching up", "", day0,
			"Melanie said the community center started new programs for the kids. What kind of programs are they making?",
			"Mostly pottery and a junior robotics club on Tuesdays; Caroline signed up her son already.",
			"That sounds lovely, I'll ask about it."),
		agent,
		conv("other", funes.HarnessClaude, "Kids", "", day0, "The kids liked the programs at camp.", "Good to hear."))
	mustIngest(t, m, background(60)...)
	for _, c := range []struct{ q, question, answer string }{
		{"what kind of programs is the community center making for kids?", "people-t0", "people-t1"},
		{"which charity runs the Saturday coding workshops at the library?", "agent-t0", "agent-t3"},
	} {
		res, err := Recall(ctx, m, Options{Query: c.q, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) < 2 || res.Hits[0].TurnUUID != c.question || res.Hits[1].TurnUUID != c.answer {
			t.Fatalf("%q: hits %v, want the question %s then its answer %s", c.q, uuids(res.Hits), c.question, c.answer)
		}
		// Control: without the stage the answer is not second.
		tn := DefaultTuning
		tn.AnswerFollows = false
		off, err := Recall(ctx, m, Options{Query: c.q, K: 5, Tuning: &tn})
		if err != nil {
			t.Fatal(err)
		}
		if len(off.Hits) > 1 && off.Hits[1].TurnUUID == c.answer {
			t.Errorf("control %q: the answer is second without the stage too: %v", c.q, uuids(off.Hits))
		}
		// The next page goes on from the list with the answer in it.
		all, err := Recall(ctx, m, Options{Query: c.q, K: 6, Budget: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		page, err := Recall(ctx, m, Options{Query: c.q, K: 3, Offset: 3, Budget: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if a, p := uuids(all.Hits), uuids(page.Hits); len(a) == 6 && (len(p) != 3 || a[3] != p[0] || a[5] != p[2]) {
			t.Errorf("%q: page 2 %v is not the list's %v", c.q, p, a[3:])
		}
	}
}

func uuids(hs []Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.TurnUUID
	}
	return out
}

func TestAsks(t *testing.T) {
	long := make([]byte, askMaxBytes+10)
	for i := range long {
		long[i] = 'a'
	}
	terms := []weightedTerm{{stem: "program", word: "programs", idf: 2}, {stem: "kid", word: "kids", idf: 1}, {stem: "v261", word: "v261", idf: 3}}
	for _, c := range []struct {
		chunks []memory.Chunk
		want   bool
	}{
		{[]memory.Chunk{{Body: "What kind of programs are they making for the kids?", Searched: true}}, true},
		{[]memory.Chunk{{Body: "Melanie said they started programs for kids. What kind are they making?", Searched: true}}, false}, // the question holds none of it
		{[]memory.Chunk{{Body: "They make programs for kids.", Searched: true}}, false},
		{[]memory.Chunk{{Body: "For the record: the kids' programs moved to room B. Why is the heating off?", Searched: true}}, false}, // states, then asks something else
		{[]memory.Chunk{{Body: string(long) + " programs for kids?", Searched: true}}, false},                                          // a long reply offering more
		{[]memory.Chunk{{Body: `{"query":"programs for kids?"}`}, {Body: "Done.", Searched: true}}, false},                             // the question is plumbing
	} {
		if got := asks(&shownTurn{Chunks: c.chunks}, terms, false); got != c.want {
			t.Errorf("asks(%.50q) = %v, want %v", c.chunks[0].Body, got, c.want)
		}
	}
}
