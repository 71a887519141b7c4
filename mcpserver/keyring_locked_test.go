//go:build linux

package mcpserver

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/tokenstore"
	"github.com/ireneo-app/ireneo/tokenstore/keyringtest"
)

// lockKeyring locks the private session's real keyring until the test ends.
func lockKeyring(t *testing.T) {
	t.Helper()
	if err := keyringtest.Lock(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := keyringtest.Unlock(); err != nil {
			t.Errorf("unlock after the test: %v", err)
		}
	})
}

// TestServeOnLockedKeyring: with the real keyring locked, the server starts
// at once, accepts a token made while it was unlocked, and refuses a wrong
// one; Probe says "locked" without a prompt; making a token explains.
func TestServeOnLockedKeyring(t *testing.T) {
	requireKeyring(t)
	if !keyringtest.PrivateSession(t) {
		return
	}
	ctx := context.Background()
	m := newFixtureMemory(t)
	store := tokenstore.NewKeyringStore()
	s := New(m, store, Options{Logger: quietLogger()})
	defer s.Close()
	name := uniqueName("locked")
	secret, _, err := s.Tokens().Create(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Delete(context.Background(), name) })

	lockKeyring(t)
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var ke *tokenstore.KeyringUnavailableError
	if err := store.Probe(pctx); !errors.As(err, &ke) || ke.Kind != tokenstore.KeyringLocked {
		t.Fatalf("Probe on a locked keyring = %v", err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatalf("Start on a locked keyring: %v", err)
	}
	c := connect(t, s.URL(), secret)
	if res := callTool(t, c, ToolListProjects, nil); res.IsError {
		t.Fatalf("call with a token made earlier: %s", resultText(res))
	}
	if _, err := s.Tokens().Authenticate(ctx, secret+"x"); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("a wrong token: %v", err)
	}
	// No display answers the unlock prompt here; a short deadline stands in
	// for the person who does not.
	cctx, cancel2 := context.WithTimeout(ctx, 3*time.Second)
	defer cancel2()
	if _, _, err := s.Tokens().Create(cctx, uniqueName("new"), nil); !errors.As(err, &ke) {
		t.Fatalf("create on a locked keyring: %v", err)
	}
}
