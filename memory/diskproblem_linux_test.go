package memory

import (
	"github.com/ireneo-app/ireneo/diskproblem"

	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	sysunix "golang.org/x/sys/unix"
)

// smallDisk mounts a 1 MiB tmpfs for the test, or skips where mounting
// is not allowed (it needs root or a user namespace).
func smallDisk(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := sysunix.Mount("tmpfs", dir, "tmpfs", 0, "size=1m,mode=0755"); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v)", err)
	}
	t.Cleanup(func() { sysunix.Unmount(dir, sysunix.MNT_DETACH) })
	return dir
}

// fill writes zeros to a file under dir until the disk is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	// tmpfs takes the last partial pages too.
	for {
		if _, err := f.Write(buf[:512]); err != nil {
			return
		}
	}
}

// TestFullDiskSaysSo: at 0 bytes free, opening the memory (status, recall,
// forget and scrub all do) and a forget on a memory already open say the
// disk is full, not "disk I/O error (4874)".
func TestFullDiskSaysSo(t *testing.T) {
	disk := smallDisk(t)
	dir := filepath.Join(disk, "mem")
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mustIngest(t, m, conv("c1", funes.HarnessClaudeCode, "pump seals", "", day0, "the pump seal leaks", "replace it"))
	m.Close()
	fill(t, disk)

	_, err = Open(dir)
	if !errors.Is(err, diskproblem.ErrDiskFull) || !strings.Contains(err.Error(), "is full") || strings.HasPrefix(strings.TrimPrefix(err.Error(), "open memory "+dir+": "), "read schema") {
		t.Fatalf("Open on a full disk: %v", err)
	}

	os.Remove(filepath.Join(disk, "fill"))
	m, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	mustIngest(t, m, conv("c2", funes.HarnessClaudeCode, "more", "", day0, strings.Repeat("filler words ", 2000), "ok"))
	fill(t, disk)
	if _, err := m.Forget(context.Background(), []string{"c1"}, nil); !errors.Is(err, diskproblem.ErrDiskFull) {
		t.Fatalf("Forget on a full disk: %v", err)
	}
}

// TestReadOnlyDiskSaysSo: a memory on a read-only file system says so.
func TestReadOnlyDiskSaysSo(t *testing.T) {
	disk := smallDisk(t)
	dir := filepath.Join(disk, "mem")
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mustIngest(t, m, conv("c1", funes.HarnessClaudeCode, "pump seals", "", day0, "the pump seal leaks", "replace it"))
	m.Close()
	if err := sysunix.Mount("", disk, "", sysunix.MS_REMOUNT|sysunix.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only: %v", err)
	}
	_, err = Open(dir)
	if !errors.Is(err, diskproblem.ErrReadOnly) || !strings.Contains(err.Error(), "read-only file system") {
		t.Fatalf("Open on a read-only disk: %v", err)
	}
}

// TestNoPermissionSaysSo: a memory folder the user may not write says
// so. Root may write anything, so as root the check runs in a child as
// nobody.
func TestNoPermissionSaysSo(t *testing.T) {
	if dir := os.Getenv("IRENEO_TEST_PERM_DIR"); dir != "" {
		_, err := Open(dir)
		if !errors.Is(err, diskproblem.ErrPermission) || !strings.Contains(err.Error(), "permission denied") {
			t.Fatalf("Open without permission: %v", err)
		}
		return
	}
	root := t.TempDir()
	os.Chmod(root, 0o755)
	dir := filepath.Join(root, "mem")
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if os.Geteuid() != 0 {
		os.Chmod(dir, 0o500)
		defer os.Chmod(dir, 0o700)
		t.Setenv("IRENEO_TEST_PERM_DIR", dir)
		TestNoPermissionSaysSo(t)
		return
	}
	os.Chmod(dir, 0o755)
	for _, p := range []string{root, filepath.Dir(root)} {
		os.Chmod(p, 0o755) // nobody must reach the folder, only not write it
	}
	bin, err := os.ReadFile(os.Args[0]) // the build folder is root's alone
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(root, "memory.test")
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run", "^TestNoPermissionSaysSo$")
	cmd.Env = append(os.Environ(), "IRENEO_TEST_PERM_DIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}
