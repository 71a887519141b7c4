package importers

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/clients"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/importers/harnesstest"
	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/plumbing"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// The real CLIs, run offline against the stand-in model, with Ireneo
// connected as their MCP server (clients.Connect, the entry `connect
// --write` writes): each writes a genuine session where the model runs a
// shell command, recalls from Ireneo, hands work to a sub-agent and
// answers. Importing what the CLI left where it keeps its history (found
// by DefaultLocations, as `import --detect` finds it) keeps every prompt,
// reply, call and result in order, the sub-agent as its own
// conversation, and Ireneo's own call and answer out of the index.
//
// Skipped, loudly, where the CLI is not installed (harnesstest.Find).

// ireneoForHarness is an MCP server over a memory that holds the
// conversation the stand-in's recall finds.
func ireneoForHarness(t *testing.T) (*mcpserver.Server, string) {
	t.Helper()
	m := newMemory(t)
	at := time.Date(2026, 10, 12, 9, 0, 0, 0, time.UTC)
	s := &funes.Session{ID: "k2-decision", Harness: funes.HarnessCodex, Title: "K-2 compressor", Project: "plant-control", Turns: []funes.Turn{
		{TurnUUID: "k2-0", Seq: 0, TS: at, Role: funes.RoleUser, Blocks: []funes.Block{{Type: funes.BlockText, Text: "Which K-2 compressor did we pick?"}}},
		{TurnUUID: "k2-1", Seq: 1, TS: at.Add(time.Minute), Role: funes.RoleAssistant, Blocks: []funes.Block{{Type: funes.BlockText, Text: "The K-2 compressor decision: the two-stage unit, for its lower noise."}}},
	}}
	if _, err := m.Ingest(context.Background(), []*funes.Session{s}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(m, tokenstore.NewMemoryTokenStore(), mcpserver.Options{})
	tok, _, err := srv.Tokens().Create(context.Background(), "harness", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, tok
}

// harnessRun runs one CLI and imports what it wrote; it returns the
// conversations stored.
func harnessRun(t *testing.T, cli, client string, timeout time.Duration, args ...string) []*funes.Session {
	bin := harnesstest.Find(t, cli)
	srv, tok := ireneoForHarness(t)
	model := harnesstest.NewStandIn(t)
	model.SubAgent = true
	h := harnesstest.NewHome(t, cli, model.URL)
	cfg, err := clients.Connect(client, clients.ConnectOptions{URL: srv.URL(), Token: tok, Home: h.Dir, GeminiHome: h.Dir,
		CopilotHome: filepath.Join(h.Dir, ".copilot"), XDGConfigHome: filepath.Join(h.Dir, ".config")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.Write(time.Now()); err != nil {
		t.Fatal(err)
	}
	out := h.Run(t, timeout, bin, args...)
	defer func() {
		if t.Failed() {
			model.Log(filepath.Join(t.TempDir(), "requests.log"))
			t.Logf("%s printed:\n%s", cli, out)
		}
	}()
	if !strings.Contains(out, "The command printed "+model.Word) {
		t.Fatalf("%s did not give the stand-in's answer:\n%s", cli, out)
	}
	// Where the CLI keeps its history, as DefaultLocations finds it.
	for _, v := range []string{"GEMINI_CLI_HOME", "COPILOT_HOME", "APPDATA"} {
		t.Setenv(v, "")
	}
	t.Setenv("HOME", h.Dir)
	t.Setenv("XDG_DATA_HOME", filepath.Join(h.Dir, ".local", "share"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(h.Dir, ".config"))
	var paths []string
	for _, l := range DefaultLocations(Homes{}) {
		paths = append(paths, l.Path)
	}
	if len(paths) == 0 {
		t.Fatalf("no location found in %s", h.Dir)
	}
	m := newMemory(t)
	sum, err := Run(context.Background(), m, paths, Options{})
	if err != nil || sum.Failed > 0 {
		t.Fatalf("import %v: %v %+v", paths, err, sum)
	}
	infos, _, err := conversations.List(context.Background(), m, conversations.Query{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var ss []*funes.Session
	for _, in := range infos {
		s, err := m.LoadSession(context.Background(), in.Source+":"+in.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
	return ss
}

// checkHarnessSession checks the main conversation: the prompt, the three
// calls each with its result in order, the answer; the shell's result
// holds the word; Ireneo's recall and its answer are plumbing, the rest
// searchable; the sub-agent's conversation is there, in the project.
func checkHarnessSession(t *testing.T, ss []*funes.Session, harness string) {
	t.Helper()
	var main, sub *funes.Session
	for _, s := range ss {
		if s.Harness != harness {
			continue
		}
		if strings.HasPrefix(s.Title, "Sub-agent") {
			sub = s
		} else if main == nil || len(s.Turns) > len(main.Turns) {
			main = s
		}
	}
	if main == nil || sub == nil {
		for _, s := range ss {
			t.Logf("%s %s %q %s", s.Harness, s.ID, s.Title, roleSeq(s))
		}
		t.Fatalf("want a session and its sub-agent among %d", len(ss))
	}
	calls, results, recallCall, recallResult, shellOut := 0, 0, false, false, false
	prompts, answers := 0, 0
	for _, tu := range main.Turns {
		for _, b := range tu.Blocks {
			kinds := plumbing.Classify(tu.Role, b.Type, b.ToolName, b.Text)
			switch b.Type {
			case funes.BlockToolUse:
				calls++
				if kinds[0].Kind == plumbing.RecallCall {
					recallCall = true
				}
			case funes.BlockToolResult:
				results++
				if len(kinds) == 1 && kinds[0].Kind == plumbing.RecallResult {
					recallResult = true
				} else if strings.Contains(b.Text, "K-2") {
					t.Logf("a result naming K-2 that is not known for Ireneo's: %q", b.Text[:min(len(b.Text), 600)])
				}
				if strings.Contains(b.Text, "ireneo-stand-in") {
					shellOut = true
				}
			case funes.BlockText:
				if tu.Role == funes.RoleUser && plumbing.SaidText(tu.Role, b.Type, b.ToolName, b.Text) != "" {
					prompts++
				}
				if tu.Role == funes.RoleAssistant && strings.Contains(b.Text, "The command printed ireneo-stand-in") {
					answers++
				}
			}
		}
	}
	if prompts < 1 || calls < 3 || results != calls || answers != 1 || !shellOut {
		t.Errorf("main %s: %d prompts, %d calls, %d results, %d answers, shell output %v:\n%s", main.ID, prompts, calls, results, answers, shellOut, roleSeq(main))
	}
	if !recallCall || !recallResult {
		t.Errorf("Ireneo's recall: call known %v, answer known %v:\n%s", recallCall, recallResult, roleSeq(main))
	}
	if main.Project != "plant-control" || sub.Project != "plant-control" {
		t.Errorf("projects %q and %q", main.Project, sub.Project)
	}
	for i := 1; i < len(main.Turns); i++ {
		if main.Turns[i].TS.Before(main.Turns[i-1].TS) {
			t.Errorf("turn %d before turn %d", i, i-1)
		}
	}
}

func TestHarnessGeminiCLI(t *testing.T) {
	ss := harnessRun(t, "gemini", clients.ClientGeminiCLI, 3*time.Minute,
		"-p", "Run echo ireneo-stand-in, recall the K-2 decision, then ask an agent where the word comes from", "--yolo")
	checkHarnessSession(t, ss, funes.HarnessGeminiCLI)
}

func TestHarnessCopilotCLI(t *testing.T) {
	ss := harnessRun(t, "copilot", clients.ClientCopilotCLI, 2*time.Minute,
		"-p", "Run echo ireneo-stand-in, recall the K-2 decision, then ask an agent where the word comes from", "--allow-all")
	checkHarnessSession(t, ss, funes.HarnessCopilotCLI)
}

func TestHarnessOpenCode(t *testing.T) {
	ss := harnessRun(t, "opencode", clients.ClientOpenCode, 5*time.Minute,
		"run", "Run echo ireneo-stand-in, recall the K-2 decision, then ask an agent where the word comes from")
	checkHarnessSession(t, ss, funes.HarnessOpenCode)
}
