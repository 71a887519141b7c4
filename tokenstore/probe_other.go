//go:build !linux

package tokenstore

import "context"

// Probe implements TokenStore. Keychain and Credential Manager unlock with
// the login session, so there is nothing to learn without a real call.
func (k *KeyringStore) Probe(context.Context) error { return nil }
