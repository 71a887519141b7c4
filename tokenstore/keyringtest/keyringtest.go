//go:build linux

// Package keyringtest locks and unlocks the gnome-keyring of a test session
// (scripts/test-session.sh), so tests can run Ireneo against a real keyring
// that is locked, and skips the tests that need a real keyring when the run
// has none (Require). It is imported by tests only.
package keyringtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
)

// Password is the login keyring's password in scripts/test-session.sh.
const Password = "ireneo-test"

const (
	service    = "org.freedesktop.secrets"
	root       = "/org/freedesktop/secrets"
	collection = dbus.ObjectPath("/org/freedesktop/secrets/collection/login")
)

// Lock locks the login keyring through the Secret Service's own Lock call,
// as a screen locker or `secret-tool lock` would.
func Lock() error {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("lock the keyring: %w", err)
	}
	defer conn.Close()
	var locked []dbus.ObjectPath
	var prompt dbus.ObjectPath
	if err := conn.Object(service, root).Call("org.freedesktop.Secret.Service.Lock", 0, []dbus.ObjectPath{collection}).Store(&locked, &prompt); err != nil {
		return fmt.Errorf("lock the keyring: %w", err)
	}
	if len(locked) != 1 {
		return fmt.Errorf("lock the keyring: locked %v, prompt %s", locked, prompt)
	}
	return nil
}

// Unlock unlocks it again with its password, without a prompt, through
// gnome-keyring's own interface (the one its PAM module uses).
func Unlock() error {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("unlock the keyring: %w", err)
	}
	defer conn.Close()
	obj := conn.Object(service, root)
	var out dbus.Variant
	var session dbus.ObjectPath
	if err := obj.Call("org.freedesktop.Secret.Service.OpenSession", 0, "plain", dbus.MakeVariant("")).Store(&out, &session); err != nil {
		return fmt.Errorf("unlock the keyring: open session: %w", err)
	}
	secret := struct {
		Session     dbus.ObjectPath
		Parameters  []byte
		Value       []byte
		ContentType string
	}{session, []byte{}, []byte(Password), "text/plain"}
	if err := obj.Call("org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface.UnlockWithMasterPassword", 0, collection, secret).Err; err != nil {
		return fmt.Errorf("unlock the keyring: %w", err)
	}
	return nil
}

// envChild marks the re-run of a test inside its private session.
const envChild = "IRENEO_PRIVATE_KEYRING"

// envDisplay carries the display into the private session for the test
// itself, while the session's bus (and so any unlock prompt it starts)
// has none: a prompt must never grab the shared test display.
const envDisplay = "IRENEO_PRIVATE_DISPLAY"

// PrivateSession runs the calling test again in a D-Bus session of its own,
// with a gnome-keyring of its own (unlocked, password Password) in fresh
// HOME, data and runtime folders, so locking it disturbs no other test.
// It returns true in that re-run, where the test goes on; in the first run
// it waits for the re-run, fails with its output if it failed, and returns
// false.
func PrivateSession(t *testing.T) bool {
	t.Helper()
	if os.Getenv(envChild) == "1" {
		if d := os.Getenv(envDisplay); d != "" {
			os.Setenv("DISPLAY", d)
		}
		return true
	}
	if _, err := exec.LookPath("dbus-run-session"); err != nil {
		t.Skip("dbus-run-session is not installed")
	}
	if _, err := exec.LookPath("gnome-keyring-daemon"); err != nil {
		t.Skip("gnome-keyring-daemon is not installed")
	}
	root := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "GNOME_KEYRING_CONTROL", "HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME":
			continue
		}
		env = append(env, kv)
	}
	for _, d := range []string{"home", "data", "run", "config"} {
		os.MkdirAll(filepath.Join(root, d), 0o700)
	}
	env = append(env, envChild+"=1", envDisplay+"="+os.Getenv("DISPLAY"),
		"HOME="+filepath.Join(root, "home"), "XDG_DATA_HOME="+filepath.Join(root, "data"),
		"XDG_RUNTIME_DIR="+filepath.Join(root, "run"), "XDG_CONFIG_HOME="+filepath.Join(root, "config"))
	script := `eval "$(printf %s "$0" | gnome-keyring-daemon --unlock --components=secrets)"; export GNOME_KEYRING_CONTROL; exec "$@"`
	cmd := exec.Command("dbus-run-session", "--", "sh", "-c", script, Password,
		os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err == nil && strings.Contains(string(out), "--- SKIP: "+t.Name()) {
		t.Skipf("skipped in its private keyring session:\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("%s in a private keyring session: %v\n%s", t.Name(), err, out)
	}
	return false
}
