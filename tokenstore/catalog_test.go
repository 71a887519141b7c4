package tokenstore

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/memory"
)

func TestTokenCatalog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	now := time.Unix(1_800_000_000, 0).UTC()
	if err := CreateAccessToken(ctx, m, "claude", []byte{1, 2, 3}, nil, now); err != nil {
		t.Fatal(err)
	}
	if err := CreateAccessToken(ctx, m, "codex", []byte{4, 5, 6}, []string{"alpha", "beta"}, now); err != nil {
		t.Fatal(err)
	}
	if err := CreateAccessToken(ctx, m, "claude", []byte{7}, nil, now); !errors.Is(err, ErrAccessTokenExists) {
		t.Fatalf("duplicate name: got %v, want ErrAccessTokenExists", err)
	}
	if err := CreateAccessToken(ctx, m, "other", []byte{1, 2, 3}, nil, now); err == nil {
		t.Fatal("duplicate hash accepted")
	}
	if err := CreateAccessToken(ctx, m, " ", []byte{9}, nil, now); err == nil {
		t.Fatal("blank name accepted")
	}

	toks, err := AccessTokens(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(toks) != 2 || toks[0].Name != "claude" || toks[1].Name != "codex" {
		t.Fatalf("tokens = %+v", toks)
	}
	if len(toks[0].Projects) != 0 || len(toks[1].Projects) != 2 || toks[1].Projects[1] != "beta" {
		t.Fatalf("projects = %v, %v", toks[0].Projects, toks[1].Projects)
	}
	if !toks[0].Created.Equal(now) || !toks[0].LastUsed.IsZero() || !toks[0].Active() {
		t.Fatalf("times = %+v", toks[0])
	}

	later := now.Add(time.Hour)
	if err := TouchAccessToken(ctx, m, "claude", later); err != nil {
		t.Fatal(err)
	}
	if err := TouchAccessToken(ctx, m, "claude", now); err != nil { // older: ignored
		t.Fatal(err)
	}
	tk, err := FindAccessToken(ctx, m, "claude")
	if err != nil {
		t.Fatal(err)
	}
	if !tk.LastUsed.Equal(later) || !bytes.Equal(tk.Hash, []byte{1, 2, 3}) {
		t.Fatalf("token = %+v", tk)
	}

	if err := RevokeAccessToken(ctx, m, "claude", later); err != nil {
		t.Fatal(err)
	}
	if err := RevokeAccessToken(ctx, m, "claude", later); err != nil {
		t.Fatalf("second revoke: %v", err)
	}
	if err := RevokeAccessToken(ctx, m, "nobody", later); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("revoke unknown: %v", err)
	}
	if _, err := FindAccessToken(ctx, m, "nobody"); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("unknown token: %v", err)
	}
	tk, _ = FindAccessToken(ctx, m, "claude")
	if tk.Active() {
		t.Fatal("revoked token still active")
	}
	// A revoked name can be taken again.
	if err := CreateAccessToken(ctx, m, "claude", []byte{8}, nil, later); err != nil {
		t.Fatal(err)
	}
	tk, _ = FindAccessToken(ctx, m, "claude")
	if !tk.Active() || !bytes.Equal(tk.Hash, []byte{8}) {
		t.Fatalf("recreated = %+v", tk)
	}
}
