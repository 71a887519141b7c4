package backup

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ireneo-app/ireneo/bench/recalldata"
	"github.com/ireneo-app/ireneo/catalog"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/insights"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memscrub"
	"github.com/ireneo-app/ireneo/recall"
	"github.com/ireneo-app/ireneo/settings"
)

const forgetMarker = "quetzalcoatl-feathered-serpent"

// fixture is a memory with the bench history's conversations, tags, a
// star, a forgotten conversation, a scrub record and its own settings.
type fixture struct {
	dir       string
	m         *memory.Memory
	questions []string
	settings  settings.Settings
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	t.Setenv("IRENEO_CONFIG", filepath.Join(t.TempDir(), "config-a"))
	d := recalldata.Generate(recalldata.Config{N: 200, Seed: 3, FactQuestions: 40, NoIDQuestions: 20, UpdateQuestions: 20})
	ss := d.Sessions()
	gone := &funes.Session{ID: "conv-forget", Harness: funes.HarnessClaude, Title: "Forget me", Turns: []funes.Turn{
		{TurnUUID: "f0", Seq: 0, TS: time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC), Role: funes.RoleUser,
			Blocks: []funes.Block{{Type: funes.BlockText, Text: "Tell me about " + forgetMarker}}},
	}}
	dir := filepath.Join(t.TempDir(), "memory-a")
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if _, err := m.Ingest(ctx, append(ss, gone), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := m.Tag(ctx, ss[0].ID, "falcon", "heron"); err != nil {
		t.Fatal(err)
	}
	if err := m.Tag(ctx, ss[5].ID, "falcon"); err != nil {
		t.Fatal(err)
	}
	if err := m.Star(ctx, ss[7].ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Forget(ctx, []string{"conv-forget"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := memscrub.RecordHistory(ctx, m, map[string]int{"aws-access-key": 2}); err != nil {
		t.Fatal(err)
	}
	set := settings.Default()
	set.DefaultK, set.DefaultBudget, set.ScrubOnImport = 5, 1200, false
	set.UserPatterns = []settings.Pattern{{Name: "cust", Regex: "CUST-[0-9]{6}"}}
	if err := settings.Save(set); err != nil {
		t.Fatal(err)
	}
	f := &fixture{dir: dir, m: m, settings: set}
	for _, q := range d.Questions {
		f.questions = append(f.questions, q.Text)
	}
	return f
}

// backupTo writes the fixture's archive in a temp dir.
func (f *fixture) backupTo(t *testing.T) (string, WriteSummary) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ireneo-backup.zip")
	sum, err := Write(context.Background(), f.m, path, WriteOptions{AppVersion: "test", Settings: f.settings})
	if err != nil {
		t.Fatal(err)
	}
	return path, sum
}

// recallAll answers every question, in a form that compares: hits with
// their receipts, text and projects, and scores to 9 digits.
func recallAll(t *testing.T, m *memory.Memory, qs []string) []string {
	t.Helper()
	var out []string
	for _, q := range qs {
		res, err := recall.Recall(context.Background(), m, recall.Options{Query: q})
		if err != nil {
			t.Fatalf("recall %q: %v", q, err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s | cut %d | tokens %d\n", q, res.Cut, res.TotalTokens)
		for _, h := range res.Hits {
			fmt.Fprintf(&b, "  %s %s %s %v %.9g %q\n", h.Source, h.SessionID, h.TurnUUID, h.Projects, roundSig(h.Score), h.Text)
		}
		out = append(out, b.String())
	}
	return out
}

func roundSig(x float64) float64 {
	if x == 0 {
		return 0
	}
	p := math.Pow(10, 9-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	path, wsum := f.backupTo(t)
	if wsum.Conversations != 200 || wsum.Files != 200 || wsum.Tags != 3 || wsum.Stars != 1 || wsum.Tombstones != 1 || !wsum.Settings {
		t.Errorf("backup summary %+v", wsum)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("archive mode: %v %v", fi, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*")); len(left) > 0 {
		t.Errorf("temp files left beside the archive: %v", left)
	}
	assertNoMarker(t, path, forgetMarker)

	// Restore on another machine: an empty folder and no settings yet.
	t.Setenv("IRENEO_CONFIG", filepath.Join(t.TempDir(), "config-b"))
	m2, err := memory.Open(filepath.Join(t.TempDir(), "memory-b"))
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	a, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rsum, err := a.Restore(ctx, m2, RestoreOptions{SaveSettings: settings.Save})
	if err != nil {
		t.Fatal(err)
	}
	if rsum.Conversations != 200 || rsum.Files != 200 || !rsum.Settings || len(rsum.Failed) > 0 {
		t.Errorf("restore summary %+v", rsum)
	}

	want, got := recallAll(t, f.m, f.questions), recallAll(t, m2, f.questions)
	if len(want) < 80 {
		t.Fatalf("only %d questions", len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("recall differs after restore:\nbefore: %s\nafter:  %s", want[i], got[i])
		}
	}
	c1, err := catalog.Export(ctx, f.m)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := catalog.Export(ctx, m2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c1, c2) {
		t.Errorf("catalog differs after restore:\nbefore %+v\nafter  %+v", c1, c2)
	}
	if gotSet, err := settings.Load(); err != nil || !reflect.DeepEqual(gotSet, f.settings) {
		t.Errorf("settings after restore: %+v, %v; want %+v", gotSet, err, f.settings)
	}
	p1, _, _ := conversations.Projects(ctx, f.m, nil)
	p2, _, _ := conversations.Projects(ctx, m2, nil)
	if !reflect.DeepEqual(p1, p2) {
		t.Errorf("projects %v, after restore %v", p1, p2)
	}
	i1, _ := insights.Read(ctx, f.m, insights.Query{})
	i2, _ := insights.Read(ctx, m2, insights.Query{})
	i1.Headline.SizeBytes, i2.Headline.SizeBytes = 0, 0
	if !reflect.DeepEqual(i1.Headline, i2.Headline) || !reflect.DeepEqual(i1.BySource, i2.BySource) {
		t.Errorf("insights differ after restore: %+v vs %+v", i1.Headline, i2.Headline)
	}

	// The tombstone travelled: importing the forgotten conversation again
	// leaves it forgotten.
	rep, err := m2.Ingest(ctx, []*funes.Session{{ID: "conv-forget", Harness: funes.HarnessClaude, Turns: []funes.Turn{
		{TurnUUID: "f0", Seq: 0, Role: funes.RoleUser, Blocks: []funes.Block{{Type: funes.BlockText, Text: forgetMarker}}}}}}, memory.IngestOptions{})
	if err != nil || rep.Forgotten != 1 {
		t.Errorf("re-importing a forgotten conversation after restore: %+v %v", rep, err)
	}

	// A second restore into the now full memory is refused.
	if _, err := a.Restore(ctx, m2, RestoreOptions{}); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("restore into a full memory: %v", err)
	}
}

func TestMerge(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	path, _ := f.backupTo(t)

	// The target has some of the same conversations, one of them forgotten
	// there, and one of its own.
	m2, err := memory.Open(filepath.Join(t.TempDir(), "memory-b"))
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	d := recalldata.Generate(recalldata.Config{N: 200, Seed: 3, FactQuestions: 1, NoIDQuestions: 1, UpdateQuestions: 1})
	ss := d.Sessions()
	own := &funes.Session{ID: "own-1", Harness: funes.HarnessCodex, Turns: []funes.Turn{{TurnUUID: "o0", Role: funes.RoleUser, TS: time.Now().UTC(),
		Blocks: []funes.Block{{Type: funes.BlockText, Text: "a conversation only the target has"}}}}}
	if _, err := m2.Ingest(ctx, append(ss[:10:10], own), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m2.Forget(ctx, []string{ss[3].ID}, nil); err != nil {
		t.Fatal(err)
	}
	if err := m2.Tag(ctx, ss[0].ID, "kestrel"); err != nil {
		t.Fatal(err)
	}
	set := settings.Default()
	set.DefaultK = 3
	t.Setenv("IRENEO_CONFIG", filepath.Join(t.TempDir(), "config-b"))
	if err := settings.Save(set); err != nil {
		t.Fatal(err)
	}

	a, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Restore(ctx, m2, RestoreOptions{}); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("restore without merge into a full memory: %v", err)
	}
	sum, err := a.Restore(ctx, m2, RestoreOptions{Merge: true, SaveSettings: settings.Save})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Import == nil || sum.Import.New != 190 || sum.Import.Unchanged != 9 || sum.Import.Forgotten != 1 || sum.Settings {
		t.Errorf("merge summary %+v import %+v", sum, sum.Import)
	}
	_, n, _ := conversations.List(ctx, m2, conversations.Query{Limit: 1})
	if n != 200 { // 200 from the archive, less the one forgotten here, plus its own
		t.Errorf("after merge the memory holds %d conversations, want 200", n)
	}
	if _, err := m2.LoadSession(ctx, ss[3].ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("a conversation forgotten in the target came back with the merge: %v", err)
	}
	info, _, _ := conversations.List(ctx, m2, conversations.Query{Query: "", Project: "", Limit: 1000})
	tags := map[string][]string{}
	starred := 0
	for _, s := range info {
		tags[s.SessionID] = s.Projects
		if s.Starred {
			starred++
		}
	}
	if !reflect.DeepEqual(tags[ss[0].ID], []string{"falcon", "heron", "kestrel"}) || starred != 1 {
		t.Errorf("tags of %s after merge: %v; %d starred", ss[0].ID, tags[ss[0].ID], starred)
	}
	if got, _ := settings.Load(); got.DefaultK != 3 {
		t.Errorf("a merge should keep the memory's settings, got top-k %d", got.DefaultK)
	}
	// Merging again changes nothing.
	sum, err = a.Restore(ctx, m2, RestoreOptions{Merge: true})
	if err != nil || sum.Import.New != 0 || sum.Import.Updated != 0 || sum.Catalog.Tags != 0 {
		t.Errorf("second merge: %+v %+v %v", sum, sum.Import, err)
	}
}

// corruptions are the ways TestDamagedArchive breaks an archive: cut short
// at several points, and a byte changed inside the manifest, the catalog,
// a conversation file and the central directory.
func corruptions(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	out := map[string][]byte{
		"empty":          {},
		"cut to 10":      data[:10],
		"cut to a third": data[:len(data)/3],
		"cut to half":    data[:len(data)/2],
		"cut by 1":       data[:len(data)-1],
		"cut by 30":      data[:len(data)-30],
		"not a zip":      []byte("this is a text file, not a backup\n"),
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	flip := func(name string, at int64) {
		c := bytes.Clone(data)
		c[at] ^= 0x5a
		out[name] = c
	}
	for i, f := range zr.File {
		off, err := f.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case f.Name == ManifestName, f.Name == CatalogName, i == 5, i == len(zr.File)/2:
			flip("byte changed in "+f.Name, off+int64(f.CompressedSize64)/2)
		}
	}
	// The central directory starts after the last entry's data; its first
	// record's name (46 bytes in) is a changed name.
	last := zr.File[len(zr.File)-1]
	off, _ := last.DataOffset()
	cd := off + int64(last.CompressedSize64)
	if bytes.HasPrefix(data[cd:], []byte("PK\x07\x08")) {
		cd += 16 // a data descriptor
	}
	if !bytes.HasPrefix(data[cd:], []byte("PK\x01\x02")) {
		t.Fatalf("no central directory at %d", cd)
	}
	flip("name changed in the central directory", cd+46+2)
	flip("crc changed in the central directory", cd+16)
	return out
}

// snapshot maps every file and folder under dir to its sha256. SQLite's
// shared-memory index (-shm) is left out: any read of an open database
// touches it, and it holds no data.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = "dir"
			return nil
		}
		if strings.HasSuffix(p, "-shm") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(data)
		out[rel] = hex.EncodeToString(s[:])
		return nil
	})
	return out
}

func TestDamagedArchive(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	path, _ := f.backupTo(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Targets: an empty memory and one with conversations.
	empty := filepath.Join(t.TempDir(), "empty")
	me, err := memory.Open(empty)
	if err != nil {
		t.Fatal(err)
	}
	me.Close()
	full := filepath.Join(t.TempDir(), "full")
	mf, err := memory.Open(full)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mf.Ingest(ctx, recalldata.Generate(recalldata.Config{N: 20, Seed: 9, FactQuestions: 1, NoIDQuestions: 1, UpdateQuestions: 1}).Sessions(), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	mf.Close()
	before := map[string]map[string]string{empty: snapshot(t, empty), full: snapshot(t, full)}
	cases := corruptions(t, data)
	if len(cases) < 12 {
		t.Fatalf("only %d corruptions", len(cases))
	}
	for name, bad := range cases {
		p := filepath.Join(t.TempDir(), "bad.zip")
		if err := os.WriteFile(p, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, target := range []string{empty, full} {
			a, err := Open(ctx, p)
			if err == nil {
				m, _ := memory.Open(target)
				_, err = a.Restore(ctx, m, RestoreOptions{Merge: target == full})
				m.Close()
				a.Close()
				t.Errorf("%s: the archive was accepted (restore: %v)", name, err)
				continue
			}
			if !errors.Is(err, ErrDamaged) {
				t.Errorf("%s: %v is not ErrDamaged", name, err)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, p) {
				t.Errorf("%s: the error should be one line naming the archive: %q", name, msg)
			}
			if after := snapshot(t, target); !reflect.DeepEqual(before[target], after) {
				t.Errorf("%s: %s changed", name, target)
			}
		}
	}
}

// TestArchiveChangedDuringRestore damages the archive after Open checked
// it: the restore still refuses it and the memory is left as it was.
func TestArchiveChangedDuringRestore(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	path, _ := f.backupTo(t)
	target := filepath.Join(t.TempDir(), "target")
	m, err := memory.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	before := snapshot(t, target)
	a, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	zf := a.entries[a.src[len(a.src)-1]]
	off, _ := zf.DataOffset()
	fh, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteAt([]byte{0, 0, 0, 0}, off+int64(zf.CompressedSize64)/2)
	fh.Close()
	if _, err := a.Restore(ctx, m, RestoreOptions{}); !errors.Is(err, ErrDamaged) {
		t.Fatalf("restore of an archive damaged after Open: %v", err)
	}
	if after := snapshot(t, target); !reflect.DeepEqual(before, after) {
		t.Errorf("the memory changed:\nbefore %v\nafter  %v", before, after)
	}
}

// assertNoMarker fails if any entry of the archive holds marker.
func assertNoMarker(t *testing.T, path, marker string) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		rc, _ := f.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		if bytes.Contains(data, []byte(marker)) {
			t.Errorf("%s holds forgotten text", f.Name)
		}
	}
}

func FuzzOpenArchive(f *testing.F) {
	ctx := context.Background()
	dir := f.TempDir()
	f.Setenv("IRENEO_CONFIG", filepath.Join(dir, "config"))
	m, err := memory.Open(filepath.Join(dir, "memory"))
	if err != nil {
		f.Fatal(err)
	}
	if _, err := m.Ingest(ctx, recalldata.Generate(recalldata.Config{N: 3, Seed: 1, FactQuestions: 1, NoIDQuestions: 1, UpdateQuestions: 1}).Sessions(), memory.IngestOptions{}); err != nil {
		f.Fatal(err)
	}
	p := filepath.Join(dir, "seed.zip")
	if _, err := Write(ctx, m, p, WriteOptions{}); err != nil {
		f.Fatal(err)
	}
	m.Close()
	data, _ := os.ReadFile(p)
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := readAt(ctx, bytes.NewReader(b), int64(len(b)), "fuzz.zip")
		if err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("an error that is not ErrDamaged: %v", err)
			}
			return
		}
		if a.Manifest.Format != Format || len(a.src)+1 > len(a.entries) {
			t.Fatalf("accepted an inconsistent archive: %+v", a.Manifest)
		}
	})
}

// TestEveryByteFlipAndCut changes each byte of a small archive in turn, and
// cuts it at every length: nothing panics, every cut is refused, and a
// changed byte is either refused or one that changes no content (a time
// stamp, a field the central directory repeats): whatever is accepted reads
// back with the manifest of the original.
func TestEveryByteFlipAndCut(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := memory.Open(filepath.Join(dir, "memory"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Ingest(ctx, recalldata.Generate(recalldata.Config{N: 3, Seed: 1, FactQuestions: 1, NoIDQuestions: 1, UpdateQuestions: 1}).Sessions(), memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "small.zip")
	if _, err := Write(ctx, m, p, WriteOptions{Settings: settings.Default()}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	orig, err := readAt(ctx, bytes.NewReader(data), int64(len(data)), p)
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for i := range data {
		c := bytes.Clone(data)
		c[i] ^= 0xff
		a, err := readAt(ctx, bytes.NewReader(c), int64(len(c)), p)
		if err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("byte %d: %v is not ErrDamaged", i, err)
			}
			continue
		}
		accepted++
		if !reflect.DeepEqual(a.Manifest.Files, orig.Manifest.Files) || !reflect.DeepEqual(a.Catalog, orig.Catalog) {
			t.Fatalf("byte %d: accepted with other content", i)
		}
	}
	for n := 0; n < len(data); n++ {
		if _, err := readAt(ctx, bytes.NewReader(data[:n]), int64(n), p); !errors.Is(err, ErrDamaged) {
			t.Fatalf("cut to %d of %d bytes: %v", n, len(data), err)
		}
	}
	t.Logf("%d bytes: %d single-byte changes accepted (no content changed), %d refused; every cut refused", len(data), accepted, len(data)-accepted)
}

// TestMergeNewerWins merges an archive holding an older copy of a
// conversation into a memory holding a newer one, and the other way round:
// the newer copy is kept both times.
func TestMergeNewerWins(t *testing.T) {
	ctx := context.Background()
	t.Setenv("IRENEO_CONFIG", filepath.Join(t.TempDir(), "config"))
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	mk := func(turns int) *funes.Session {
		s := &funes.Session{ID: "grows", Harness: funes.HarnessCodex, Title: "Grows"}
		for i := 0; i < turns; i++ {
			s.Turns = append(s.Turns, funes.Turn{TurnUUID: fmt.Sprintf("t%d", i), Seq: i, TS: t0.Add(time.Duration(i) * time.Minute),
				Role: []string{funes.RoleUser, funes.RoleAssistant}[i%2], Blocks: []funes.Block{{Type: funes.BlockText, Text: fmt.Sprintf("step %d", i)}}})
		}
		return s
	}
	open := func(name string, s *funes.Session) *memory.Memory {
		m, err := memory.Open(filepath.Join(t.TempDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		if _, err := m.Ingest(ctx, []*funes.Session{s}, memory.IngestOptions{}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	turns := func(m *memory.Memory) int {
		s, err := m.LoadSession(ctx, "grows")
		if err != nil {
			t.Fatal(err)
		}
		return len(s.Turns)
	}
	oldM, newM := open("old", mk(2)), open("new", mk(6))
	archive := func(m *memory.Memory) *Archive {
		p := filepath.Join(t.TempDir(), "b.zip")
		if _, err := Write(ctx, m, p, WriteOptions{Settings: settings.Default()}); err != nil {
			t.Fatal(err)
		}
		a, err := Open(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		return a
	}
	oldA, newA := archive(oldM), archive(newM)
	sum, err := oldA.Restore(ctx, newM, RestoreOptions{Merge: true})
	if err != nil || sum.Import.Older != 1 || turns(newM) != 6 {
		t.Errorf("an older copy merged into a newer memory: %+v %v, %d turns", sum.Import, err, turns(newM))
	}
	sum, err = newA.Restore(ctx, oldM, RestoreOptions{Merge: true})
	if err != nil || sum.Import.Updated != 1 || turns(oldM) != 6 {
		t.Errorf("a newer copy merged into an older memory: %+v %v, %d turns", sum.Import, err, turns(oldM))
	}
}

// TestRestoreKeepsTargetForgetting restores into a memory that holds no
// conversation but has forgotten one the archive holds: its file is not
// written, so its text is in no file of the memory.
func TestRestoreKeepsTargetForgetting(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	secret := &funes.Session{ID: "conv-secret", Harness: funes.HarnessChatGPT, Title: "Secret", Turns: []funes.Turn{
		{TurnUUID: "s0", Seq: 0, TS: time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC), Role: funes.RoleUser,
			Blocks: []funes.Block{{Type: funes.BlockText, Text: "the plan is " + forgetMarker + "-two"}}},
	}}
	if _, err := f.m.Ingest(ctx, []*funes.Session{secret}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.m.Tag(ctx, "conv-secret", "secret-project"); err != nil {
		t.Fatal(err)
	}
	path, _ := f.backupTo(t)

	// The target saw conv-secret once and forgot it.
	dir := filepath.Join(t.TempDir(), "target")
	m2, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	if _, err := m2.Ingest(ctx, []*funes.Session{secret}, memory.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m2.Forget(ctx, []string{"conv-secret"}, nil); err != nil {
		t.Fatal(err)
	}
	a, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	sum, err := a.Restore(ctx, m2, RestoreOptions{})
	if err != nil || sum.Forgotten != 1 || sum.Conversations != 200 {
		t.Fatalf("restore: %+v %v", sum, err)
	}
	m2.Close()
	var found []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(forgetMarker+"-two")) || bytes.Contains(data, []byte("conv-secret")) {
				found = append(found, p)
			}
		}
		return nil
	})
	if len(found) > 0 {
		t.Errorf("forgotten text or id restored into %v", found)
	}
}
