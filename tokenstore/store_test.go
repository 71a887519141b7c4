package tokenstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/tokenstore/keyringtest"
)

func TestKeyringStoreReal(t *testing.T) {
	keyringtest.Require(t)
	ctx := context.Background()
	k := NewKeyringStore()
	if err := k.Check(ctx); err != nil {
		t.Fatalf("keyring unusable: %v", err)
	}
	name := keyringtest.UniqueName("test")
	t.Cleanup(func() { k.Delete(context.Background(), name) })
	if _, err := k.Get(ctx, name); !errors.Is(err, ErrSecretNotFound) {
		t.Fatalf("get before set: %v", err)
	}
	if err := k.Set(ctx, name, "ireneo_first"); err != nil {
		t.Fatal(err)
	}
	if err := k.Set(ctx, name, "ireneo_second"); err != nil {
		t.Fatal(err)
	}
	if v, err := k.Get(ctx, name); err != nil || v != "ireneo_second" {
		t.Fatalf("get = %q, %v", v, err)
	}
	if err := k.Delete(ctx, name); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Get(ctx, name); !errors.Is(err, ErrSecretNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	if err := k.Delete(ctx, name); err != nil {
		t.Fatalf("delete twice: %v", err)
	}
}

func TestClassifyKeyringError(t *testing.T) {
	for msg, want := range map[string]string{
		`exec: "dbus-launch": executable file not found in $PATH`:                        "no D-Bus session bus",
		`dial unix /run/user/1000/bus: connect: no such file or directory`:               "no D-Bus session bus",
		`The name org.freedesktop.secrets was not provided by any .service files`:        "no Secret Service",
		`failed to unlock correct collection '/org/freedesktop/secrets/aliases/default'`: "locked",
	} {
		err := classifyKeyringError(errors.New(msg))
		var ke *KeyringUnavailableError
		if !errors.As(err, &ke) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--token-store file") {
			t.Errorf("%q → %v", msg, err)
		}
	}
	if err := classifyKeyringError(errors.New("something else")); err.Error() != "something else" {
		t.Errorf("unknown error rewritten: %v", err)
	}
}

func TestFileTokenStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cfg", "token-secrets.json")
	fs := NewFileTokenStore(path)
	if err := fs.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if err := fs.Set(ctx, "a", "ireneo_one"); err != nil {
		t.Fatal(err)
	}
	if err := fs.Set(ctx, "b", "ireneo_two"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, %v", st.Mode(), err)
	}
	if v, err := fs.Get(ctx, "a"); err != nil || v != "ireneo_one" {
		t.Fatalf("get = %q %v", v, err)
	}
	if err := fs.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Get(ctx, "a"); !errors.Is(err, ErrSecretNotFound) {
		t.Fatalf("deleted: %v", err)
	}
	if err := fs.Delete(ctx, "a"); err != nil {
		t.Fatalf("delete missing: %v", err)
	}
	os.Chmod(path, 0o644)
	if err := fs.Check(ctx); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("check on 0644: %v", err)
	}
	os.WriteFile(path, []byte("{not json"), 0o600)
	if err := fs.Check(ctx); err == nil {
		t.Fatal("check on garbage passed")
	}
}
