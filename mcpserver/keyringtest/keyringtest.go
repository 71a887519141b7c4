//go:build linux

// Package keyringtest locks and unlocks the gnome-keyring of a test session
// (scripts/test-session.sh), so tests can run Ireneo against a real keyring
// that is locked. It is imported by tests only.
package keyringtest

import (
	"fmt"

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
