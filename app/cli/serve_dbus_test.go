//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/mcpserver/mcptest"
)

// TestServeLaunchesNoBus: on a box without a session bus, each `ireneo
// serve` probed the keyring through a D-Bus library that autolaunched a
// dbus-daemon (dbus-launch), which outlived serve: two starts, two strays.
// Two starts of the real binary with DBUS_SESSION_BUS_ADDRESS unset and
// dbus-launch on PATH now leave no dbus-daemon started from their
// environment, and serve still says the keyring cannot be used.
func TestServeLaunchesNoBus(t *testing.T) {
	if _, err := exec.LookPath("dbus-launch"); err != nil {
		t.Skip("no dbus-launch (Debian's dbus-x11, which scripts/deps.sh installs): nothing could autolaunch a bus")
	}
	if _, err := os.Stat("/run/user/" + strconv.Itoa(os.Getuid()) + "/bus"); err == nil {
		t.Skip("this user has a session bus at /run/user/UID/bus, which the D-Bus library finds without an address")
	}
	bin := mcptest.BuildIreneo(t)
	home := t.TempDir()
	mem := filepath.Join(home, "mem")
	seedMemory(t, mem)
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_RUNTIME_DIR=" + t.TempDir()}
	// What the test started, found by the HOME it gave them; killed at the
	// end whatever the outcome, so a failure leaves no stray either.
	daemons := func() []int {
		var pids []int
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range procs {
			comm, err := os.ReadFile(filepath.Join(p, "comm"))
			if err != nil || strings.TrimSpace(string(comm)) != "dbus-daemon" {
				continue
			}
			environ, err := os.ReadFile(filepath.Join(p, "environ"))
			if err != nil || !slices.Contains(strings.Split(string(environ), "\x00"), "HOME="+home) {
				continue
			}
			pid, _ := strconv.Atoi(filepath.Base(p))
			pids = append(pids, pid)
		}
		return pids
	}
	t.Cleanup(func() {
		for _, pid := range daemons() {
			syscall.Kill(pid, syscall.SIGTERM)
		}
	})
	if n := len(daemons()); n != 0 {
		t.Fatalf("%d dbus-daemons with this test's HOME before any start", n)
	}
	var outs []string
	for i := range 2 {
		cmd := exec.Command(bin, "--memory", mem, "serve", "--addr", "127.0.0.1:0")
		cmd.Env = env
		stdout, _ := cmd.StdoutPipe()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Serve prints its address, then what the keyring probe found.
		said := make(chan string, 1)
		go func() {
			var b strings.Builder
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				b.WriteString(sc.Text() + "\n")
				if strings.Contains(sc.Text(), "No tokens yet") {
					break
				}
			}
			said <- b.String()
			for sc.Scan() {
			}
		}()
		var out string
		select {
		case out = <-said:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("start %d: serve said nothing in time; stderr:\n%s", i+1, stderr.String())
		}
		// Ctrl-C, which may come before serve listens for it: either way
		// serve is over.
		cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil && cmd.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
			t.Fatalf("start %d: serve: %v\n%s%s", i+1, err, out, stderr.String())
		}
		outs = append(outs, out)
	}
	if pids := daemons(); len(pids) != 0 {
		t.Fatalf("two starts of serve left %d dbus-daemons running (pids %v)", len(pids), pids)
	}
	for i, out := range outs {
		if !strings.Contains(out, "The OS keyring cannot be used (there is no D-Bus session bus)") {
			t.Errorf("start %d: serve did not say the keyring is unreachable:\n%s", i+1, out)
		}
	}
}
