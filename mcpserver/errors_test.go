package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
)

// TestGetAmbiguousIDIsArgumentError: an id two sources share is the
// agent's to fix (write it as source:id), known by its type, not its text.
func TestGetAmbiguousIDIsArgumentError(t *testing.T) {
	t.Parallel()
	m, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ts := time.Date(2026, 10, 8, 9, 0, 0, 0, time.UTC)
	var ss []*funes.Session
	for _, h := range []string{funes.HarnessChatGPT, funes.HarnessClaude} {
		ss = append(ss, &funes.Session{ID: "same-id", Harness: h, Title: h, Turns: []funes.Turn{{TurnUUID: h + "-0", TS: ts, Role: funes.RoleUser,
			Blocks: []funes.Block{{Type: funes.BlockText, Text: "hello from " + h}}}}})
	}
	if _, err := m.Ingest(context.Background(), ss, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	s := New(m, nil, Options{Logger: quietLogger()})
	defer s.Close()
	_, err = s.get(context.Background(), StdioCaller, GetArgs{SessionID: "same-id"})
	var ae *argError
	if !errors.As(err, &ae) || !strings.Contains(ae.msg, "write it as") {
		t.Fatalf("get same-id: %#v, want an argument error saying how to write it", err)
	}
}
