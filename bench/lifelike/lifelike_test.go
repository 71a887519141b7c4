package lifelike

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestGenerateIsDeterministic(t *testing.T) {
	cfg := Config{N: 40, Seed: 7}
	a, b := t.TempDir(), t.TempDir()
	da, db := Generate(cfg), Generate(cfg)
	if !reflect.DeepEqual(da.Questions, db.Questions) {
		t.Fatal("same config, different questions")
	}
	if err := da.WriteExports(a); err != nil {
		t.Fatal(err)
	}
	if err := db.WriteExports(b); err != nil {
		t.Fatal(err)
	}
	fa, fb := readTree(t, a), readTree(t, b)
	if len(fa) == 0 || len(fa) != len(fb) {
		t.Fatalf("file counts differ: %d vs %d", len(fa), len(fb))
	}
	for p, body := range fa {
		if !bytes.Equal(body, fb[p]) {
			t.Errorf("%s differs between two runs", p)
		}
	}
	var qa, qb bytes.Buffer
	if err := da.WriteQuestions(&qa); err != nil {
		t.Fatal(err)
	}
	db.WriteQuestions(&qb)
	if qa.Len() == 0 || !bytes.Equal(qa.Bytes(), qb.Bytes()) {
		t.Error("questions.jsonl differs between two runs")
	}
	var q Question
	if err := json.Unmarshal(bytes.SplitN(qa.Bytes(), []byte("\n"), 2)[0], &q); err != nil || !reflect.DeepEqual(q, da.Questions[0]) {
		t.Errorf("first question does not round-trip: %v", err)
	}
	// Another seed is another history.
	dc := Generate(Config{N: 40, Seed: 8})
	if reflect.DeepEqual(da.Questions, dc.Questions) {
		t.Error("seed 7 and 8 gave the same questions")
	}
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestQuestionsHaveEveryTypeAndAnAnswerInTheGoldTurn(t *testing.T) {
	d := Generate(Config{N: 300, Seed: 1})
	per := map[string]int{}
	for _, q := range d.Questions {
		per[q.Type]++
		if q.Text == "" || q.Answer == "" || q.SessionID == "" || len(q.TurnUUIDs) != 1 {
			t.Fatalf("%s: incomplete question %+v", q.ID, q)
		}
	}
	seen := map[string]string{}
	for _, q := range d.Questions {
		if other, dup := seen[strings.ToLower(q.Text)]; dup {
			t.Errorf("%s and %s ask the same: %q", other, q.ID, q.Text)
		}
		seen[strings.ToLower(q.Text)] = q.ID
	}
	for _, typ := range Types {
		if per[typ] < perType(300)/2 {
			t.Errorf("%s: %d questions, want about %d", typ, per[typ], perType(300))
		}
	}
	byID := map[string]*convPlan{}
	for _, c := range d.convs {
		byID[c.harness+"/"+c.id] = c
	}
	for _, q := range d.Questions {
		c := byID[q.Harness+"/"+q.SessionID]
		if c == nil {
			t.Fatalf("%s: no conversation %s/%s", q.ID, q.Harness, q.SessionID)
		}
		cv := d.render(c)
		found := false
		for _, tu := range cv.turns {
			if tu.uuid != q.TurnUUIDs[0] {
				continue
			}
			found = true
			var all strings.Builder
			for _, b := range tu.blocks {
				all.WriteString(b.text)
			}
			if !strings.Contains(all.String(), q.Answer) {
				t.Errorf("%s: gold turn lacks the answer %q", q.ID, q.Answer)
			}
			switch q.Type {
			case TypeUserSaid:
				if tu.role != "user" {
					t.Errorf("%s: user-said evidence is a %s turn", q.ID, tu.role)
				}
			case TypeAssistantSaid:
				if tu.role != "assistant" {
					t.Errorf("%s: assistant-said evidence is a %s turn", q.ID, tu.role)
				}
			}
		}
		if !found {
			t.Errorf("%s: gold turn %s not in the conversation", q.ID, q.TurnUUIDs[0])
		}
		if q.Type == TypeNoID && idPattern.MatchString(q.Text) {
			t.Errorf("%s: noid question names an identifier: %q", q.ID, q.Text)
		}
		if (q.Type == TypeShort || q.Type == TypeLong) && !idPattern.MatchString(q.Text) {
			t.Errorf("%s: %s question names no identifier: %q", q.ID, q.Type, q.Text)
		}
	}
}

var idPattern = regexp.MustCompile(`\b[A-Z]{3}-\d+\b`)

// Questions without identifiers must not be answerable by one word that
// only the gold conversation has.
func TestNoIDQuestionsAreNotTriviallyUnique(t *testing.T) {
	d := Generate(Config{N: 400, Seed: 3})
	df := map[string]int{}
	convWords := map[int]map[string]bool{}
	for _, c := range d.convs {
		cv := d.render(c)
		set := map[string]bool{}
		for _, tu := range cv.turns {
			for _, b := range tu.blocks {
				for _, w := range words(b.text) {
					set[w] = true
				}
			}
		}
		for w := range set {
			df[w]++
		}
		convWords[c.idx] = set
	}
	idx := map[string]int{}
	for _, c := range d.convs {
		idx[c.harness+"/"+c.id] = c.idx
	}
	for _, typ := range []string{TypeNoID, TypeUserSaid} {
		n, trivial := 0, 0
		for _, q := range d.Questions {
			if q.Type != typ {
				continue
			}
			n++
			gold := idx[q.Harness+"/"+q.SessionID]
			shared := 0
			unique := false
			for _, w := range words(q.Text) {
				if convWords[gold][w] {
					shared++
					if df[w] == 1 {
						t.Logf("%s: %q only in the gold conversation", q.ID, w)
						unique = true
					}
				}
			}
			if shared < 2 {
				t.Errorf("%s: question shares %d words with its gold conversation: %q", q.ID, shared, q.Text)
			}
			if unique {
				trivial++
			}
		}
		if trivial*10 > n {
			t.Errorf("%s: %d of %d questions have a word only the gold conversation has", typ, trivial, n)
		}
		t.Logf("%s: %d questions, %d with a word unique to the gold", typ, n, trivial)
	}
}

var stop = map[string]bool{"the": true, "and": true, "what": true, "did": true, "was": true, "that": true, "for": true,
	"with": true, "you": true, "about": true, "when": true, "how": true, "say": true, "said": true, "does": true, "one": true,
	"this": true, "are": true, "our": true, "from": true, "had": true, "have": true, "again": true, "there": true, "its": true}

func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c >= 0x80)
	}) {
		w = strings.Trim(w, "-")
		if len(w) >= 3 && !stop[w] {
			out = append(out, w)
		}
	}
	return out
}

func TestExportFormats(t *testing.T) {
	dir := t.TempDir()
	d := Generate(Config{N: 80, Seed: 11})
	if err := d.WriteExports(dir); err != nil {
		t.Fatal(err)
	}
	// ChatGPT: a list of conversations whose current_node leads to the root.
	var gpt []struct {
		ID          string `json:"id"`
		CurrentNode string `json:"current_node"`
		Mapping     map[string]struct {
			Parent   *string  `json:"parent"`
			Children []string `json:"children"`
		} `json:"mapping"`
	}
	readJSON(t, filepath.Join(dir, ChatGPTDir, "conversations.json"), &gpt)
	if len(gpt) != d.Conversations[hChatGPT] {
		t.Errorf("chatgpt: %d conversations, want %d", len(gpt), d.Conversations[hChatGPT])
	}
	for _, c := range gpt {
		n, steps := c.CurrentNode, 0
		for ; n != "" && steps < 10000; steps++ {
			node, ok := c.Mapping[n]
			if !ok {
				t.Fatalf("chatgpt %s: node %s missing", c.ID, n)
			}
			if node.Parent == nil {
				break
			}
			n = *node.Parent
		}
		if n != "client-created-root" {
			t.Errorf("chatgpt %s: current_node does not lead to the root", c.ID)
		}
	}
	// Claude.ai: a list with chat_messages.
	var cl []struct {
		UUID         string `json:"uuid"`
		ChatMessages []struct {
			UUID    string           `json:"uuid"`
			Sender  string           `json:"sender"`
			Content []map[string]any `json:"content"`
		} `json:"chat_messages"`
	}
	readJSON(t, filepath.Join(dir, ClaudeDir, "conversations.json"), &cl)
	if len(cl) != d.Conversations[hClaude] {
		t.Errorf("claude: %d conversations, want %d", len(cl), d.Conversations[hClaude])
	}
	for _, c := range cl {
		if len(c.ChatMessages) == 0 || c.ChatMessages[0].Sender != "human" {
			t.Errorf("claude %s: does not start with the person", c.UUID)
		}
	}
	// Codex: sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl, envelopes.
	rollout := regexp.MustCompile(`^\d{4}/\d{2}/\d{2}/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[0-9a-f-]{36}\.jsonl$`)
	n := 0
	walkLines(t, filepath.Join(dir, CodexDir), func(rel string, i int, m map[string]any) {
		if !rollout.MatchString(filepath.ToSlash(rel)) {
			t.Fatalf("codex: bad path %s", rel)
		}
		if i == 0 {
			n++
			if m["type"] != "session_meta" {
				t.Errorf("codex %s: first line is %v", rel, m["type"])
			}
		}
		if m["timestamp"] == nil || m["payload"] == nil {
			t.Errorf("codex %s:%d: not an envelope", rel, i+1)
		}
	})
	if n != d.Conversations[hCodex] {
		t.Errorf("codex: %d sessions, want %d", n, d.Conversations[hCodex])
	}
	// Claude Code: <munged cwd>/<session>.jsonl, sub-agents beside it or
	// under <session>/subagents/; every parentUuid is a uuid of the same
	// file, and a sub-agent names its parent session.
	n = 0
	agents, warmups := 0, 0
	uuids := map[string]map[string]bool{}
	sessions := map[string]bool{}
	agentOf := map[string]string{}
	var parents [][2]string
	walkLines(t, filepath.Join(dir, ClaudeCodeDir), func(rel string, i int, m map[string]any) {
		agent := strings.HasPrefix(filepath.Base(rel), "agent-")
		if i == 0 {
			uuids[rel] = map[string]bool{}
			if agent {
				agents++
			} else {
				n++
				sessions[strings.TrimSuffix(filepath.Base(rel), ".jsonl")] = true
			}
		}
		if !strings.HasPrefix(filepath.ToSlash(rel), "-home-sam-") {
			t.Fatalf("claude code: bad path %s", rel)
		}
		if u, _ := m["uuid"].(string); u != "" {
			uuids[rel][u] = true
			sid, _ := m["sessionId"].(string)
			switch {
			case agent:
				agentOf[rel] = sid
				if m["isSidechain"] != true {
					t.Errorf("claude code %s: sub-agent record not on the sidechain", rel)
				}
			case !strings.HasSuffix(rel, sid+".jsonl"):
				t.Errorf("claude code %s: sessionId %s", rel, sid)
			}
			if msg, _ := m["message"].(map[string]any); agent && i == 0 && msg["content"] == "Warmup" {
				warmups++
			}
		}
		if p, _ := m["parentUuid"].(string); p != "" {
			parents = append(parents, [2]string{rel, p})
		}
	})
	for _, p := range parents {
		if !uuids[p[0]][p[1]] {
			t.Errorf("claude code %s: parent %s not in the file", p[0], p[1])
		}
	}
	for rel, sid := range agentOf {
		if !sessions[sid] {
			t.Errorf("claude code %s: parent session %s not written", rel, sid)
		}
	}
	if n != d.Conversations[hClaudeCode] || agents-warmups != d.SubAgents {
		t.Errorf("claude code: %d sessions and %d sub-agents, want %d and %d", n, agents-warmups, d.Conversations[hClaudeCode], d.SubAgents)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func walkLines(t *testing.T, dir string, f func(rel string, i int, m map[string]any)) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fh, err := os.Open(p)
		if err != nil {
			return err
		}
		defer fh.Close()
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for i := 0; sc.Scan(); i++ {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("%s:%d: %v", rel, i+1, err)
			}
			f(rel, i, m)
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}
