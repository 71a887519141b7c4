package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	ans "github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/recall"
)

// fakeBackend answers every tool after running fn, to make the memory slow,
// broken or panicking.
type fakeBackend struct {
	fn func(ctx context.Context) error
}

func (f fakeBackend) Recall(ctx context.Context, o recall.Options) (*recall.Result, error) {
	return &recall.Result{Hits: []recall.Hit{}}, f.fn(ctx)
}
func (f fakeBackend) Get(ctx context.Context, o conversations.GetOptions) (*conversations.Transcript, error) {
	return &conversations.Transcript{}, f.fn(ctx)
}
func (f fakeBackend) Sessions(ctx context.Context, q conversations.Query) ([]ans.Conversation, int, error) {
	return nil, 0, f.fn(ctx)
}
func (f fakeBackend) Projects(ctx context.Context, scope []string) ([]ans.ProjectCount, int, error) {
	return nil, 0, f.fn(ctx)
}

var everyTool = map[string]map[string]any{
	ToolRecall: {"query": "MT-4471"}, ToolGet: {"session_id": "conv-alpha"}, ToolSessions: nil, ToolListProjects: nil,
}

func lastAudit(t *testing.T, ts *testServer) auditlog.Entry {
	t.Helper()
	ts.FlushAudit()
	es, err := auditlog.List(context.Background(), ts.mem, auditlog.Query{Limit: 1})
	if err != nil || len(es) != 1 {
		t.Fatalf("audit: %v %v", es, err)
	}
	return es[0]
}

func TestMemoryFailureIsOneLine(t *testing.T) {
	for name, fn := range map[string]func(context.Context) error{
		"error": func(context.Context) error {
			return errors.New("database disk image is malformed: /home/someone/.local/share/ireneo/ireneo.db")
		},
		"panic": func(context.Context) error { panic("index out of range [7] with length 3") },
	} {
		t.Run(name, func(t *testing.T) {
			ts := startTestServer(t, Options{})
			ts.Server.mem = fakeBackend{fn}
			c := connect(t, ts.url, ts.full)
			for tool, args := range everyTool {
				res := callTool(t, c, tool, args)
				if !res.IsError || resultText(res) != msgUnavailable {
					t.Errorf("%s: %v %q, want %q", tool, res.IsError, resultText(res), msgUnavailable)
				}
				if e := lastAudit(t, ts); e.Tool != tool || e.Outcome != auditlog.Unavailable {
					t.Errorf("audit = %+v", e)
				}
			}
		})
	}
}

// TestClosedMemory: a real memory whose database is gone answers the same
// one line, over stdio where no token check stands in front.
func TestClosedMemory(t *testing.T) {
	m := newFixtureMemory(t)
	s := New(m, nil, Options{Logger: quietLogger()})
	c := stdioPipeClient(t, s)
	m.Close()
	for tool, args := range everyTool {
		res := callTool(t, c, tool, args)
		if !res.IsError || resultText(res) != msgUnavailable {
			t.Errorf("%s: %v %q", tool, res.IsError, resultText(res))
		}
	}
}

func TestBusy(t *testing.T) {
	ts := startTestServer(t, Options{MaxConcurrent: 2, QueueWait: 100 * time.Millisecond})
	release := make(chan struct{})
	entered := make(chan struct{}, 8)
	ts.Server.mem = fakeBackend{func(ctx context.Context) error {
		entered <- struct{}{}
		<-release
		return nil
	}}
	c := connect(t, ts.url, ts.full)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			callTool(t, c, ToolListProjects, nil)
		}()
	}
	<-entered
	<-entered
	res := callTool(t, c, ToolListProjects, nil)
	if !res.IsError || resultText(res) != msgBusy {
		t.Fatalf("third call: %v %q", res.IsError, resultText(res))
	}
	if e := lastAudit(t, ts); e.Outcome != auditlog.Busy {
		t.Fatalf("audit = %+v", e)
	}
	close(release)
	wg.Wait()
	// Slots come back.
	ts.Server.mem = fakeBackend{func(context.Context) error { return nil }}
	if res := callTool(t, c, ToolListProjects, nil); res.IsError {
		t.Fatalf("after release: %s", resultText(res))
	}
}

func TestCallTimeout(t *testing.T) {
	ts := startTestServer(t, Options{CallTimeout: 50 * time.Millisecond})
	stuck := make(chan struct{})
	defer close(stuck)
	ts.Server.mem = fakeBackend{func(ctx context.Context) error {
		<-stuck // ignores ctx, like a long SQLite step
		return nil
	}}
	c := connect(t, ts.url, ts.full)
	res := callTool(t, c, ToolRecall, map[string]any{"query": "MT-4471"})
	if !res.IsError || !strings.Contains(resultText(res), "took too long") {
		t.Fatalf("%v %q", res.IsError, resultText(res))
	}
	if e := lastAudit(t, ts); e.Outcome != auditlog.Timeout {
		t.Fatalf("audit = %+v", e)
	}
}

func TestResultCap(t *testing.T) {
	m := newFixtureMemory(t)
	// One long conversation: 60 turns of about 1 KB.
	long := &funes.Session{ID: "conv-long", Harness: funes.HarnessClaude, Title: "Long"}
	t0 := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	for i := range 60 {
		long.Turns = append(long.Turns, funes.Turn{
			TurnUUID: fmt.Sprintf("long-%d", i), Seq: i, TS: t0.Add(time.Duration(i) * time.Minute), Role: funes.RoleUser,
			Blocks: []funes.Block{{Type: funes.BlockText, Text: fmt.Sprintf("turn %d LONGWORD %s", i, strings.Repeat("lorem ipsum ", 85))}},
		})
	}
	if _, err := m.Ingest(context.Background(), []*funes.Session{long}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	s := New(m, nil, Options{Logger: quietLogger(), MaxResultBytes: 8 << 10})
	c := stdioPipeClient(t, s)

	res := callTool(t, c, ToolGet, map[string]any{"session_id": "conv-long", "token_budget": 600})
	if res.IsError {
		t.Fatal(resultText(res))
	}
	var tr GetOutput
	structured(t, res, &tr)
	if len(tr.Turns) == 0 || len(tr.Turns) >= 60 || tr.Turns[0].Seq != 0 || !strings.Contains(tr.Later, "to read on") {
		t.Fatalf("get kept %d turns from %d", len(tr.Turns), tr.Turns[0].Seq)
	}
	if !strings.Contains(resultText(res), "later turn(s) not shown") {
		t.Fatalf("no read-on hint:\n%s", resultText(res))
	}
	// Around a turn in the middle, the window stays centred on it.
	res = callTool(t, c, ToolGet, map[string]any{"session_id": "conv-long", "turn_uuid": "long-30", "window": 25, "token_budget": 600})
	structured(t, res, &tr)
	if !slices.ContainsFunc(tr.Turns, func(t TurnOut) bool { return t.Focus && t.Seq == 30 }) || tr.Turns[0].Seq > 30 || tr.Turns[len(tr.Turns)-1].Seq < 30 || len(tr.Turns) >= 51 {
		t.Fatalf("window around 30: %d turns from %d", len(tr.Turns), tr.Turns[0].Seq)
	}
	// A recall whose answer can't be cut is refused with advice.
	res = callTool(t, c, ToolRecall, map[string]any{"query": "LONGWORD", "top_k": 50, "token_budget": 16000})
	if !res.IsError || !strings.Contains(resultText(res), "too large") {
		t.Fatalf("recall over the cap: %v %.200q", res.IsError, resultText(res))
	}
}

// TestCancelledCallAudited: a call the client gives up on is audited as
// cancelled, not as a failure of the memory.
func TestCancelledCallAudited(t *testing.T) {
	ts := startTestServer(t, Options{})
	started := make(chan struct{}, 1)
	ts.Server.mem = fakeBackend{func(ctx context.Context) error {
		started <- struct{}{}
		<-ctx.Done()
		return fmt.Errorf("recall: %w", ctx.Err())
	}}
	c := connect(t, ts.url, ts.full)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	if _, err := c.CallTool(ctx, toolRequest(ToolRecall, map[string]any{"query": "MT-4471"})); err == nil {
		t.Fatal("a cancelled call answered")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		es, err := auditlog.List(context.Background(), ts.mem, auditlog.Query{Tool: ToolRecall})
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 1 {
			if es[0].Outcome != auditlog.Cancelled {
				t.Fatalf("cancelled call audited as %q", es[0].Outcome)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancelled call was not audited")
		}
		ts.FlushAudit()
		time.Sleep(20 * time.Millisecond)
	}
}
