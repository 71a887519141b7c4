package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	_ "modernc.org/sqlite"

	"github.com/ireneo-app/ireneo/capture"
)

// The capture hooks, run as Claude Code and Codex run them: the real binary,
// installed by `connect --write --hooks`, fed the hook inputs in the shapes
// those harnesses document.

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// ireneoBinary builds the real ireneo binary once per test run.
func ireneoBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ireneo-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "ireneo")
		out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = &buildError{string(out), err}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

const (
	ccSession  = "7d0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"
	codexID    = "0195a000-0000-7000-8000-000000000001"
	codexOther = "0195a000-0000-7000-8000-000000000002"
)

// hookEnv is a home with Claude Code and Codex sessions, settings that have
// hooks and a notify program of their own, and an empty memory.
type hookEnv struct {
	t              testing.TB
	bin, home, mem string
	env            []string
	transcript     string
	notifyMark     string
}

func newHookEnv(t testing.TB) *hookEnv {
	t.Helper()
	h := &hookEnv{t: t, bin: ireneoBinary(t), home: t.TempDir()}
	h.mem = filepath.Join(h.home, "mem")
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "IRENEO_HOME", "IRENEO_CONFIG":
			continue
		}
		h.env = append(h.env, kv)
	}
	h.env = append(h.env, "HOME="+h.home, "XDG_CONFIG_HOME="+filepath.Join(h.home, ".config"), "XDG_DATA_HOME="+filepath.Join(h.home, ".local/share"),
		"IRENEO_HOOK_THROTTLE=2s")
	proj := filepath.Join(h.home, ".claude", "projects", "-home-ana-llama-cpp")
	h.transcript = filepath.Join(proj, ccSession+".jsonl")
	copyFile(t, "importers/testdata/claudecode/projects/-home-ana-llama-cpp/"+ccSession+".jsonl", h.transcript)
	rollouts := "importers/testdata/codex/sessions/2026/03/01/"
	for _, name := range []string{"rollout-2026-03-01T10-00-00-" + codexID + ".jsonl", "rollout-2026-03-01T13-00-00-" + codexOther + ".jsonl"} {
		copyFile(t, rollouts+name, filepath.Join(h.home, ".codex", "sessions", "2026", "03", "01", name))
	}
	writeFile(t, filepath.Join(h.home, ".claude", "settings.json"),
		`{"cleanupPeriodDays": 30, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	// A notify program the person had: it must keep working.
	h.notifyMark = filepath.Join(h.home, "notified")
	script := filepath.Join(h.home, "my-notify.sh")
	writeFile(t, script, "#!/bin/sh\nprintf '%s' \"$1\" > "+h.notifyMark+"\n")
	os.Chmod(script, 0o755)
	writeFile(t, filepath.Join(h.home, ".codex", "config.toml"), "model = \"o3\"\nnotify = [\""+script+"\"]\n\n[tui]\nnotifications = true\n")
	h.ok("--memory", h.mem, "status")
	return h
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(b))
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// run runs argv (a hook command as installed) with stdin, and returns its
// exit code and output.
func (h *hookEnv) run(stdin string, argv ...string) (int, string, string) {
	h.t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = h.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// ok runs ireneo with args and fails the test unless it succeeds.
func (h *hookEnv) ok(args ...string) string {
	h.t.Helper()
	code, out, errs := h.run("", append([]string{h.bin}, args...)...)
	if code != 0 {
		h.t.Fatalf("ireneo %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

// log is the hook log's lines.
func (h *hookEnv) log() []string {
	b, _ := os.ReadFile(filepath.Join(h.mem, "capture", "hooks.log"))
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// waitLog waits until the log has n lines (the import runs detached) and
// returns the last.
func (h *hookEnv) waitLog(n int) string {
	h.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if l := h.log(); len(l) >= n && l[0] != "" {
			return l[len(l)-1]
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.t.Fatalf("the hook log never reached %d lines: %q", n, h.log())
	return ""
}

// counts is how many conversations the memory holds per source.
func (h *hookEnv) counts() map[string]int {
	h.t.Helper()
	var st struct {
		BySource map[string]int `json:"by_source"`
	}
	if err := json.Unmarshal([]byte(h.ok("--memory", h.mem, "status", "--json")), &st); err != nil {
		h.t.Fatal(err)
	}
	return st.BySource
}

// claudeHookCommand is the command installed for event, run as Claude Code
// runs it: through the shell.
func (h *hookEnv) claudeHookCommand(event string) []string {
	h.t.Helper()
	var cfg struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	b, _ := os.ReadFile(filepath.Join(h.home, ".claude", "settings.json"))
	if err := json.Unmarshal(b, &cfg); err != nil {
		h.t.Fatal(err)
	}
	for _, g := range cfg.Hooks[event] {
		for _, hk := range g.Hooks {
			if strings.Contains(hk.Command, "hook claude-code") {
				return []string{"/bin/sh", "-c", hk.Command}
			}
		}
	}
	h.t.Fatalf("no Ireneo %s hook in settings.json: %s", event, b)
	return nil
}

func ccInput(event, transcript string, extra string) string {
	return `{"session_id":"` + ccSession + `","transcript_path":"` + transcript + `","cwd":"/home/ana/llama.cpp","permission_mode":"default","hook_event_name":"` + event + `"` + extra + `}`
}

// quiet fails unless a hook exited 0 and printed nothing.
func quiet(t *testing.T, what string, code int, out, errs string) {
	t.Helper()
	if code != 0 || out != "" || errs != "" {
		t.Fatalf("%s: exit %d, stdout %q, stderr %q", what, code, out, errs)
	}
}

func TestClaudeCodeHooksRealBinary(t *testing.T) {
	h := newHookEnv(t)
	h.ok("--memory", h.mem, "connect", "claude-code", "--write", "--hooks", "--token-store", "file")
	settings, _ := os.ReadFile(filepath.Join(h.home, ".claude", "settings.json"))
	if !strings.Contains(string(settings), `"command": "true"`) || !strings.Contains(string(settings), `"cleanupPeriodDays": 30`) {
		t.Fatalf("the person's own hook or setting was lost:\n%s", settings)
	}
	if out := h.ok("--memory", h.mem, "status"); !strings.Contains(out, "Claude Code: installed") {
		t.Fatalf("status does not see the hooks:\n%s", out)
	}

	// SessionEnd lands the session, silently.
	code, out, errs := h.run(ccInput("SessionEnd", h.transcript, `,"reason":"exit"`), h.claudeHookCommand("SessionEnd")...)
	quiet(t, "SessionEnd", code, out, errs)
	if last := h.waitLog(1); !strings.Contains(last, "SessionEnd session "+ccSession+": imported 1 new") {
		t.Fatalf("SessionEnd: %s", last)
	}
	if c := h.counts(); c["claude_code"] != 1 {
		t.Fatalf("after SessionEnd: %v", c)
	}
	// A re-fire (PreCompact, then SessionEnd again) changes nothing.
	code, out, errs = h.run(ccInput("PreCompact", h.transcript, `,"trigger":"manual","custom_instructions":""`), h.claudeHookCommand("PreCompact")...)
	quiet(t, "PreCompact", code, out, errs)
	if last := h.waitLog(2); !strings.Contains(last, "imported 0 new, 0 updated, 1 unchanged") {
		t.Fatalf("PreCompact re-fire: %s", last)
	}
	// Malformed inputs change nothing, exit 0 and say why in the log.
	for i, bad := range []string{"{not json", `{"session_id":"../../etc","transcript_path":"` + h.transcript + `","hook_event_name":"Stop"}`,
		ccInput("Stop", "relative/path.jsonl", ""), ccInput("Stop", filepath.Join(h.home, "missing.jsonl"), ""), ""} {
		code, out, errs = h.run(bad, h.claudeHookCommand("Stop")...)
		quiet(t, "malformed input", code, out, errs)
		if last := h.waitLog(3 + i); !strings.Contains(last, "error: ") || !strings.Contains(last, "nothing imported") {
			t.Fatalf("malformed input %q: log says %s", bad, last)
		}
	}
	if c := h.counts(); c["claude_code"] != 1 || len(c) != 1 {
		t.Fatalf("after malformed inputs: %v", c)
	}
	if out := h.ok("--memory", h.mem, "status"); !strings.Contains(out, "hook problem:") {
		t.Fatalf("status does not show the hook problem:\n%s", out)
	}

	// A grown transcript, fired during another process's write: the hook
	// still returns at once with nothing to say, and the session lands
	// once the writer lets go.
	f, _ := os.OpenFile(h.transcript, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"parentUuid":"a-5","isSidechain":false,"type":"user","uuid":"u-late","sessionId":"` + ccSession + `","timestamp":"2026-05-01T11:00:00.000Z","message":{"role":"user","content":"one more thing: LATEWORD"}}` + "\n")
	f.Close()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(h.mem, "ireneo.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	n := len(h.log())
	code, out, errs = h.run(ccInput("Stop", h.transcript, `,"stop_hook_active":false`), h.claudeHookCommand("Stop")...)
	quiet(t, "Stop during a write", code, out, errs)
	if len(h.log()) != n {
		t.Fatalf("the import finished while the memory was locked: %s", h.log()[len(h.log())-1])
	}
	time.Sleep(3 * time.Second) // the import is waiting on the lock meanwhile
	conn.ExecContext(context.Background(), "ROLLBACK")
	conn.Close()
	if last := h.waitLog(n + 1); !strings.Contains(last, "Stop session "+ccSession+": imported 0 new, 1 updated") {
		t.Fatalf("Stop after the write: %s", last)
	}
	if got := h.ok("--memory", h.mem, "recall", "LATEWORD"); !strings.Contains(got, "LATEWORD") {
		t.Fatalf("the late turn is not searchable:\n%s", got)
	}

	// A real import of the same folder running while SessionEnd fires:
	// both finish, and the session is there once.
	f, _ = os.OpenFile(h.transcript, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"parentUuid":"u-late","isSidechain":false,"type":"user","uuid":"u-later","sessionId":"` + ccSession + `","timestamp":"2026-05-01T11:05:00.000Z","message":{"role":"user","content":"and finally SECONDLATE"}}` + "\n")
	f.Close()
	imp := exec.Command(h.bin, "--memory", h.mem, "import", filepath.Dir(filepath.Dir(h.transcript)))
	imp.Env = h.env
	var impOut bytes.Buffer
	imp.Stdout, imp.Stderr = &impOut, &impOut
	if err := imp.Start(); err != nil {
		t.Fatal(err)
	}
	n = len(h.log())
	code, out, errs = h.run(ccInput("SessionEnd", h.transcript, `,"reason":"logout"`), h.claudeHookCommand("SessionEnd")...)
	quiet(t, "SessionEnd during an import", code, out, errs)
	if err := imp.Wait(); err != nil {
		t.Fatalf("the import beside the hook: %v\n%s", err, impOut.String())
	}
	if last := h.waitLog(n + 1); strings.Contains(last, "error: ") {
		t.Fatalf("SessionEnd during an import: %s", last)
	}
	if c := h.counts(); c["claude_code"] != 1 {
		t.Fatalf("after an import and a hook at once: %v", c)
	}
	if got := h.ok("--memory", h.mem, "recall", "SECONDLATE"); !strings.Contains(got, "SECONDLATE") {
		t.Fatalf("the last turn is not searchable:\n%s", got)
	}
}

func TestCodexNotifyRealBinary(t *testing.T) {
	h := newHookEnv(t)
	h.ok("--memory", h.mem, "connect", "codex", "--write", "--hooks", "--token-store", "file")
	var cfg struct {
		Model  string   `toml:"model"`
		Notify []string `toml:"notify"`
	}
	b, _ := os.ReadFile(filepath.Join(h.home, ".codex", "config.toml"))
	if _, err := toml.Decode(string(b), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "o3" || len(cfg.Notify) < 6 || cfg.Notify[len(cfg.Notify)-2] != "--" || !strings.HasSuffix(cfg.Notify[len(cfg.Notify)-1], "my-notify.sh") {
		t.Fatalf("config.toml after --hooks:\n%s", b)
	}
	// Writing again keeps one chain, not two.
	h.ok("--memory", h.mem, "connect", "codex", "--write", "--hooks", "--token-store", "file")
	b2, _ := os.ReadFile(filepath.Join(h.home, ".codex", "config.toml"))
	if strings.Count(string(b2), "my-notify.sh") != 1 || strings.Count(string(b2), "notify =") != 1 {
		t.Fatalf("config.toml after a second --hooks:\n%s", b2)
	}

	payload := `{"type":"agent-turn-complete","thread-id":"` + codexID + `","turn-id":"12345","cwd":"/home/ana","input-messages":["Rename foo to bar"],"last-assistant-message":"Done."}`
	code, out, errs := h.run("", append(cfg.Notify, payload)...)
	quiet(t, "notify", code, out, errs)
	if last := h.waitLog(1); !strings.Contains(last, "codex agent-turn-complete session "+codexID+": imported 1 new") {
		t.Fatalf("notify: %s", last)
	}
	if c := h.counts(); c["codex"] != 1 {
		t.Fatalf("after notify: %v", c)
	}
	// The person's own notify program got the same JSON.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if got, _ := os.ReadFile(h.notifyMark); string(got) == payload {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the chained notify program did not run with the JSON")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Two more turns at once: throttled to one trailing import, no error.
	for range 2 {
		code, out, errs = h.run("", append(cfg.Notify, payload)...)
		quiet(t, "notify again", code, out, errs)
	}
	if last := h.waitLog(2); !strings.Contains(last, "imported 0 new, 0 updated, 1 unchanged") {
		t.Fatalf("re-fired notify: %s", last)
	}
	time.Sleep(3 * time.Second)
	if l := h.log(); len(l) != 2 {
		t.Fatalf("two notifies in one throttle window made %d imports: %q", len(l)-1, l)
	}
	// Malformed: another notification type, a thread with no rollout.
	for i, bad := range []string{`{"type":"approval-requested"}`, `{"type":"agent-turn-complete","thread-id":"no-such-thread"}`, `[1,2]`} {
		code, out, errs = h.run("", append(cfg.Notify, bad)...)
		quiet(t, "malformed notify", code, out, errs)
		if last := h.waitLog(3 + i); !strings.Contains(last, "error: ") {
			t.Fatalf("malformed notify %s: %s", bad, last)
		}
	}
	if c := h.counts(); c["codex"] != 1 || len(c) != 1 {
		t.Fatalf("after malformed notifies: %v", c)
	}
}

// burstStats is what a burst of hook fires started.
type burstStats struct {
	workers   int     // import processes started (hook work, or hook run before the queue)
	atOnce    int     // most of them alive at once
	peakRSSMB float64 // their largest summed resident set
}

// burst fires n hook commands, parallel at a time, with input(i) on
// stdin, and watches /proc for the import processes they start until none
// is left.
func (h *hookEnv) burst(n, parallel int, argv []string, input func(i int) string) burstStats {
	h.t.Helper()
	var st burstStats
	seen := map[int]bool{}
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			alive, rss := importProcs(h.mem, seen)
			st.atOnce = max(st.atOnce, alive)
			st.peakRSSMB = max(st.peakRSSMB, rss)
			select {
			case <-stop:
				if alive == 0 {
					return
				}
			default:
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = h.env
			cmd.Stdin = strings.NewReader(input(i))
			cmd.Run()
		}()
	}
	wg.Wait()
	close(stop)
	<-watched
	st.workers = len(seen)
	return st
}

// importProcs counts the live import processes of the memory (adding
// their pids to seen) and sums their resident sets, in MB.
func importProcs(mem string, seen map[int]bool) (int, float64) {
	ents, _ := os.ReadDir("/proc")
	alive, kb := 0, 0.0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cl, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cl, []byte(mem+"\x00")) ||
			!bytes.Contains(cl, []byte("hook\x00work")) && !bytes.Contains(cl, []byte("hook\x00run")) {
			continue
		}
		alive++
		seen[pid] = true
		status, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		for _, l := range strings.Split(string(status), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				v, _ := strconv.ParseFloat(f[1], 64)
				kb += v
			}
		}
	}
	return alive, kb / 1024
}

// TestHookBurstBounded: hundreds of Stop fires of one session, and
// SessionEnd fires of many, start no more than a few import processes,
// never more than capture.MaxWorkers at once (1,000 fires once forked
// 1,000 detached importers, 102 at once, 8.1 GB), and every session lands.
func TestHookBurstBounded(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc to count processes in")
	}
	h := newHookEnv(t)
	h.ok("--memory", h.mem, "connect", "claude-code", "--write", "--hooks", "--token-store", "file")
	st := h.burst(150, 32, h.claudeHookCommand("Stop"), func(int) string {
		return ccInput("Stop", h.transcript, `,"stop_hook_active":false`)
	})
	// One import a throttle window (2 s here) while the fires last, each
	// by a worker that ends when the queue is empty: about one worker an
	// import (one exiting as the next starts), never more than
	// MaxWorkers alive.
	imports := len(h.log())
	t.Logf("150 Stop fires of one session: %+v, %d imports", st, imports)
	if st.atOnce > capture.MaxWorkers || st.workers > imports+capture.MaxWorkers {
		t.Errorf("150 Stop fires of one session started %d import processes, %d at once, for %d imports; want at most %d, %d at once",
			st.workers, st.atOnce, imports, imports+capture.MaxWorkers, capture.MaxWorkers)
	}
	if c := h.counts(); c["claude_code"] != 1 {
		t.Fatalf("after the Stop burst: %v", c)
	}

	// Many sessions ending at once: each lands, through a few workers.
	src, _ := os.ReadFile(h.transcript)
	const sessions = 20
	paths := make([]string, sessions)
	for i := range paths {
		id := fmt.Sprintf("7d0c1a2b-3c4d-4e5f-8a9b-%012d", i)
		paths[i] = filepath.Join(filepath.Dir(h.transcript), id+".jsonl")
		writeFile(t, paths[i], strings.ReplaceAll(string(src), ccSession, id))
	}
	st = h.burst(sessions, 16, h.claudeHookCommand("SessionEnd"), func(i int) string {
		id := fmt.Sprintf("7d0c1a2b-3c4d-4e5f-8a9b-%012d", i)
		return strings.ReplaceAll(ccInput("SessionEnd", paths[i], `,"reason":"exit"`), ccSession, id)
	})
	t.Logf("%d SessionEnd fires of as many sessions: %+v", sessions, st)
	if st.atOnce > capture.MaxWorkers {
		t.Errorf("%d SessionEnd fires ran %d imports at once, want at most %d", sessions, st.atOnce, capture.MaxWorkers)
	}
	if c := h.counts(); c["claude_code"] != 1+sessions {
		t.Fatalf("after the SessionEnd burst: %v, want %d Claude Code sessions", c, 1+sessions)
	}
}

// BenchmarkHookBurst: 1,000 Stop fires of one session, 100 at a time, as
// the reliability review fired them, with the import processes they start
// counted and their summed RSS at its peak. IRENEO_BENCH_BIN runs another
// build (one before the queue, for the floor). It starts 1,000 processes,
// so it runs only when asked (IRENEO_BENCH_BOUNDS):
//
//	IRENEO_BENCH_BOUNDS=1 go test . -run '^$' -bench HookBurst -benchtime 1x
func BenchmarkHookBurst(b *testing.B) {
	if os.Getenv("IRENEO_BENCH_BOUNDS") == "" {
		b.Skip("set IRENEO_BENCH_BOUNDS=1 to fire 1,000 hooks")
	}
	h := newHookEnv(b)
	if bin := os.Getenv("IRENEO_BENCH_BIN"); bin != "" {
		h.bin = bin
		// The memory newHookEnv made is this build's; an older build may
		// not open its catalog schema: it makes its own.
		if err := os.RemoveAll(h.mem); err != nil {
			b.Fatal(err)
		}
		h.ok("--memory", h.mem, "status")
	}
	h.ok("--memory", h.mem, "connect", "claude-code", "--write", "--hooks", "--token-store", "file")
	argv := h.claudeHookCommand("Stop") // the binary that connected
	var st burstStats
	for range b.N {
		st = h.burst(1000, 100, argv, func(int) string {
			return ccInput("Stop", h.transcript, `,"stop_hook_active":false`)
		})
	}
	b.ReportMetric(float64(st.workers), "importers")
	b.ReportMetric(float64(st.atOnce), "at-once")
	b.ReportMetric(st.peakRSSMB, "peak-MB")
	b.ReportMetric(float64(len(h.log())), "imports")
}
