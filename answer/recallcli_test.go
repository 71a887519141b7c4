package answer

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// entryByFmt is hitEntry as it was written with fmt, the reference the
// hand-written one must match byte for byte.
func entryByFmt(n int, h Hit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d] %s · %s", n, minute(h.TS), h.Source)
	if h.Title != "" {
		fmt.Fprintf(&b, " · %q", h.Title)
	}
	if len(h.Projects) > 0 {
		fmt.Fprintf(&b, " · project: %s", strings.Join(h.Projects, ", "))
	}
	fmt.Fprintf(&b, "\nreceipt: session_id=%s turn_uuid=%s\n", h.SessionID, h.TurnUUID)
	for _, n := range h.Neighbors {
		if n.Seq < h.Seq {
			fmt.Fprintf(&b, "  (before) %s: %s\n", n.Role, n.Text)
		}
	}
	fmt.Fprintf(&b, "%s: %s\n", h.Role, h.Text)
	for _, n := range h.Neighbors {
		if n.Seq > h.Seq {
			fmt.Fprintf(&b, "  (after) %s: %s\n", n.Role, n.Text)
		}
	}
	return b.String()
}

func TestHitEntryMatchesFmt(t *testing.T) {
	ts := time.Date(2026, 10, 8, 9, 14, 0, 0, time.FixedZone("x", 3600))
	titles := []string{"", "Pump seal", `say "hi"\now`, "tab\tand\nline", "bad \xff byte", "café · 東京 🎉", "\u2028sep"}
	for i, title := range titles {
		for _, h := range []Hit{
			{SessionID: "s-1", TurnUUID: "u-1", Seq: 3, TS: ts, Role: "user", Source: "chatgpt", Title: title, Text: "the text"},
			{SessionID: "s-2", TurnUUID: "u-2", Seq: 0, Role: "assistant", Source: "claude", Title: title, Projects: []string{"alpha", "beta"},
				Neighbors: []Neighbor{{Seq: 1, Role: "user", Text: "after it"}}},
			{SessionID: "s-3", TurnUUID: "u-3", Seq: 5, TS: ts, Role: "user", Source: "codex", Title: title, Projects: []string{"one"}, Text: "x\n\ny …",
				Neighbors: []Neighbor{{Seq: 4, Role: "assistant", Text: "before"}, {Seq: 6, Role: "assistant", Text: ""}}},
		} {
			if got, want := hitEntry(i+1, h), entryByFmt(i+1, h); got != want {
				t.Errorf("hitEntry =\n%q\nwant\n%q", got, want)
			}
		}
	}
}
