package memory

import (
	"context"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

// TestReadersKeepTheirConnections: a burst of readers as many as the pool
// holds leaves every connection open for the next (with its page cache and
// prepared statements); none is closed for being idle.
func TestReadersKeepTheirConnections(t *testing.T) {
	m := openTest(t)
	mustIngest(t, m, conv("c1", funes.HarnessClaudeCode, "Pool", "", day0, "one", "two"))
	ctx := context.Background()
	var rts []*ReadTx
	for range 8 {
		rt, err := m.BeginRead(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rts = append(rts, rt)
	}
	opened := m.db.Stats().OpenConnections
	for _, rt := range rts {
		rt.Close()
	}
	st := m.db.Stats()
	if opened < 8 || st.MaxIdleClosed != 0 || st.Idle != opened {
		t.Fatalf("after 8 readers at once (%d connections): %d idle, %d closed for being idle", opened, st.Idle, st.MaxIdleClosed)
	}
}
