//go:build !linux

package tokenstore

import "context"

// Probe implements TokenStore. Keychain and Credential Manager unlock with
// the login session, so there is nothing to learn without a real call.
func (k *KeyringStore) Probe(context.Context) error { return nil }

// requireSessionBus is Linux's: elsewhere the keyring is not on D-Bus.
func requireSessionBus() error { return nil }
