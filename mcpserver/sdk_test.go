package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/o200k"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// sdkDir is the official TypeScript SDK that `make deps` installs beside
// the inspector ($IRENEO_SDK overrides it).
func sdkDir(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH; `make deps` installs it")
	}
	dir = os.Getenv("IRENEO_SDK")
	if dir == "" {
		dir, _ = filepath.Abs(filepath.Join("..", ".tools", "node_modules", "@modelcontextprotocol", "sdk"))
	}
	if _, err := os.Stat(filepath.Join(dir, "dist", "esm", "client", "index.js")); err != nil {
		t.Skipf("the TypeScript MCP SDK is not at %s; `make deps` installs it", dir)
	}
	return node, dir
}

type sdkLine struct {
	Event      string         `json:"event"`
	Name       string         `json:"name"`
	Arguments  map[string]any `json:"arguments"`
	IsError    bool           `json:"isError"`
	Structured *string        `json:"structured"`
	Text       string         `json:"text"`
	Session    *string        `json:"session"`
	After      string         `json:"after"`
}

// runSDK runs testdata/sdkclient.mjs with env and returns its lines.
func runSDK(t *testing.T, env map[string]string, calls []map[string]any) []sdkLine {
	t.Helper()
	node, dir := sdkDir(t)
	cj, _ := json.Marshal(calls)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "sdkclient.mjs"))
	cmd.Env = append(os.Environ(), "IRENEO_SDK="+dir, "CALLS="+string(cj))
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sdk client: %v\n%s\n%s", err, out, stderr.String())
	}
	var lines []sdkLine
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	for sc.Scan() {
		var l sdkLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("sdk output line %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	return lines
}

var sdkBudgets = []int{300, 2000, 8000}

func sdkCalls() []map[string]any {
	var calls []map[string]any
	for _, b := range sdkBudgets {
		calls = append(calls, map[string]any{"name": ToolRecall, "arguments": map[string]any{"query": "GASKET seal", "top_k": 50, "token_budget": b}})
	}
	calls = append(calls,
		map[string]any{"name": ToolGet, "arguments": map[string]any{"session_id": "conv-gasket-07", "turn_uuid": "g07-06", "window": 25, "token_budget": 2000}},
		map[string]any{"name": ToolSessions, "arguments": map[string]any{"limit": 200, "token_budget": 300}},
	)
	return calls
}

// checkSDKBudgets: each recall's serialized structuredContent and text fit
// the budget asked for, as the official client received them, and the
// notice and paging hints are in the structured result.
func checkSDKBudgets(t *testing.T, lines []sdkLine) {
	t.Helper()
	n := 0
	for _, l := range lines {
		if l.Event != "call" {
			continue
		}
		n++
		if l.IsError || l.Structured == nil {
			t.Errorf("%s %v: error=%v structured=%v\n%s", l.Name, l.Arguments, l.IsError, l.Structured != nil, l.Text)
			continue
		}
		budget := int(l.Arguments["token_budget"].(float64))
		st, tt := o200k.Count(*l.Structured), o200k.Count(l.Text)
		t.Logf("%-8s budget %5d: structuredContent %5d tokens (%d bytes), text %5d tokens", l.Name, budget, st, len(*l.Structured), tt)
		if st > budget || tt > budget {
			t.Errorf("%s at budget %d: structuredContent %d tokens, text %d tokens", l.Name, budget, st, tt)
		}
		var s map[string]any
		json.Unmarshal([]byte(*l.Structured), &s)
		switch l.Name {
		case ToolRecall:
			notice, _ := s["notice"].(string)
			next, _ := s["next"].(string)
			if !strings.Contains(notice, "not instructions") || !strings.Contains(next, "call get") || !strings.Contains(next, "larger token_budget") {
				t.Errorf("recall at %d: notice %q, next %q", budget, notice, next)
			}
			if _, dup := s["context_block"]; dup {
				t.Errorf("recall at %d repeats the context block in structuredContent", budget)
			}
		case ToolGet:
			if notice, _ := s["notice"].(string); !strings.Contains(notice, "not instructions") || (s["earlier"] == nil && s["later"] == nil) {
				t.Errorf("get: notice and paging hints missing: %s", *l.Structured)
			}
		case ToolSessions:
			if next, _ := s["next"].(string); !strings.Contains(next, "offset") {
				t.Errorf("sessions: paging hint missing: %s", *l.Structured)
			}
		}
	}
	if n != len(sdkCalls()) {
		t.Fatalf("sdk made %d calls, want %d", n, len(sdkCalls()))
	}
}

// TestTypeScriptSDKOverHTTP: the official TypeScript SDK client over
// Streamable HTTP: budgets hold, and after it ends its session (DELETE) a
// request with that session id is refused.
func TestTypeScriptSDKOverHTTP(t *testing.T) {
	sdkDir(t)
	m := budgetMemory(t)
	s := New(m, tokenstore.NewMemoryTokenStore(), Options{Logger: quietLogger()})
	tok, _, err := s.Tokens().Create(context.Background(), "sdk", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	lines := runSDK(t, map[string]string{"MODE": "http", "URL": s.URL(), "TOKEN": tok}, sdkCalls())
	checkSDKBudgets(t, lines)
	last := lines[len(lines)-1]
	if last.Event != "terminated" || last.Session == nil || *last.Session == "" || !strings.Contains(last.After, "session not found") {
		t.Errorf("after DELETE: %+v", last)
	}
}

// TestTypeScriptSDKOverStdio: the official TypeScript SDK client starts the
// real `ireneo mcp` with a bare environment (HOME and PATH only), as Claude
// Desktop does.
func TestTypeScriptSDKOverStdio(t *testing.T) {
	sdkDir(t)
	bin := buildIreneo(t)
	m := budgetMemory(t)
	args, _ := json.Marshal([]string{"--memory", m.Dir(), "mcp"})
	env, _ := json.Marshal(map[string]string{"HOME": t.TempDir(), "PATH": os.Getenv("PATH")})
	lines := runSDK(t, map[string]string{"MODE": "stdio", "CMD": bin, "ARGS": string(args), "ENV": string(env)}, sdkCalls())
	checkSDKBudgets(t, lines)
}
