package memory

import (
	"context"
	"errors"
	"testing"
)

func TestWriteCatalogCommitsOrRollsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := openTest(t)
	err := m.WriteCatalog(ctx, func(c *CatalogTx) error {
		if err := c.SetMeta(ctx, "door_test", "kept"); err != nil {
			return err
		}
		// A write is seen inside its own transaction.
		if v, err := c.Meta(ctx, "door_test"); err != nil || v != "kept" {
			t.Errorf("inside: %q, %v", v, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err = m.WriteCatalog(ctx, func(c *CatalogTx) error {
		if err := c.SetMeta(ctx, "door_test", "dropped"); err != nil {
			return err
		}
		if _, err := c.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES('door_other','x')`); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("fn's error: got %v", err)
	}
	if v := m.metaGet(ctx, "door_test"); v != "kept" {
		t.Errorf("after a rollback: %q, want the committed value", v)
	}
	if v := m.metaGet(ctx, "door_other"); v != "" {
		t.Errorf("a rolled back insert stayed: %q", v)
	}
	if err := m.WriteCatalog(ctx, nil); err == nil {
		t.Error("a nil fn was accepted")
	}
	var missing string
	m.WriteCatalog(ctx, func(c *CatalogTx) error {
		missing, err = c.Meta(ctx, "no_such_key")
		return err
	})
	if missing != "" || err != nil {
		t.Errorf("a missing key: %q, %v", missing, err)
	}
}
