//go:build linux

package tokenstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/godbus/dbus/v5"
)

// Secret Service names, as go-keyring uses them.
const (
	secretsName      = "org.freedesktop.secrets"
	secretsPath      = "/org/freedesktop/secrets"
	loginCollection  = "/org/freedesktop/secrets/collection/login"
	defaultAlias     = "/org/freedesktop/secrets/aliases/default"
	collectionLocked = "org.freedesktop.Secret.Collection.Locked"
)

// Probe implements TokenStore: it reads the Secret Service's state over
// D-Bus without asking it for anything, so a locked keyring answers "locked"
// at once instead of raising an unlock prompt nobody may be there to answer.
func (k *KeyringStore) Probe(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- probeSecretService() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return &KeyringUnavailableError{Kind: KeyringTimeout, Reason: "it did not answer in time",
			Fix: "Check that your keyring (gnome-keyring, KWallet or KeePassXC) is running, then try again. " + fileStoreHint, Err: ctx.Err()}
	}
}

// sessionBus connects to the session bus that is already there. It never
// autolaunches one: godbus's ConnectSessionBus, given no address, runs
// dbus-launch, whose dbus-daemon outlives the process that asked (each
// `ireneo serve` on a box without a session bus left one running), and a
// keyring on a bus nobody else uses would hold nothing anyway.
func sessionBus() (*dbus.Conn, error) {
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return nil, err
	}
	if err := conn.Auth(nil); err != nil {
		conn.Close()
		return nil, err
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// requireSessionBus fails when there is no session bus to reach, before
// go-keyring, whose own connection would autolaunch one, is called.
func requireSessionBus() error {
	conn, err := sessionBus()
	if err != nil {
		return err
	}
	return conn.Close()
}

func probeSecretService() error {
	conn, err := sessionBus()
	if err != nil {
		return classifyKeyringError(err)
	}
	defer conn.Close()
	var owned bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, secretsName).Store(&owned); err != nil {
		return classifyKeyringError(err)
	}
	if !owned {
		// It may be started on demand; only a call would tell, and a call
		// may prompt. Activatable names count as present.
		var names []string
		if err := conn.BusObject().Call("org.freedesktop.DBus.ListActivatableNames", 0).Store(&names); err == nil {
			for _, n := range names {
				if n == secretsName {
					return nil
				}
			}
		}
		return &KeyringUnavailableError{Kind: KeyringNoService,
			Reason: "no Secret Service (such as gnome-keyring or KeePassXC) is running on the session bus",
			Fix:    "Install and start one, e.g. `apt install gnome-keyring` then `gnome-keyring-daemon --start --components=secrets`. " + fileStoreHint,
			Err:    errors.New("org.freedesktop.secrets has no owner and cannot be started")}
	}
	for _, path := range []dbus.ObjectPath{loginCollection, defaultAlias} {
		v, err := conn.Object(secretsName, path).GetProperty(collectionLocked)
		if err != nil {
			continue // no such collection: try the next, as go-keyring does
		}
		if locked, ok := v.Value().(bool); ok && locked {
			return &KeyringUnavailableError{Kind: KeyringLocked, Reason: "the keyring is locked",
				Fix: "Unlock it (log in to your desktop, or run `gnome-keyring-daemon --unlock` and type your password), then try again. " + fileStoreHint,
				Err: fmt.Errorf("collection %s is locked", path)}
		}
		return nil
	}
	return nil // no collection yet: the first Set makes one
}
