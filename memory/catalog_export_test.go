package memory

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

func TestCatalogValidateRefusesBadRows(t *testing.T) {
	ok := CatalogRef{Source: funes.HarnessChatGPT, SessionID: "a"}
	hash := strings.Repeat("ab", 32)
	for name, c := range map[string]Catalog{
		"tag without id":     {Tags: []CatalogTag{{CatalogRef: CatalogRef{Source: funes.HarnessChatGPT}, Project: "p"}}},
		"empty project":      {Tags: []CatalogTag{{CatalogRef: ok, Project: " "}}},
		"long project":       {Tags: []CatalogTag{{CatalogRef: ok, Project: strings.Repeat("p", 201)}}},
		"star without src":   {Stars: []CatalogRef{{SessionID: "a"}}},
		"short tombstone":    {Tombstones: []CatalogTombstone{{Hash: "abc"}}},
		"upper tombstone":    {Tombstones: []CatalogTombstone{{Hash: strings.ToUpper(hash)}}},
		"allow without rule": {ScrubAllow: []CatalogAllow{{Hash: hash}}},
		"history not counts": {ScrubHistory: []CatalogScrub{{TS: 1, Counts: json.RawMessage(`["x"]`)}}},
		"short key":          {ScrubKey: "abcd"},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	good := Catalog{Tags: []CatalogTag{{CatalogRef: ok, Project: "p"}}, Tombstones: []CatalogTombstone{{Hash: hash}},
		ScrubHistory: []CatalogScrub{{TS: 1, Counts: json.RawMessage(`{"aws":1}`)}}, ScrubKey: hash}
	if err := good.Validate(); err != nil {
		t.Errorf("a good catalog: %v", err)
	}
}

func TestImportCatalogKeepsTheAllowListKey(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	if err := m.metaSet(ctx, m.db, "scrub_key", randomHex(32)); err != nil { // this memory has its own key (memscrub makes it on first use)
		t.Fatal(err)
	}
	other := strings.Repeat("cd", 32)
	c := Catalog{ScrubKey: other, ScrubAllow: []CatalogAllow{{Hash: strings.Repeat("ef", 32), Rule: "aws", Added: 1}}}
	// No allow-list yet: the backup's key and entries are taken.
	rep, err := m.ImportCatalog(ctx, c, false)
	if err != nil || rep.ScrubAllow != 1 || m.metaGet(ctx, "scrub_key") != other {
		t.Fatalf("import into an empty allow-list: %+v %v", rep, err)
	}
	// A second backup with yet another key cannot add to it.
	c2 := Catalog{ScrubKey: strings.Repeat("01", 32), ScrubAllow: []CatalogAllow{{Hash: strings.Repeat("23", 32), Rule: "aws"}}}
	rep, err = m.ImportCatalog(ctx, c2, true)
	if err != nil || rep.ScrubAllow != 0 || rep.ScrubAllowSkipped != 1 || m.metaGet(ctx, "scrub_key") != other {
		t.Fatalf("import with another key: %+v %v", rep, err)
	}
}

func TestImportCatalogMergeForgetsNothing(t *testing.T) {
	ctx := context.Background()
	m := openTest(t)
	mustIngest(t, m, conv("live", funes.HarnessCodex, "t", "", day0, "q", "a"))
	c := Catalog{
		Tombstones: []CatalogTombstone{{Hash: tombstoneHash(funes.HarnessCodex, "live"), Forgotten: 1}, {Hash: tombstoneHash(funes.HarnessCodex, "gone"), Forgotten: 1}},
		Tags:       []CatalogTag{{CatalogRef: CatalogRef{funes.HarnessCodex, "live"}, Project: "p"}, {CatalogRef: CatalogRef{funes.HarnessCodex, "absent"}, Project: "p"}},
	}
	rep, err := m.ImportCatalog(ctx, c, true)
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
