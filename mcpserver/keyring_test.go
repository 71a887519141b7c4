package mcpserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/tokenstore"
	"github.com/ireneo-app/ireneo/tokenstore/keyringtest"
)

// TestTokensRealKeyring: a token made against the real keyring serves an
// HTTP client, reveals the same secret, and after revocation is refused and
// gone from the keyring. Then no file in the memory or config directory
// holds the secret.
func TestTokensRealKeyring(t *testing.T) {
	requireKeyring(t)
	ctx := context.Background()
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)

	m := newFixtureMemory(t)
	store := tokenstore.NewKeyringStore()
	s := New(m, store, Options{Logger: quietLogger()})
	defer s.Close()
	name := uniqueName("real")
	secret, _, err := s.Tokens().Create(ctx, name, []string{"alpha"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Delete(context.Background(), name) })
	if got, err := store.Get(ctx, name); err != nil || got != secret {
		t.Fatalf("keyring holds %q, %v", got, err)
	}
	if got, err := s.Tokens().Reveal(ctx, name); err != nil || got != secret {
		t.Fatalf("reveal = %q, %v", got, err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s.URL(), secret)
	res := callTool(t, c, ToolRecall, map[string]any{"query": "MT-4471"})
	if res.IsError || !strings.Contains(resultText(res), markerAlpha) || strings.Contains(resultText(res), markerBeta) {
		t.Fatalf("recall with a keyring token: %s", resultText(res))
	}
	s.Stop(ctx)
	s.FlushAudit()

	assertSecretInNoFile(t, secret, m.Dir(), cfg)

	if err := s.Tokens().Revoke(ctx, name); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Get(ctx, name); !errors.Is(err, tokenstore.ErrSecretNotFound) {
		t.Fatalf("revoked secret still in the keyring: %v", err)
	}
	if _, err := s.Tokens().Authenticate(ctx, secret); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("revoked token authenticates: %v", err)
	}
}

// assertSecretInNoFile greps every file under dirs for the secret, whole
// and for its random part alone.
func assertSecretInNoFile(t *testing.T, secret string, dirs ...string) {
	t.Helper()
	needles := []string{secret, strings.TrimPrefix(secret, TokenPrefix)}
	files := 0
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			files++
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, n := range needles {
				if strings.Contains(string(b), n) {
					t.Errorf("token secret found in %s", path)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files == 0 {
		t.Fatal("grepped no files")
	}
}

var (
	requireKeyring = keyringtest.Require
	uniqueName     = keyringtest.UniqueName
)

// The keyring-unavailable cases run in a child process, because the D-Bus
// session connection is cached for the life of a process.
const keyringChildEnv = "IRENEO_KEYRING_CHILD"

func TestKeyringUnavailableChild(t *testing.T) {
	if os.Getenv(keyringChildEnv) == "" {
		t.Skip("helper for TestKeyringUnavailable")
	}
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, _, err = NewTokens(m, tokenstore.NewKeyringStore()).Create(context.Background(), "child", nil)
	fmt.Printf("RESULT: %v\n", err)
}

func TestKeyringUnavailable(t *testing.T) {
	requireKeyring(t)
	run := func(env ...string) string {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestKeyringUnavailableChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), append([]string{keyringChildEnv + "=1"}, env...)...)
		out, _ := cmd.CombinedOutput()
		for _, line := range strings.Split(string(out), "\n") {
			if r, ok := strings.CutPrefix(line, "RESULT: "); ok {
				return r
			}
		}
		t.Fatalf("child said:\n%s", out)
		return ""
	}

	// No session bus at all, and no dbus-launch to start one.
	got := run("DBUS_SESSION_BUS_ADDRESS=", "PATH="+t.TempDir())
	if !strings.Contains(got, "the OS keyring is unavailable: there is no D-Bus session bus") || !strings.Contains(got, "--token-store file") {
		t.Errorf("no bus: %s", got)
	}

	// A session bus that can start gnome-keyring, whose new keyring is
	// locked with nobody to type the password.
	addr := startBus(t, true)
	got = run("DBUS_SESSION_BUS_ADDRESS=" + addr)
	if !strings.Contains(got, "the keyring is locked") || !strings.Contains(got, "Unlock it") {
		t.Errorf("locked: %s", got)
	}

	// A session bus with no Secret Service on it.
	addr = startBus(t, false)
	got = run("DBUS_SESSION_BUS_ADDRESS=" + addr)
	if !strings.Contains(got, "no Secret Service") || !strings.Contains(got, "gnome-keyring") {
		t.Errorf("no secret service: %s", got)
	}
}

// startBus starts a private session bus and returns its address. With
// services, it can start the system's D-Bus services (gnome-keyring among
// them) on demand; without, nothing but what connects to it.
func startBus(t *testing.T, services bool) string {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Fatalf("dbus-daemon not found: %v", err)
	}
	dir := t.TempDir()
	args := []string{"--session", "--nofork", "--print-address=1"}
	if !services {
		conf := filepath.Join(dir, "bus.conf")
		os.WriteFile(conf, []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir=`+dir+`</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>`), 0o600)
		args = []string{"--config-file=" + conf, "--nofork", "--print-address=1"}
	}
	cmd := exec.Command(daemon, args...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_RUNTIME_DIR="+dir)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(addr)
}
