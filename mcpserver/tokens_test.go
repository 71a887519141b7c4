package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/tokenstore"
)

func TestNewSecret(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		s, err := NewSecret()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(s, TokenPrefix) {
			t.Fatalf("%q lacks the prefix", s)
		}
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(s, TokenPrefix))
		if err != nil || len(raw) < 32 {
			t.Fatalf("%q: %d random bytes, %v", s, len(raw), err)
		}
		if seen[s] {
			t.Fatal("repeated secret")
		}
		seen[s] = true
	}
}

func TestValidateTokenName(t *testing.T) {
	for _, ok := range []string{"claude-code", "cursor", "work.laptop_2"} {
		if err := ValidateTokenName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "stdio", "has space", "semi;colon", "../x", strings.Repeat("a", 65), "ünï"} {
		if err := ValidateTokenName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func newTokens(t *testing.T, store tokenstore.TokenStore) (*Tokens, *memory.Memory) {
	t.Helper()
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return NewTokens(m, store), m
}

func TestTokensLifecycle(t *testing.T) {
	ctx := context.Background()
	store := tokenstore.NewMemoryTokenStore()
	tk, m := newTokens(t, store)
	now := time.Date(2026, 10, 8, 9, 0, 0, 0, time.UTC)
	tk.now = func() time.Time { return now }

	secret, info, err := tk.Create(ctx, "cursor", []string{" alpha ", "beta", "alpha", ""})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(info.Projects, ",") != "alpha,beta" || !info.Created.Equal(now) {
		t.Fatalf("info = %+v", info)
	}
	if got, _ := store.Get(ctx, "cursor"); got != secret {
		t.Fatal("secret not in the store")
	}
	if _, _, err := tk.Create(ctx, "cursor", nil); !errors.Is(err, tokenstore.ErrAccessTokenExists) {
		t.Fatalf("duplicate: %v", err)
	}
	if got, err := tk.Reveal(ctx, "cursor"); err != nil || got != secret {
		t.Fatalf("reveal = %q, %v", got, err)
	}

	c, err := tk.Authenticate(ctx, secret)
	if err != nil || c.Name != "cursor" || strings.Join(c.Scope, ",") != "alpha,beta" {
		t.Fatalf("authenticate = %+v, %v", c, err)
	}
	info, _ = tokenstore.FindAccessToken(ctx, m, "cursor")
	if !info.LastUsed.Equal(now) {
		t.Fatalf("last used = %v", info.LastUsed)
	}
	// Within a minute, no further write.
	now = now.Add(30 * time.Second)
	tk.Authenticate(ctx, secret)
	if info, _ = tokenstore.FindAccessToken(ctx, m, "cursor"); !info.LastUsed.Equal(now.Add(-30 * time.Second)) {
		t.Fatalf("touched again within a minute: %v", info.LastUsed)
	}
	now = now.Add(time.Minute)
	tk.Authenticate(ctx, secret)
	if info, _ = tokenstore.FindAccessToken(ctx, m, "cursor"); !info.LastUsed.Equal(now) {
		t.Fatalf("not touched after a minute: %v", info.LastUsed)
	}

	for _, bad := range []string{"", secret + "x", secret[:len(secret)-1], strings.Repeat("a", 10000)} {
		if _, err := tk.Authenticate(ctx, bad); !errors.Is(err, ErrUnauthorized) {
			t.Errorf("authenticate(%.20q) = %v", bad, err)
		}
	}

	// An unscoped token has a nil scope: everything.
	all, _, err := tk.Create(ctx, "desk", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := tk.Authenticate(ctx, all); c.Scope != nil {
		t.Fatalf("unscoped token scope = %#v", c.Scope)
	}

	if err := tk.Revoke(ctx, "cursor"); err != nil {
		t.Fatal(err)
	}
	if _, err := tk.Authenticate(ctx, secret); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("revoked token: %v", err)
	}
	if _, err := store.Get(ctx, "cursor"); !errors.Is(err, tokenstore.ErrSecretNotFound) {
		t.Fatalf("revoked secret still stored: %v", err)
	}
	if _, err := tk.Reveal(ctx, "cursor"); err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("reveal revoked: %v", err)
	}
	if err := tk.Revoke(ctx, "nobody"); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("revoke unknown: %v", err)
	}
	list, err := tk.List(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("list = %+v, %v", list, err)
	}
}

func TestTokensStoreFailureLeavesNothing(t *testing.T) {
	ctx := context.Background()
	store := tokenstore.NewMemoryTokenStore()
	store.Err = &tokenstore.KeyringUnavailableError{Reason: "the keyring is locked", Fix: "Unlock it.", Err: errors.New("failed to unlock correct collection")}
	tk, m := newTokens(t, store)
	_, _, err := tk.Create(ctx, "cursor", nil)
	var ke *tokenstore.KeyringUnavailableError
	if !errors.As(err, &ke) {
		t.Fatalf("err = %v", err)
	}
	if list, _ := tokenstore.AccessTokens(ctx, m); len(list) != 0 {
		t.Fatalf("catalog has %v after a failed create", list)
	}
}

func TestTokensRevealMismatch(t *testing.T) {
	ctx := context.Background()
	store := tokenstore.NewMemoryTokenStore()
	tk, _ := newTokens(t, store)
	if _, _, err := tk.Create(ctx, "cursor", nil); err != nil {
		t.Fatal(err)
	}
	store.Set(ctx, "cursor", "ireneo_somethingelse")
	if _, err := tk.Reveal(ctx, "cursor"); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("reveal mismatched: %v", err)
	}
	store.Delete(ctx, "cursor")
	if _, err := tk.Reveal(ctx, "cursor"); err == nil || !strings.Contains(err.Error(), "not in process memory") {
		t.Fatalf("reveal missing: %v", err)
	}
}
