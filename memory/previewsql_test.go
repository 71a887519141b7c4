package memory

import (
	"context"
	"database/sql"
	"testing"
)

// TestPreviewOfATurnWithoutText: a turn with no text of its own (an empty
// message between two others) has neither a stored preview nor a searched
// chunk; its preview is "", not the NULL that stopped a recall showing it
// beside a hit ("converting NULL to string is unsupported", bench-recall's
// -diversity and -stopwords ablations on RealMem).
func TestPreviewOfATurnWithoutText(t *testing.T) {
	m := openTest(t)
	mustIngest(t, m, conv("c1", "funes", "", "", day0, "the pump seal leaks", "", "replace the seal"))
	ctx := context.Background()
	n, empty := 0, 0
	err := EachRow(ctx, m.db, `SELECT t.seq, t.preview, `+PreviewSQL+` FROM turns t`, nil, func(rows *sql.Rows) error {
		var seq int
		var stored, start string
		if err := rows.Scan(&seq, &stored, &start); err != nil {
			return err
		}
		n++
		if stored == "" && start == "" {
			empty++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || empty != 1 {
		t.Fatalf("%d turns, %d without a preview; want 3 and the empty one", n, empty)
	}
}
