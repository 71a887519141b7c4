package catalog

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/funes/funestest"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memory/memorytest"
)

func TestValidateRefusesBadRows(t *testing.T) {
	ok := Ref{Source: funes.HarnessChatGPT, SessionID: "a"}
	hash := strings.Repeat("ab", 32)
	for name, c := range map[string]Snapshot{
		"tag without id":     {Tags: []Tag{{Ref: Ref{Source: funes.HarnessChatGPT}, Project: "p"}}},
		"empty project":      {Tags: []Tag{{Ref: ok, Project: " "}}},
		"long project":       {Tags: []Tag{{Ref: ok, Project: strings.Repeat("p", 201)}}},
		"star without src":   {Stars: []Ref{{SessionID: "a"}}},
		"short tombstone":    {Tombstones: []Tombstone{{Hash: "abc"}}},
		"upper tombstone":    {Tombstones: []Tombstone{{Hash: strings.ToUpper(hash)}}},
		"allow without rule": {ScrubAllow: []Allowed{{Hash: hash}}},
		"history not counts": {ScrubHistory: []ScrubRun{{TS: 1, Counts: json.RawMessage(`["x"]`)}}},
		"short key":          {ScrubKey: "abcd"},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	good := Snapshot{Tags: []Tag{{Ref: ok, Project: "p"}}, Tombstones: []Tombstone{{Hash: hash}},
		ScrubHistory: []ScrubRun{{TS: 1, Counts: json.RawMessage(`{"aws":1}`)}}, ScrubKey: hash}
	if err := good.Validate(); err != nil {
		t.Errorf("a good catalog: %v", err)
	}
}

func TestImportKeepsTheAllowListKey(t *testing.T) {
	ctx := context.Background()
	m := memorytest.Open(t)
	own := strings.Repeat("ab", 32) // this memory has its own key (memscrub makes one on first use)
	if err := m.WriteCatalog(ctx, func(c *memory.CatalogTx) error { return c.SetMeta(ctx, scrubKeyMeta, own) }); err != nil {
		t.Fatal(err)
	}
	other := strings.Repeat("cd", 32)
	c := Snapshot{ScrubKey: other, ScrubAllow: []Allowed{{Hash: strings.Repeat("ef", 32), Rule: "aws", Added: 1}}}
	// No allow-list yet: the backup's key and entries are taken.
	rep, err := Import(ctx, m, c, false)
	if err != nil || rep.ScrubAllow != 1 || scrubKey(t, m) != other {
		t.Fatalf("import into an empty allow-list: %+v %v", rep, err)
	}
	// A second backup with yet another key cannot add to it.
	c2 := Snapshot{ScrubKey: strings.Repeat("01", 32), ScrubAllow: []Allowed{{Hash: strings.Repeat("23", 32), Rule: "aws"}}}
	rep, err = Import(ctx, m, c2, true)
	if err != nil || rep.ScrubAllow != 0 || rep.ScrubAllowSkipped != 1 || scrubKey(t, m) != other {
		t.Fatalf("import with another key: %+v %v", rep, err)
	}
}

func TestImportMergeForgetsNothing(t *testing.T) {
	ctx := context.Background()
	m := memorytest.Open(t)
	memorytest.Ingest(t, m, funestest.Conv("live", funes.HarnessCodex, "t", "", funestest.Day0, "q", "a"))
	c := Snapshot{
		Tombstones: []Tombstone{{Hash: memory.ConversationHash(funes.HarnessCodex, "live"), Forgotten: 1}, {Hash: memory.ConversationHash(funes.HarnessCodex, "gone"), Forgotten: 1}},
		Tags:       []Tag{{Ref: Ref{funes.HarnessCodex, "live"}, Project: "p"}, {Ref: Ref{funes.HarnessCodex, "absent"}, Project: "p"}},
	}
	rep, err := Import(ctx, m, c, true)
	if err != nil || rep.Tombstones != 1 || rep.Tags != 1 {
		t.Fatalf("merge catalog: %+v %v", rep, err)
	}
	if gone, _ := m.IsForgotten(ctx, funes.HarnessCodex, "live"); gone {
		t.Error("a merge tombstoned a conversation this memory holds")
	}
	if gone, _ := m.IsForgotten(ctx, funes.HarnessCodex, "gone"); !gone {
		t.Error("the backup's tombstone did not travel")
	}
}

// scrubKey is the memory's scrub key, as Export reads it.
func scrubKey(t *testing.T, m *memory.Memory) string {
	t.Helper()
	c, err := Export(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	return c.ScrubKey
}
