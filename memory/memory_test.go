package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func openTest(t *testing.T) *Memory {
	t.Helper()
	m, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// conv makes a session whose turns alternate user and assistant, a day apart from start.
func conv(id, harness, title, project string, start time.Time, texts ...string) *Session {
	s := &Session{ID: id, Harness: harness, Title: title, Project: project}
	for i, tx := range texts {
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		s.Turns = append(s.Turns, Turn{
			TurnUUID: fmt.Sprintf("%s-t%d", id, i), Seq: i, TS: start.Add(time.Duration(i) * time.Minute), Role: role,
			Blocks: []Block{{Type: BlockText, Text: tx}},
		})
	}
	return s
}

var day0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func mustIngest(t *testing.T, m *Memory, ss ...*Session) IngestReport {
	t.Helper()
	rep, err := m.Ingest(context.Background(), ss, IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// grepDir reports every file under dir whose bytes contain marker, in any case.
func grepDir(t *testing.T, dir, marker string) []string {
	t.Helper()
	var found []string
	low := bytes.ToLower([]byte(marker))
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil && bytes.Contains(bytes.ToLower(data), low) {
			found = append(found, p)
		}
		return nil
	})
	return found
}

func TestRoundTripFunesJSONL(t *testing.T) {
	s := conv("abc", HarnessCodex, "A title", "proj", day0, "hello", "world")
	s.Workdir = "/home/x/proj"
	s.Turns[1].Blocks = append(s.Turns[1].Blocks, Block{Type: BlockToolUse, Text: "ls -la", ToolName: "shell"})
	data, err := MarshalSession(s)
	if err != nil {
		t.Fatal(err)
	}
	// Unknown fields are ignored on read.
	data = bytes.Replace(data, []byte(`"seq":0,`), []byte(`"seq":0,"extra":{"x":1},`), 1)
	got, st, err := ReadSessions(bytes.NewReader(data))
	if err != nil || st.Bad != 0 || len(got) != 1 {
		t.Fatalf("read: %v %+v %d", err, st, len(got))
	}
	again, _ := MarshalSession(got[0])
	want, _ := MarshalSession(s)
	if !bytes.Equal(again, want) {
		t.Fatalf("round trip differs:\n%s\n%s", again, want)
	}
}

func TestReaderSkipsBadLines(t *testing.T) {
	good, _ := MarshalSession(conv("ok", "funes", "", "", day0, "fine line"))
	cases := map[string]string{
		"truncated":   `{"session_id":"x","seq":1,"blocks":[{"block_type":"text","te`,
		"not json":    `hello there`,
		"wrong types": `{"session_id":5,"seq":"one"}`,
		"no id":       `{"seq":1,"role":"user","blocks":[]}`,
		"non-utf8":    "{\"session_id\":\"ok\",\"seq\":2,\"blocks\":[{\"text\":\"\xff\xfe\"}]}",
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			in := string(good) + bad + "\n"
			ss, st, err := ReadSessions(strings.NewReader(in))
			if err != nil || len(ss) != 1 || len(ss[0].Turns) != 1 || st.Bad != 1 {
				t.Fatalf("got %v, %d sessions, stats %+v", err, len(ss), st)
			}
		})
	}
	if _, _, err := ReadSessions(strings.NewReader("")); !errors.Is(err, ErrNoTurns) {
		t.Fatalf("empty input: %v", err)
	}
}

func TestIngestIdempotentAndReplace(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	s := conv("s1", HarnessChatGPT, "Pumps", "", day0, "the seal on pump P-003 leaks", "raised work order MT-4471")
	if r := mustIngest(t, m, s); r.New != 1 {
		t.Fatalf("first import: %+v", r)
	}
	if r := mustIngest(t, m, s); r.Unchanged != 1 || r.New != 0 {
		t.Fatalf("second import: %+v", r)
	}
	grown := conv("s1", HarnessChatGPT, "Pumps", "", day0, "the seal on pump P-003 leaks", "raised work order MT-4471", "thanks, closing ZZTOPMARK")
	if r := mustIngest(t, m, grown); r.Updated != 1 {
		t.Fatalf("grown import: %+v", r)
	}
	res, err := m.Recall(ctx, RecallOptions{Query: "ZZTOPMARK"})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("recall after update: %v %+v", err, res)
	}
	st, _ := m.Status(ctx)
	if st.Conversations != 1 || st.Turns != 3 {
		t.Fatalf("status: %+v", st)
	}
}

func TestIdentifiersFoundAsTyped(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m,
		conv("a", "funes", "", "", day0, "Ticket MT-4471 covers the seal.", "ok"),
		conv("b", "funes", "", "", day0, "Decision N-11: ship on Friday.", "ok"),
		conv("c", "funes", "", "", day0, "Pump P-003 again, see DR-512.", "ok"),
		conv("d", "funes", "", "", day0, "Reject rate was 3.4% this week.", "ok"),
		conv("e", "funes", "", "", day0, "Ticket MT 4471 is unrelated noise? no: MT-9999.", "ok"),
	)
	for q, want := range map[string]string{"MT-4471": "a", "N-11": "b", "P-003": "c", "DR-512": "c", "3.4%": "d", "mt4471": "a"} {
		res, err := m.Recall(ctx, RecallOptions{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].SessionID != want {
			t.Errorf("%s: want %s first, got %+v", q, want, res.Hits)
		}
	}
}

func TestRecallBudgetAndFlagsQuery(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	var ss []*Session
	for i := 0; i < 30; i++ {
		ss = append(ss, conv(fmt.Sprintf("c%d", i), "funes", "budget talk", "", day0.Add(time.Duration(i)*time.Hour),
			strings.Repeat("budget planning words for the quarter ", 20), "we agreed on the budget", "fine"))
	}
	mustIngest(t, m, ss...)
	for _, b := range []int{50, 120, 300, 1000} {
		res, err := m.Recall(ctx, RecallOptions{Query: "budget", Budget: b, K: 20})
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, h := range res.Hits {
			sum += h.Tokens
		}
		if sum > b || res.TotalTokens != sum {
			t.Fatalf("budget %d: hits sum %d total %d", b, sum, res.TotalTokens)
		}
		if len(res.Hits)+res.Cut != 20 {
			t.Fatalf("budget %d: %d hits + %d cut", b, len(res.Hits), res.Cut)
		}
	}
	res, err := m.Recall(ctx, RecallOptions{Query: "-k 100 budget"})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("flag-like query: %v", err)
	}
	long := strings.Repeat("budget ", 400)
	if res, err = m.Recall(ctx, RecallOptions{Query: long}); err != nil || len([]rune(res.Query)) > MaxQueryRunes {
		t.Fatalf("long query: %v %d", err, len(res.Query))
	}
	for _, q := range []string{`"unbalanced`, `NEAR(a b)`, `a OR AND NOT`, `*`, `title:x`} {
		if _, err := m.Recall(ctx, RecallOptions{Query: q}); err != nil && !errors.Is(err, ErrEmptyQuery) {
			t.Fatalf("query %q: %v", q, err)
		}
	}
}

func TestRecencyNeverBeatsClearlyBetter(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	old := conv("old", "funes", "Compressor K-039", "", day0.AddDate(-2, 0, 0),
		"The vibration alarm on compressor K-039 keeps coming back; vibration alarm again on K-039.", "Replace the bearing on K-039.")
	weak := conv("new", "funes", "Lunch", "", day0,
		"Lunch was fine. Someone mentioned a compressor in passing.", "ok")
	mustIngest(t, m, old, weak)
	res, err := m.Recall(ctx, RecallOptions{Query: "compressor K-039 vibration alarm"})
	if err != nil || len(res.Hits) < 2 {
		t.Fatalf("%v %+v", err, res)
	}
	if res.Hits[0].SessionID != "old" {
		t.Fatalf("recency pushed a weak new match first: %+v", res.Hits[0])
	}
	// Between equal matches, the newer wins.
	a := conv("w1", "funes", "", "", day0.AddDate(0, 0, -14), "Line 4 reject rate this week: 2.9%", "noted")
	b := conv("w2", "funes", "", "", day0.AddDate(0, 0, -7), "Line 4 reject rate this week: 3.1%", "noted")
	mustIngest(t, m, a, b)
	res, _ = m.Recall(ctx, RecallOptions{Query: "line 4 reject rate"})
	if res.Hits[0].SessionID != "w2" {
		t.Fatalf("newer equal match should win: %+v", res.Hits[0].SessionID)
	}
}

func TestProjectFilterAndScope(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m,
		conv("p1", HarnessCodex, "", "alpha", day0, "deploy the gateway service", "done"),
		conv("p2", HarnessCodex, "", "beta", day0, "deploy the gateway service too", "done"),
		conv("u1", HarnessChatGPT, "", "", day0, "how do I deploy a gateway", "like this"),
	)
	res, err := m.Recall(ctx, RecallOptions{Query: "deploy gateway", Project: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, h := range res.Hits {
		got[h.SessionID] = true
	}
	if !got["p1"] || !got["u1"] || got["p2"] {
		t.Fatalf("project alpha + untagged: %v", got)
	}
	res, _ = m.Recall(ctx, RecallOptions{Query: "deploy gateway", Scope: []string{"beta"}})
	if len(res.Hits) != 1 || res.Hits[0].SessionID != "p2" {
		t.Fatalf("scope beta: %+v", res.Hits)
	}
	if _, err := m.Get(ctx, GetOptions{SessionID: "p1", Scope: []string{"beta"}}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get out of scope: %v", err)
	}
	// Tags: untag the derived project, tag another, rename.
	if err := m.Untag(ctx, "p1", "alpha"); err != nil {
		t.Fatal(err)
	}
	if err := m.Tag(ctx, "p1", "gamma"); err != nil {
		t.Fatal(err)
	}
	if err := m.RenameProject(ctx, "gamma", "delta"); err != nil {
		t.Fatal(err)
	}
	ps, untagged, _ := m.Projects(ctx, nil)
	if fmt.Sprint(ps) != "[{beta 1} {delta 1}]" || untagged != 1 {
		t.Fatalf("projects: %v untagged %d", ps, untagged)
	}
	// A re-import does not bring back the untagged derived project.
	mustIngest(t, m, conv("p1", HarnessCodex, "", "alpha", day0, "deploy the gateway service", "done", "more"))
	ps, _, _ = m.Projects(ctx, nil)
	if fmt.Sprint(ps) != "[{beta 1} {delta 1}]" {
		t.Fatalf("projects after re-import: %v", ps)
	}
}

func TestForgetErasesEverywhere(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	const marker = "QuokkaMarker7781"
	keep := conv("keep", HarnessClaude, "Kept", "", day0, "an unrelated talk about tea", "tea is good")
	gone := conv("gone", HarnessClaude, "Secret plans "+marker, "", day0, "my plan involves "+marker+" and more", "noted "+marker)
	mustIngest(t, m, keep, gone)
	if len(grepDir(t, m.Dir(), marker)) == 0 {
		t.Fatal("marker should be stored before forget")
	}
	rep, err := m.Forget(ctx, []string{"gone"}, nil)
	if err != nil || len(rep.Sessions) != 1 || rep.Files != 1 {
		t.Fatalf("forget: %v %+v", err, rep)
	}
	if found := grepDir(t, m.Dir(), marker); len(found) > 0 {
		t.Fatalf("marker still in %v", found)
	}
	if r := mustIngest(t, m, gone); r.Forgotten != 1 || r.New != 0 {
		t.Fatalf("re-import brought it back: %+v", r)
	}
	if found := grepDir(t, m.Dir(), marker); len(found) > 0 {
		t.Fatalf("marker back in %v", found)
	}
	r, err := m.Ingest(ctx, []*Session{gone}, IngestOptions{IncludeForgotten: true})
	if err != nil || r.New != 1 {
		t.Fatalf("include forgotten: %v %+v", err, r)
	}
	if _, err := m.Forget(ctx, []string{"nope"}, nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestReindexKeepsCatalog(t *testing.T) {
	m := openTest(t)
	ctx := context.Background()
	mustIngest(t, m, conv("r1", HarnessCodex, "", "alpha", day0, "reindex me please", "sure"))
	m.Star(ctx, "r1", true)
	m.Tag(ctx, "r1", "beta")
	rep, err := m.Reindex(ctx, nil)
	if err != nil || rep.Sessions != 1 {
		t.Fatalf("reindex: %v %+v", err, rep)
	}
	list, total, err := m.Sessions(ctx, SessionQuery{})
	if err != nil || total != 1 || !list[0].Starred || fmt.Sprint(list[0].Projects) != "[alpha beta]" {
		t.Fatalf("after reindex: %v %+v", err, list)
	}
	if r := mustIngest(t, m, conv("r1", HarnessCodex, "", "alpha", day0, "reindex me please", "sure")); r.Unchanged != 1 {
		t.Fatalf("reindexed hash differs: %+v", r)
	}
}

func TestHostileSessionIDsStayInSrc(t *testing.T) {
	m := openTest(t)
	mustIngest(t, m, conv("../../etc/passwd", "../x", "", "", day0, "hi", "there"))
	filepath.WalkDir(filepath.Dir(m.Dir()), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".funes.jsonl") && !strings.HasPrefix(p, filepath.Join(m.Dir(), SrcDir)) {
			t.Errorf("file escaped src/: %s", p)
		}
		return nil
	})
}

func FuzzReadSessions(f *testing.F) {
	good, _ := MarshalSession(conv("f", "funes", "t", "p", day0, "a", "b"))
	f.Add(good)
	f.Add([]byte(`{"session_id":"x"`))
	f.Add([]byte("\x00\x00\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, _, err := ReadSessions(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, s := range ss {
			if _, err := MarshalSession(s); err != nil {
				t.Fatal(err)
			}
		}
	})
}
