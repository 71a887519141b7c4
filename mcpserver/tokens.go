package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// TokenPrefix starts every token secret, so a leaked one is recognisable.
const TokenPrefix = "ireneo_"

// tokenRandomBytes is how much randomness a secret carries.
const tokenRandomBytes = 32

// touchEvery limits how often a token's last-use time is written: once a
// minute is plenty for a person reading "last used", and spares the database
// a write on every call.
const touchEvery = time.Minute

// ErrUnauthorized is returned for a missing, unknown or revoked token; the
// three are deliberately indistinguishable.
var ErrUnauthorized = errors.New("missing, unknown or revoked token")

// Caller is who is making a tool call: a token's name and scope, or "stdio".
type Caller struct {
	Name  string
	Scope []string // the projects the caller may see; nil means everything
	key   string   // identifies the very token (its hash), to bind sessions to it
}

// StdioCaller is the caller for `ireneo mcp`: the person's own process,
// unscoped.
var StdioCaller = Caller{Name: "stdio"}

// Tokens creates, lists, revokes and checks MCP access tokens: the secret in
// a TokenStore, the record in the memory's catalog (tokenstore's catalog.go).
type Tokens struct {
	mem *memory.Memory
	now func() time.Time

	mu      sync.Mutex
	store   tokenstore.TokenStore // guarded by mu: the GUI may switch it while serving
	touched map[string]time.Time  // last time we wrote last_used, per name
}

// NewTokens manages the tokens of memory m, keeping secrets in store.
func NewTokens(m *memory.Memory, store tokenstore.TokenStore) *Tokens {
	return &Tokens{mem: m, store: store, now: time.Now, touched: map[string]time.Time{}}
}

// Store is the token store secrets are kept in.
func (t *Tokens) Store() tokenstore.TokenStore {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.store
}

// SetStore switches where secrets are kept from now on, as when a person
// whose keyring is locked chooses the file store. Serving never reads it.
func (t *Tokens) SetStore(s tokenstore.TokenStore) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.store = s
}

// NewSecret makes a fresh token secret: TokenPrefix and 32 random bytes,
// base64url without padding.
func NewSecret() (string, error) {
	b := make([]byte, tokenRandomBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make token secret: %w", err)
	}
	return TokenPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// HashSecret is the SHA-256 the catalog keeps for a secret.
func HashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// ValidateTokenName checks a token name: 1 to 64 letters, digits, '.', '_'
// or '-', so it is safe as a keyring user, a file key and a shell word.
func ValidateTokenName(name string) error {
	if name == "" {
		return errors.New("token name is empty")
	}
	if len(name) > 64 {
		return fmt.Errorf("token name %q is longer than 64 characters", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("token name %q: use only letters, digits, '.', '_' and '-'", name)
		}
	}
	if name == StdioCaller.Name {
		return fmt.Errorf("token name %q is reserved for the stdio server", name)
	}
	return nil
}

// cleanScope trims, drops empties and duplicates, and keeps order.
func cleanScope(projects []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range projects {
		p = strings.TrimSpace(p)
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// Create makes a token for a client, stores its secret and records it. The
// secret is returned once; afterwards only Reveal reads it back from the store.
func (t *Tokens) Create(ctx context.Context, name string, projects []string) (string, tokenstore.AccessToken, error) {
	if err := ValidateTokenName(name); err != nil {
		return "", tokenstore.AccessToken{}, err
	}
	projects = cleanScope(projects)
	if info, err := tokenstore.FindAccessToken(ctx, t.mem, name); err == nil && info.Active() {
		return "", tokenstore.AccessToken{}, fmt.Errorf("token %s: %w; revoke it first or pick another name", name, tokenstore.ErrAccessTokenExists)
	}
	store := t.Store()
	if err := store.Check(ctx); err != nil {
		return "", tokenstore.AccessToken{}, err
	}
	secret, err := NewSecret()
	if err != nil {
		return "", tokenstore.AccessToken{}, err
	}
	if err := store.Set(ctx, name, secret); err != nil {
		return "", tokenstore.AccessToken{}, fmt.Errorf("store token %s in %s: %w", name, store.Describe(), err)
	}
	now := t.now().UTC().Truncate(time.Second)
	if err := tokenstore.CreateAccessToken(ctx, t.mem, name, HashSecret(secret), projects, now); err != nil {
		// Don't leave a secret behind that no catalog entry accepts.
		store.Delete(context.WithoutCancel(ctx), name)
		return "", tokenstore.AccessToken{}, err
	}
	return secret, tokenstore.AccessToken{Name: name, Projects: projects, Created: now}, nil
}

// List returns every token, revoked ones included. It never reads secrets.
func (t *Tokens) List(ctx context.Context) ([]tokenstore.AccessToken, error) {
	return tokenstore.AccessTokens(ctx, t.mem)
}

// Revoke revokes a token at once and removes its secret from the store.
func (t *Tokens) Revoke(ctx context.Context, name string) error {
	if err := tokenstore.RevokeAccessToken(ctx, t.mem, name, t.now()); err != nil {
		return err
	}
	if err := t.Store().Delete(ctx, name); err != nil {
		return fmt.Errorf("token %s is revoked, but its secret could not be removed from %s: %w", name, t.Store().Describe(), err)
	}
	return nil
}

// Reveal reads a live token's secret back from the store.
func (t *Tokens) Reveal(ctx context.Context, name string) (string, error) {
	info, err := tokenstore.FindAccessToken(ctx, t.mem, name)
	if err != nil {
		return "", err
	}
	if !info.Active() {
		return "", fmt.Errorf("token %s was revoked on %s; create a new one", name, info.Revoked.Local().Format(time.DateTime))
	}
	store := t.Store()
	secret, err := store.Get(ctx, name)
	if err != nil {
		if errors.Is(err, tokenstore.ErrSecretNotFound) {
			return "", &missingSecretError{fmt.Sprintf("token %s: its secret is not in %s (was it made with another token store?); revoke it and create a new one", name, store.Describe())}
		}
		return "", err
	}
	// A secret that no longer matches the catalog would only fail later, at the client.
	if subtle.ConstantTimeCompare(HashSecret(secret), info.Hash) != 1 {
		return "", &missingSecretError{fmt.Sprintf("token %s: the secret in %s does not match the catalog; revoke it and create a new one", name, store.Describe())}
	}
	return secret, nil
}

// missingSecretError is a live token whose secret the store does not hold
// (or holds wrong): it is ErrSecretNotFound, with what to do about it.
type missingSecretError struct{ msg string }

func (e *missingSecretError) Error() string { return e.msg }
func (e *missingSecretError) Unwrap() error { return tokenstore.ErrSecretNotFound }

// maxBearerLen bounds what Authenticate hashes; real secrets are 50 bytes.
const maxBearerLen = 512

// Authenticate finds the live token whose secret is bearer. Every active
// hash is compared in constant time, so timing says nothing about which
// bytes matched. Revocations by other processes apply on the next call.
func (t *Tokens) Authenticate(ctx context.Context, bearer string) (Caller, error) {
	if bearer == "" || len(bearer) > maxBearerLen {
		return Caller{}, ErrUnauthorized
	}
	toks, err := tokenstore.AccessTokens(ctx, t.mem)
	if err != nil {
		return Caller{}, fmt.Errorf("check token: %w", err)
	}
	h := HashSecret(bearer)
	found := -1
	for i, tk := range toks {
		eq := subtle.ConstantTimeCompare(h, tk.Hash)
		if eq == 1 && tk.Active() {
			found = i
		}
	}
	if found < 0 {
		return Caller{}, ErrUnauthorized
	}
	tk := toks[found]
	t.touch(ctx, tk.Name)
	c := Caller{Name: tk.Name, key: string(tk.Hash)}
	if len(tk.Projects) > 0 {
		c.Scope = tk.Projects
	}
	return c, nil
}

// touch records a token's use, at most once per touchEvery.
func (t *Tokens) touch(ctx context.Context, name string) {
	now := t.now()
	t.mu.Lock()
	last, ok := t.touched[name]
	if ok && now.Sub(last) < touchEvery {
		t.mu.Unlock()
		return
	}
	t.touched[name] = now
	t.mu.Unlock()
	// Best effort: a busy database must not fail the call it records.
	tokenstore.TouchAccessToken(context.WithoutCancel(ctx), t.mem, name, now)
}
