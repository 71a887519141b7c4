package sync

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/answer"
)

// Real Syncthing daemons on loopback, each with a private home under the
// test's temporary directory: discovery, relays and NAT off, one listen
// address each, paired by hand through the REST API (the person's part),
// the folder added by ShareFolder (Ireneo's part). Every daemon is killed
// when the test ends, however it ends.

// syncWait bounds how long a change may take to reach another machine.
const syncWait = 90 * time.Second

// needSyncthing skips the test when Syncthing is not installed, and fails
// it under make test (scripts/test-session.sh), whose scripts/deps.sh
// installs it: there a skip would hide that the cases never ran.
func needSyncthing(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("syncthing")
	if err != nil {
		if os.Getenv("IRENEO_IN_SESSION") != "" {
			t.Fatal("syncthing is not installed (scripts/deps.sh installs it)")
		}
		t.Skip("syncthing is not installed (scripts/deps.sh installs it)")
	}
	return p
}

// daemon is one Syncthing.
type daemon struct {
	t         testing.TB
	name      string
	bin, home string
	gui, port int // GUI/REST and sync ports, on 127.0.0.1
	id        string
	api       *Syncthing
	cmd       *exec.Cmd
	exited    chan struct{}
	log       *os.File
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// newDaemon generates a Syncthing home and starts it.
func newDaemon(t testing.TB, name string) *daemon {
	t.Helper()
	d := &daemon{t: t, name: name, bin: needSyncthing(t), home: filepath.Join(t.TempDir(), "syncthing-"+name), gui: freePort(t), port: freePort(t)}
	out, err := exec.Command(d.bin, "generate", "--home="+d.home, "--no-default-folder", "--skip-port-probing").CombinedOutput()
	if err != nil {
		t.Fatalf("syncthing generate: %v\n%s", err, out)
	}
	// The GUI's port in config.xml too, where FindSyncthing reads it.
	cfgPath := filepath.Join(d.home, "config.xml")
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("<address>127.0.0.1:8384</address>"), []byte(fmt.Sprintf("<address>127.0.0.1:%d</address>", d.gui)), 1)
	if err := os.WriteFile(cfgPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.kill)
	d.start()
	var err2 error
	if d.id, err2 = d.api.MyID(context.Background()); err2 != nil {
		t.Fatal(err2)
	}
	// Loopback only, nothing found or relayed: only the devices paired here.
	d.rest(http.MethodPatch, "/rest/config/options", map[string]any{
		"listenAddresses": []string{fmt.Sprintf("tcp://127.0.0.1:%d", d.port)}, "globalAnnounceEnabled": false,
		"localAnnounceEnabled": false, "relaysEnabled": false, "natEnabled": false, "urAccepted": -1,
		"crashReportingEnabled": false, "autoUpgradeIntervalH": 0, "startBrowser": false, "reconnectionIntervalS": 1,
	}, nil)
	return d
}

// start starts the daemon on its home and waits for its REST API.
func (d *daemon) start() {
	d.t.Helper()
	logf, err := os.OpenFile(filepath.Join(d.home, "daemon.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		d.t.Fatal(err)
	}
	cmd := exec.Command(d.bin, "serve", "--home="+d.home, "--no-browser", "--no-restart", "--no-upgrade",
		fmt.Sprintf("--gui-address=127.0.0.1:%d", d.gui))
	cmd.Env = append(os.Environ(), "STNORESTART=1", "STNOUPGRADE=1", "STMONITORED=1", "STNODEFAULTFOLDER=1")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	d.cmd, d.log, d.exited = cmd, logf, make(chan struct{})
	go func(c *exec.Cmd, done chan struct{}) { c.Wait(); close(done) }(cmd, d.exited)
	api, err := FindSyncthing(d.home)
	if err != nil {
		d.t.Fatal(err)
	}
	d.api = api
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := d.api.MyID(context.Background()); err == nil {
			return
		} else if time.Now().After(deadline) {
			d.t.Fatalf("syncthing %s did not answer: %v\n%s", d.name, err, d.logTail())
		}
		select {
		case <-d.exited:
			d.t.Fatalf("syncthing %s exited\n%s", d.name, d.logTail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (d *daemon) logTail() string {
	data, _ := os.ReadFile(filepath.Join(d.home, "daemon.log"))
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}

// stop stops the daemon the way a shutdown does (SIGTERM), then waits.
func (d *daemon) stop() { d.signal(syscall.SIGTERM) }

// kill kills it outright (SIGKILL), as a crash or power loss would.
func (d *daemon) kill() { d.signal(syscall.SIGKILL) }

func (d *daemon) signal(sig syscall.Signal) {
	if d.cmd == nil {
		return
	}
	syscall.Kill(-d.cmd.Process.Pid, sig)
	select {
	case <-d.exited:
	case <-time.After(15 * time.Second):
		syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		<-d.exited
	}
	d.log.Close()
	d.cmd = nil
}

// rest calls the daemon's REST API, failing the test on an error.
func (d *daemon) rest(method, path string, body, out any) {
	d.t.Helper()
	if err := d.api.Do(context.Background(), method, path, body, out); err != nil {
		d.t.Fatalf("syncthing %s: %v", d.name, err)
	}
}

// pair makes two daemons know each other, as the person does in
// Syncthing when they add a device.
func pair(a, b *daemon) {
	for _, x := range [][2]*daemon{{a, b}, {b, a}} {
		x[0].rest(http.MethodPut, "/rest/config/devices/"+x[1].id, map[string]any{
			"deviceID": x[1].id, "name": x[1].name, "addresses": []string{fmt.Sprintf("tcp://127.0.0.1:%d", x[1].port)},
		}, nil)
	}
}

// host is one machine: a Syncthing, a memory set up on its folder with
// `sync setup --syncthing`'s two steps, and the engine running.
type host struct {
	*machine
	st     *daemon
	cancel context.CancelFunc
	done   chan error
}

// newHost makes a machine whose Syncthing is paired with peers (already
// running) and shares the folder with them.
func newHost(t *testing.T, name string, peers ...*host) *host {
	t.Helper()
	h := &host{st: newDaemon(t, name)}
	for _, p := range peers {
		pair(h.st, p.st)
	}
	folder := filepath.Join(t.TempDir(), "folder-"+name)
	h.machine = newMachine(t, name, folder)
	h.share()
	for _, p := range peers {
		p.share() // now paired with h too
	}
	h.run()
	t.Cleanup(h.halt)
	return h
}

// share adds the folder to the host's Syncthing, shared with its paired
// devices (what `ireneo sync setup --syncthing` does).
func (h *host) share() {
	h.t.Helper()
	if _, err := h.st.api.ShareFolder(context.Background(), h.folder); err != nil {
		h.t.Fatal(err)
	}
}

// run starts the engine (Run, as the tray app does).
func (h *host) run() {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	go func() { h.done <- Run(ctx, h.m, Options{}) }()
}

// halt stops the engine.
func (h *host) halt() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	if err := <-h.done; err != nil {
		h.t.Errorf("%s: sync: %v", h.name, err)
	}
	h.cancel = nil
}

// down stops the machine: its engine and its Syncthing.
func (h *host) down() {
	h.halt()
	h.st.stop()
}

// up starts it again.
func (h *host) up() {
	h.st.start()
	h.run()
}

// eventually waits until cond holds, failing with what it says otherwise.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(syncWait)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s, %s: %s", syncWait, what, why)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// claudeCodeLog writes a Claude Code transcript of the session with the
// given turns (a person's message, then the assistant's answer, and so on)
// and returns its path.
func claudeCodeLog(t *testing.T, dir, session, cwd string, texts ...string) string {
	t.Helper()
	var buf bytes.Buffer
	parent := "null"
	for i, tx := range texts {
		uuid := fmt.Sprintf("%s-u%02d", session[:8], i)
		ts := day0.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000Z")
		if i%2 == 0 {
			fmt.Fprintf(&buf, `{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":%q,"sessionId":%q,"version":"2.1.7","type":"user","uuid":%q,"timestamp":%q,"message":{"role":"user","content":%q}}`+"\n",
				parent, cwd, session, uuid, ts, tx)
		} else {
			fmt.Fprintf(&buf, `{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":%q,"sessionId":%q,"version":"2.1.7","type":"assistant","uuid":%q,"timestamp":%q,"message":{"model":"claude-sonnet-4","id":"msg_%d","type":"message","role":"assistant","content":[{"type":"text","text":%q}]}}`+"\n",
				parent, cwd, session, uuid, ts, i, tx)
		}
		parent = strconv.Quote(uuid)
	}
	p := filepath.Join(dir, "projects", strings.ReplaceAll(cwd, "/", "-"), session+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// has says whether the machine holds the conversation, as a condition.
func (mc *machine) has(id string, want func(answer.Conversation) bool) func() (bool, string) {
	return func() (bool, string) {
		s, ok := mc.info(id)
		if !ok {
			return false, mc.name + " does not hold " + id
		}
		if want != nil && !want(s) {
			return false, fmt.Sprintf("%s holds %s as %+v", mc.name, id, s)
		}
		return true, ""
	}
}
