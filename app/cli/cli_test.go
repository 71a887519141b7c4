package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/recall"
)

// run runs the CLI in process and returns the exit code and both streams.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// seed makes a memory with a few conversations and returns its directory.
// chatSession is a ChatGPT conversation whose texts alternate the person
// and the assistant, a minute apart from at.
func chatSession(id, title, project string, at time.Time, texts ...string) *funes.Session {
	s := &funes.Session{ID: id, Harness: funes.HarnessChatGPT, Title: title, Project: project}
	for i, text := range texts {
		role := []string{funes.RoleUser, funes.RoleAssistant}[i%2]
		s.Turns = append(s.Turns, funes.Turn{TurnUUID: fmt.Sprintf("%s-%d", id, i), Seq: i, TS: at.Add(time.Duration(i) * time.Minute), Role: role,
			Blocks: []funes.Block{{Type: funes.BlockText, Text: text}}})
	}
	return s
}

// storeSessions stores ss in the memory at dir, as an import with scrub
// off stores them, and closes it.
func storeSessions(t *testing.T, dir string, ss ...*funes.Session) {
	t.Helper()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Ingest(context.Background(), ss, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
}

func seed(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	day := time.Date(2026, 10, 8, 9, 14, 0, 0, time.UTC)
	var ss []*funes.Session
	for i := 0; i < 12; i++ {
		project := []string{"plant-ops", "web", ""}[i%3]
		s := &funes.Session{ID: fmt.Sprintf("conv-%02d", i), Harness: funes.HarnessChatGPT, Title: fmt.Sprintf("Talk %d", i), Project: project}
		texts := []string{
			fmt.Sprintf("What did we decide about N-%d and the pump seal?", 10+i),
			fmt.Sprintf("We decided N-%d: replace the seal on pump P-%03d and log ticket MT-%d. %s", 10+i, i, 4400+i, strings.Repeat("Details about the seal and the pump. ", 10)),
			"Thanks, that settles it.",
		}
		for j, tx := range texts {
			role := funes.RoleUser
			if j == 1 {
				role = funes.RoleAssistant
			}
			s.Turns = append(s.Turns, funes.Turn{TurnUUID: fmt.Sprintf("%s-t%d", s.ID, j), Seq: j, TS: day.Add(time.Duration(i)*time.Hour + time.Duration(j)*time.Minute), Role: role,
				Blocks: []funes.Block{{Type: funes.BlockText, Text: tx}}})
		}
		ss = append(ss, s)
	}
	storeSessions(t, dir, ss...)
	return dir
}

func TestRecallJSONContractAndBudget(t *testing.T) {
	dir := seed(t)
	code, out, errs := run(t, "--memory", dir, "recall", "--json", "N-11 decision")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Query        string `json:"query"`
		ContextBlock string `json:"context_block"`
		TotalTokens  int    `json:"total_tokens"`
		Budget       int    `json:"budget"`
		Cut          int    `json:"cut"`
		Hits         []struct {
			SessionID string            `json:"session_id"`
			TurnUUID  string            `json:"turn_uuid"`
			Seq       int               `json:"seq"`
			TS        string            `json:"ts"`
			Role      string            `json:"role"`
			Source    string            `json:"source"`
			Title     string            `json:"title"`
			Projects  []string          `json:"projects"`
			Text      string            `json:"text"`
			Neighbors []json.RawMessage `json:"neighbors"`
			Score     float64           `json:"score"`
			Signals   map[string]float64
			Tokens    int `json:"tokens"`
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	if res.Budget != 2000 || len(res.Hits) == 0 || res.Hits[0].SessionID != "conv-01" || res.ContextBlock == "" {
		t.Fatalf("unexpected result: %+v", res)
	}
	h := res.Hits[0]
	if h.TS == "" || h.Source != "chatgpt" || len(h.Neighbors) == 0 || h.Tokens == 0 || h.Signals == nil {
		t.Fatalf("hit lacks fields: %+v", h)
	}
	for _, budget := range []string{"300", "60", "1"} {
		code, out, _ = run(t, "--memory", dir, "recall", "--budget", budget, "--json", "-k", "12", "seal pump")
		if code != 0 {
			t.Fatalf("budget %s: exit %d", budget, code)
		}
		json.Unmarshal([]byte(out), &res)
		sum := 0
		for _, h := range res.Hits {
			sum += h.Tokens
		}
		var b int
		fmt.Sscan(budget, &b)
		if sum > b {
			t.Fatalf("budget %s: hits sum to %d tokens", budget, sum)
		}
	}
}

func TestRecallScopedByProject(t *testing.T) {
	dir := seed(t)
	_, out, _ := run(t, "--memory", dir, "recall", "--json", "-k", "50", "--project", "plant-ops", "seal pump")
	var res recall.Result
	json.Unmarshal([]byte(out), &res)
	if len(res.Hits) == 0 {
		t.Fatal("no hits")
	}
	for _, h := range res.Hits {
		if len(h.Projects) > 0 && (len(h.Projects) != 1 || h.Projects[0] != "plant-ops") {
			t.Fatalf("out-of-project hit: %+v", h)
		}
	}
}

func TestFlagLikeQueryIsText(t *testing.T) {
	dir := seed(t)
	code, _, errs := run(t, "--memory", dir, "recall", "seal", "-k", "100")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

func TestExitCodes(t *testing.T) {
	dir := seed(t)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--memory", dir, "recall"}, 2},
		{[]string{"--memory", dir, "nonsense"}, 2},
		{[]string{"--memory", dir, "token", "frobnicate"}, 2},
		{[]string{"--memory", dir, "completion", "frobnicate"}, 2},
		{[]string{"--memory", dir, "status", "extra"}, 2},
		{[]string{"--memory", dir, "get"}, 2},
		{[]string{"--memory", dir, "--bogus", "status"}, 2},
		{[]string{"--memory", dir, "recall", "-k", "many", "x"}, 2},
		{[]string{"--memory", dir, "recall", "--json", "-k"}, 2},
		{[]string{"--memory", dir, "recall", "--since", "yesterday-ish", "x"}, 2},
		{[]string{"--memory", dir, "forget", "conv-01"}, 2}, // not a terminal, no --yes
		{[]string{"--memory", dir, "get", "no-such-conversation"}, 1},
		{[]string{"--memory", dir, "tag", "no-such-conversation", "x"}, 1},
		{[]string{"--memory", dir, "status"}, 0},
		{[]string{"--memory", dir, "token"}, 0},
		{[]string{"token", "--memory", dir}, 0},
	} {
		if code, _, errs := run(t, c.args...); code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.code, errs)
		} else if c.code != 0 && !strings.HasPrefix(errs, "ireneo: ") {
			t.Errorf("%v: stderr %q", c.args, errs)
		}
	}
}

func TestCatalogCommands(t *testing.T) {
	dir := seed(t)
	steps := [][]string{
		{"tag", "conv-02", "new-proj"},
		{"untag", "conv-00", "plant-ops"},
		{"star", "conv-02"},
		{"projects", "rename", "new-proj", "renamed"},
		{"reindex"},
	}
	for _, s := range steps {
		if code, _, errs := run(t, append([]string{"--memory", dir}, s...)...); code != 0 {
			t.Fatalf("%v: %s", s, errs)
		}
	}
	_, out, _ := run(t, "--memory", dir, "projects", "--json")
	if !strings.Contains(out, `"renamed"`) || strings.Contains(out, `"new-proj"`) {
		t.Fatalf("projects: %s", out)
	}
	_, out, _ = run(t, "--memory", dir, "sessions", "--starred", "--json")
	if !strings.Contains(out, `"conv-02"`) || !strings.Contains(out, `"total": 1`) {
		t.Fatalf("sessions --starred: %s", out)
	}
	code, out, _ := run(t, "--memory", dir, "get", "conv-03", "conv-03-t1", "--window", "1")
	if code != 0 || !strings.Contains(out, "> [1]") {
		t.Fatalf("get: %s", out)
	}
	code, out, errs := run(t, "--memory", dir, "forget", "--yes", "conv-03")
	if code != 0 || !strings.Contains(out, "forgot chatgpt conv-03") {
		t.Fatalf("forget: %d %s %s", code, out, errs)
	}
	if !strings.Contains(out, "No other conversation kept a quote of them in Ireneo's answers.") {
		t.Fatalf("forget of a conversation nobody quoted should say so: %s", out)
	}
	_, out, _ = run(t, "--memory", dir, "status", "--json")
	if !strings.Contains(out, `"conversations": 11`) || !strings.Contains(out, `"forgotten": 1`) {
		t.Fatalf("status: %s", out)
	}
}

// Flags after the query work as they do before it (people and agents write
// `ireneo recall "seal pump" --json -k 1`); other dash words stay words, and
// after -- every word is searched.
func TestRecallTakesFlagsAfterQuery(t *testing.T) {
	dir := seed(t)
	code, out, errs := run(t, "--memory", dir, "recall", "seal pump", "--budget=300", "-k", "1", "--json")
	var res recall.Result
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	if res.Query != "seal pump" || len(res.Hits) != 1 {
		t.Fatalf("query %q, %d hits; want \"seal pump\" and -k 1's one", res.Query, len(res.Hits))
	}
	if errs != "" {
		t.Errorf("stderr %q", errs)
	}
	// A dash word that is not recall's flag is a word.
	code, out, errs = run(t, "--memory", dir, "recall", "--json", "pump", "-5", "seal")
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Query != "pump -5 seal" {
		t.Fatalf("exit %d %s: query %q; want \"pump -5 seal\"", code, errs, res.Query)
	}
	// After --, or with the query after one, flags are words.
	for _, args := range [][]string{{"seal", "--", "--json"}, {"--", "seal", "--json"}} {
		code, out, errs = run(t, append([]string{"--memory", dir, "recall"}, args...)...)
		if code != 0 || !strings.Contains(out, `"seal --json"`) {
			t.Fatalf("%v: exit %d %s; want the query \"seal --json\" searched as text:\n%s", args, code, errs, strings.SplitN(out, "\n", 2)[0])
		}
	}
	// A flag with no value says how to search for it as a word.
	code, _, errs = run(t, "--memory", dir, "recall", "what does grep", "-k")
	if code != ExitUsage || !strings.Contains(errs, "-k needs a value") || !strings.Contains(errs, "start the query with --") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// --now is the time of asking that the query's own dates resolve against.
func TestRecallNowResolvesTheQuerysDates(t *testing.T) {
	dir := t.TempDir()
	var ss []*funes.Session
	for i, meal := range []string{"a lentil soup", "a saffron paella", "fish tacos"} {
		at := time.Date(2026, 5, 7+i, 19, 0, 0, 0, time.UTC)
		ss = append(ss, chatSession(fmt.Sprintf("food-%d", i), "Food log", "", at, "Food log: tonight I ate "+meal+".", "Noted."))
	}
	ss = append(ss, chatSession("food-2025", "Food log", "", time.Date(2025, 5, 8, 19, 0, 0, 0, time.UTC), "Food log: tonight I ate a pizza.", "Noted."))
	storeSessions(t, dir, ss...)
	for now, want := range map[string]string{"2026-06-10": "food-1", "2026-01-15": "food-2025"} {
		code, out, errs := run(t, "--memory", dir, "recall", "--json", "--now", now, "what did I eat on 8 May?")
		var res recall.Result
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Hits) == 0 || res.Hits[0].SessionID != want {
			t.Fatalf("--now %s: exit %d %s, hits %+v; want %s first", now, code, errs, res.Hits, want)
		}
	}
	if code, _, errs := run(t, "--memory", dir, "recall", "--now", "soon", "dinner"); code == 0 || !strings.Contains(errs, "--now") {
		t.Fatalf("a bad --now: exit %d, %q", code, errs)
	}
}
