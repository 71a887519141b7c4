package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sysunix "golang.org/x/sys/unix"
)

// TestHookProblemRecordedWhenMemoryUnwritable: a hook whose memory is on a
// read-only disk records its failure outside the memory folder, where
// `status` finds it; with nowhere to write at all (a full disk) it exits 1
// with the problem on stderr, which Claude Code shows the person. Both were
// silent: the log was in the memory folder.
func TestHookProblemRecordedWhenMemoryUnwritable(t *testing.T) {
	h := newHookEnv(t)
	disk := t.TempDir()
	if err := sysunix.Mount("tmpfs", disk, "tmpfs", 0, "size=2m,mode=0755"); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v)", err)
	}
	defer sysunix.Unmount(disk, sysunix.MNT_DETACH)
	h.mem = filepath.Join(disk, "mem")
	h.ok("--memory", h.mem, "connect", "claude-code", "--write", "--hooks", "--token-store", "file")
	h.ok("--memory", h.mem, "status")
	if err := sysunix.Mount("", disk, "", sysunix.MS_REMOUNT|sysunix.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only: %v", err)
	}
	code, out, errs := h.run(ccInput("SessionEnd", h.transcript, `,"reason":"exit"`), h.claudeHookCommand("SessionEnd")...)
	quiet(t, "SessionEnd on a read-only memory", code, out, errs)
	code, out, errs = h.run("", h.bin, "--memory", h.mem, "status")
	if code == 0 || !strings.Contains(out, "hook problem:") || !strings.Contains(out, "read-only file system") || !strings.Contains(errs, "read-only file system") {
		t.Fatalf("status of a read-only memory after a failed hook: exit %d\n%s%s", code, out, errs)
	}

	// Nowhere to write: the memory's disk is full and so is the state folder.
	if err := sysunix.Mount("", disk, "", sysunix.MS_REMOUNT, ""); err != nil {
		t.Fatal(err)
	}
	h.env = append(h.env, "XDG_STATE_HOME="+filepath.Join(disk, "state"))
	f, _ := os.Create(filepath.Join(disk, "fill"))
	for buf := make([]byte, 4096); ; {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	f.Close()
	code, out, errs = h.run(ccInput("SessionEnd", h.transcript, `,"reason":"exit"`), h.claudeHookCommand("SessionEnd")...)
	if code != 1 || out != "" || !strings.Contains(errs, "SessionEnd session "+ccSession) || !strings.Contains(errs, "no space left") {
		t.Fatalf("SessionEnd with nowhere to log: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
