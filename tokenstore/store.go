package tokenstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zalando/go-keyring"
)

// KeyringService is the service name token secrets are stored under in the
// OS keyring; the token's name is the keyring user.
const KeyringService = "ireneo"

// ErrSecretNotFound is returned by a TokenStore that holds no secret under a name.
var ErrSecretNotFound = errors.New("token secret not found in the token store")

// TokenStore keeps token secrets. The catalog in the memory holds only a
// hash; the store is the one place a secret can be read back from, for
// `token show --reveal` and `connect`.
type TokenStore interface {
	// Set stores the secret for a token name, replacing any earlier one.
	Set(ctx context.Context, name, secret string) error
	// Get returns the secret for a token name, or ErrSecretNotFound.
	Get(ctx context.Context, name string) (string, error)
	// Delete removes a token's secret; deleting a missing one is not an error.
	Delete(ctx context.Context, name string) error
	// Check reports whether the store can be used right now, with an error
	// that says what is wrong and how to fix it. It may raise an unlock
	// prompt and wait for it.
	Check(ctx context.Context) error
	// Probe is Check without side effects: it never prompts, so it can run
	// at start-up. It returns nil when it cannot tell.
	Probe(ctx context.Context) error
	// Describe names the store for messages, such as "the OS keyring".
	Describe() string
}

// KeyringUnavailableError says the OS keyring cannot be used, why, and how
// to fix it. Its message is meant to be shown to the person as is; the GUI
// shows Reason and offers its own choices instead of Fix, which speaks of
// command-line flags.
type KeyringUnavailableError struct {
	Kind   KeyringProblem
	Reason string // what is wrong, in plain words
	Fix    string // what to do about it, for a command line
	Err    error  // what the keyring library said
}

func (e *KeyringUnavailableError) Error() string {
	return fmt.Sprintf("the OS keyring is unavailable: %s. %s (keyring said: %v)", e.Reason, e.Fix, e.Err)
}

func (e *KeyringUnavailableError) Unwrap() error { return e.Err }

// KeyringProblem is what keeps the keyring from being used, so a screen can
// offer the one remedy that fits.
type KeyringProblem uint8

const (
	KeyringOther     KeyringProblem = iota
	KeyringNoBus                    // no D-Bus session bus
	KeyringNoService                // no Secret Service on the bus
	KeyringLocked                   // the keyring is locked (or its unlock prompt was dismissed)
	KeyringTimeout                  // it did not answer, perhaps waiting on a prompt
)

// ServingNote is what to tell a person whose keyring cannot be used: the
// server does not need it.
const ServingNote = "The MCP server does not need the keyring: it checks tokens against their hashes in the memory, " +
	"so clients with tokens made earlier keep working. Only making a token and copying or revealing its secret need it."

const fileStoreHint = "Or, knowing the secrets will sit in a plain file, pass --token-store file."

// classifyKeyringError turns go-keyring's D-Bus errors into a
// KeyringUnavailableError; other errors pass through.
func classifyKeyringError(err error) error {
	if err == nil || errors.Is(err, keyring.ErrNotFound) {
		return err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "dbus-launch"), strings.Contains(msg, "DBUS_SESSION_BUS_ADDRESS"),
		strings.Contains(msg, "address of session bus"),
		strings.Contains(msg, "dial unix"), strings.Contains(msg, "connection refused"):
		return &KeyringUnavailableError{
			Kind:   KeyringNoBus,
			Reason: "there is no D-Bus session bus",
			Fix:    "Run Ireneo inside your desktop session, or start one with `dbus-run-session -- ireneo ...`. " + fileStoreHint,
			Err:    err,
		}
	case strings.Contains(msg, "org.freedesktop.secrets"), strings.Contains(msg, "ServiceUnknown"):
		return &KeyringUnavailableError{
			Kind:   KeyringNoService,
			Reason: "no Secret Service (such as gnome-keyring or KeePassXC) is running on the session bus",
			Fix:    "Install and start one, e.g. `apt install gnome-keyring` then `gnome-keyring-daemon --start --components=secrets`. " + fileStoreHint,
			Err:    err,
		}
	case strings.Contains(msg, "failed to unlock"), strings.Contains(msg, "IsLocked"), strings.Contains(msg, "dismissed"):
		return &KeyringUnavailableError{
			Kind:   KeyringLocked,
			Reason: "the keyring is locked",
			Fix:    "Unlock it (log in to your desktop, or run `gnome-keyring-daemon --unlock` and type your password), then try again. " + fileStoreHint,
			Err:    err,
		}
	}
	return err
}

// keyringTimeout bounds one keyring call: a locked keyring may wait on an
// unlock prompt that nobody will answer.
const keyringTimeout = 30 * time.Second

// KeyringStore keeps token secrets in the OS keyring (Secret Service on
// Linux, Keychain on macOS, Credential Manager on Windows).
type KeyringStore struct {
	Service string // defaults to KeyringService
}

// NewKeyringStore returns a store on the OS keyring under KeyringService.
func NewKeyringStore() *KeyringStore { return &KeyringStore{Service: KeyringService} }

func (k *KeyringStore) service() string {
	if k.Service == "" {
		return KeyringService
	}
	return k.Service
}

// call runs one keyring operation with a deadline and classifies its error.
func (k *KeyringStore) call(ctx context.Context, fn func() error) error {
	ctx, cancel := context.WithTimeout(ctx, keyringTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		if err := requireSessionBus(); err != nil {
			done <- err
			return
		}
		done <- fn()
	}()
	select {
	case err := <-done:
		return classifyKeyringError(err)
	case <-ctx.Done():
		return &KeyringUnavailableError{
			Kind:   KeyringTimeout,
			Reason: "it did not answer in time (it may be waiting for an unlock prompt)",
			Fix:    "Unlock the keyring and try again. " + fileStoreHint,
			Err:    ctx.Err(),
		}
	}
}

// Set implements TokenStore.
func (k *KeyringStore) Set(ctx context.Context, name, secret string) error {
	return k.call(ctx, func() error { return keyring.Set(k.service(), name, secret) })
}

// Get implements TokenStore.
func (k *KeyringStore) Get(ctx context.Context, name string) (string, error) {
	var s string
	err := k.call(ctx, func() (err error) { s, err = keyring.Get(k.service(), name); return err })
	if errors.Is(err, keyring.ErrNotFound) {
		return "", fmt.Errorf("%s: %w", name, ErrSecretNotFound)
	}
	return s, err
}

// Delete implements TokenStore.
func (k *KeyringStore) Delete(ctx context.Context, name string) error {
	err := k.call(ctx, func() error { return keyring.Delete(k.service(), name) })
	if errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}

// Check implements TokenStore by looking up an entry that does not exist:
// a reachable, unlocked keyring answers "not found".
func (k *KeyringStore) Check(ctx context.Context) error {
	err := k.call(ctx, func() error {
		_, err := keyring.Get(k.service(), "ireneo keyring check")
		return err
	})
	if err == nil || errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}

// Describe implements TokenStore.
func (k *KeyringStore) Describe() string { return "the OS keyring" }

// MemoryTokenStore keeps secrets in process memory. It is for tests, and for
// anything else that must not touch the OS keyring.
type MemoryTokenStore struct {
	mu      sync.Mutex
	secrets map[string]string
	// Err, if set, is returned by every call, to simulate a broken keyring.
	Err error
}

// NewMemoryTokenStore returns an empty in-memory store.
func NewMemoryTokenStore() *MemoryTokenStore {
	return &MemoryTokenStore{secrets: map[string]string{}}
}

// Set implements TokenStore.
func (s *MemoryTokenStore) Set(_ context.Context, name, secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Err != nil {
		return s.Err
	}
	s.secrets[name] = secret
	return nil
}

// Get implements TokenStore.
func (s *MemoryTokenStore) Get(_ context.Context, name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Err != nil {
		return "", s.Err
	}
	v, ok := s.secrets[name]
	if !ok {
		return "", fmt.Errorf("%s: %w", name, ErrSecretNotFound)
	}
	return v, nil
}

// Delete implements TokenStore.
func (s *MemoryTokenStore) Delete(_ context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Err != nil {
		return s.Err
	}
	delete(s.secrets, name)
	return nil
}

// Check implements TokenStore.
func (s *MemoryTokenStore) Check(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Err
}

// Probe implements TokenStore.
func (s *MemoryTokenStore) Probe(ctx context.Context) error { return s.Check(ctx) }

// Describe implements TokenStore.
func (s *MemoryTokenStore) Describe() string { return "process memory" }
