package sync

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	gosync "sync"
	"time"

	"github.com/ireneo-app/ireneo/catalog"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memscrub"
	"github.com/ireneo-app/ireneo/redact"
)

// Options are what an engine needs besides the memory.
type Options struct {
	// Finder is the person's secret finder (scrub's, with their own
	// patterns). A project name it finds a secret in is never journaled:
	// that tag stays on this machine. Nil journals every name.
	Finder redact.SecretFinder
	// Redact is the person's scrub-on-import hook, as a local import uses
	// it, for the conversations other machines send. Nil: none.
	Redact func(*funes.Session) map[string]int
	// Now is the wall clock; nil is time.Now.
	Now func() time.Time
	// OnPass, if set, hears each pass of Run: its report and error.
	OnPass func(Report, error)
}

// ErrBusy says another process runs this memory's sync: the tray app,
// `ireneo serve` or `ireneo sync run`. Choices made here still reach the
// journal (observer.go); that process imports and exports.
var ErrBusy = errors.New("sync is running in another Ireneo process for this memory")

// Engine brings one memory and the sync folder in step, one pass at a time.
// One process runs it per memory (a lock in the memory directory).
type Engine struct {
	m      *memory.Memory
	memDir string
	cfg    Config
	opts   Options
	jw     journalWriter
	unlock func()

	mu      gosync.Mutex // one pass at a time
	st      *state
	saved   []byte // state as last saved, to write it only when it changed
	entries []Entry
	seen    map[string]bool  // entries read, by machine and content
	marks   map[string]int64 // journal file → bytes read
	bad     int              // journal lines that were not entries
	// conflicts is how many entries the last replay found overriding
	// another machine's different choice.
	conflicts int
}

// Report says what one pass did.
type Report struct {
	Imported   int `json:"imported"`        // conversations stored or replaced from the folder
	Exported   int `json:"exported"`        // conversations written to this machine's subfolder
	Forgotten  int `json:"forgotten"`       // conversations erased from this memory for a forget entry
	Erased     int `json:"files_erased"`    // files in the folder overwritten and removed
	Redacted   int `json:"redacted"`        // copies redacted for a redact entry (the memory's, the folder's)
	Applied    int `json:"choices_applied"` // conversations whose tags or star changed for a journal
	Journaled  int `json:"journaled"`       // entries written for choices no journal held yet
	Unreadable int `json:"unreadable"`      // conversation files that cannot be read
	// recheck is when a file still being written by the sync engine should
	// be looked at again.
	recheck time.Duration
}

// Open opens the sync engine of memory m, which must be set up (SetUp).
func Open(m *memory.Memory, opts Options) (*Engine, error) {
	memDir := m.Dir()
	cfg, err := LoadConfig(memDir)
	if err != nil {
		return nil, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(localDir(memDir), 0o700); err != nil {
		return nil, err
	}
	unlock, ok, err := tryLockFile(filepath.Join(localDir(memDir), engineLockName))
	if err != nil {
		return nil, fmt.Errorf("sync: %w", err)
	}
	if !ok {
		return nil, ErrBusy
	}
	st, err := loadState(memDir)
	if err != nil {
		unlock()
		return nil, err
	}
	return &Engine{m: m, memDir: memDir, cfg: cfg, opts: opts, jw: journalWriter{memDir, cfg, opts.Now},
		unlock: unlock, st: st, seen: map[string]bool{}, marks: map[string]int64{}}, nil
}

// Close lets another process run the engine.
func (e *Engine) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.unlock != nil {
		e.unlock()
		e.unlock = nil
	}
}

// Config is the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// Pass brings the memory and the folder in step once: it reads the
// journals, journals the choices made here that none holds, erases what
// was forgotten and redacts what was scrubbed (in the memory and in every
// copy in the folder), imports the fullest copy of each conversation that
// this memory lacks or holds less of, exports this memory's conversations
// that no machine's subfolder holds, and applies the journals' tags and
// stars. Unchanged files are not read again.
func (e *Engine) Pass(ctx context.Context) (Report, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	rep, err := e.pass(ctx)
	e.st.Status = e.status(rep, err)
	if serr := e.saveState(); err == nil {
		err = serr
	}
	saveStatus(e.memDir, e.st.Status)
	return rep, err
}

func (e *Engine) pass(ctx context.Context) (Report, error) {
	var rep Report
	if !folderThere(e.cfg.Folder) {
		return rep, fmt.Errorf("sync folder %s is not there (is its disk attached?)", e.cfg.Folder)
	}
	if _, err := os.Stat(machineDir(e.cfg.Folder, e.cfg.Machine)); err != nil {
		// Removed by hand or by the sync engine: written again.
		if err := writeMachineInfo(e.cfg); err != nil {
			return rep, err
		}
	}
	e.jw.flushOutbox() // best effort: the journal may still be out of reach
	since := e.st.Clock
	var err error
	if e.st.Clock, err = loadClock(e.memDir); err != nil {
		return rep, err
	}
	// The memory before the journals: a scrub journals its redactions
	// before its rewrite goes in (memory.Rewrite.Commit), so a redacted
	// copy read here has its entry in the journals read next, and the
	// folder's unredacted copies are never taken back in as fuller ones.
	snap, err := readStored(ctx, e.m)
	if err != nil {
		return rep, err
	}
	if err := e.readJournals(); err != nil {
		return rep, err
	}
	sc, err := e.scanFolder()
	if err != nil {
		return rep, err
	}
	local := byHash(snap)
	r := replay(e.sorted(), derivedOf(local), e.cfg.Machine)

	if n, err := e.adopt(r, snap, local, since); err != nil {
		return rep, err
	} else if n > 0 {
		rep.Journaled = n
		r = replay(e.sorted(), derivedOf(local), e.cfg.Machine)
	}
	// A forget or a redaction that fails here (a conversation named
	// ambiguously, a file that cannot be written) is tried again at the
	// next pass, and says so; the rest of the pass goes on.
	var later []error
	if err := e.applyForgets(ctx, r, snap, local, sc, &rep); err != nil {
		later = append(later, err)
	}
	if err := e.applyRedactions(ctx, r, local, sc, &rep); err != nil {
		later = append(later, err)
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if err := e.importCopies(ctx, r, local, sc, &rep); err != nil {
		return rep, err
	}
	if rep.Imported > 0 && e.m.Grown(ctx) {
		// As after an import; a pack that fails leaves the index as large
		// as the import made it, and a later one packs it.
		e.m.Pack(ctx)
	}
	if rep.Imported+rep.Forgotten+rep.Redacted > 0 {
		// The memory changed: read it again.
		if snap, err = readStored(ctx, e.m); err != nil {
			return rep, err
		}
		local = byHash(snap)
		r = replay(e.sorted(), derivedOf(local), e.cfg.Machine)
	}
	if err := e.export(r, local, sc, &rep); err != nil {
		return rep, err
	}
	e.conflicts = r.conflicts
	if err := e.applyChoices(ctx, r, local, &rep); err != nil {
		return rep, err
	}
	e.st.Initialized = true
	for _, f := range sc.files {
		if f.rec != nil && f.rec.Bad != "" {
			rep.Unreadable++
		}
	}
	return rep, errors.Join(later...)
}

// readJournals reads what every machine's journal gained since the last
// pass (all of it, the first time), and moves the clock past them.
func (e *Engine) readJournals() error {
	root := filepath.Join(e.cfg.Folder, machinesDir)
	machines, err := os.ReadDir(root)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("read %s: %w", root, err)
	}
	var latest Clock
	for _, md := range machines {
		if !md.IsDir() || !machineIDRe.MatchString(md.Name()) {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, md.Name()))
		if err != nil {
			continue
		}
		for _, f := range files {
			rel := filepath.Join(machinesDir, md.Name(), f.Name())
			if classify(rel).kind != kindJournal {
				continue
			}
			p := filepath.Join(e.cfg.Folder, rel)
			off := e.marks[p]
			if fi, err := os.Stat(p); err != nil || fi.Size() < off {
				off = 0 // replaced by a shorter file: read it all again
			}
			es, next, bad, err := readJournal(p, off)
			if err != nil {
				continue // gone meanwhile, or unreadable now: the next pass tries again
			}
			e.marks[p] = next
			e.bad += bad
			for _, en := range es {
				en.machine = md.Name()
				key, _ := json.Marshal(en)
				k := md.Name() + string(key)
				if e.seen[k] {
					continue
				}
				e.seen[k] = true
				e.entries = append(e.entries, en)
				latest = latest.seen(en.Clock)
			}
		}
	}
	if latest.T > 0 {
		return observeClock(e.memDir, latest)
	}
	return nil
}

// sorted is every entry read, in replay order.
func (e *Engine) sorted() []Entry {
	sortEntries(e.entries)
	return e.entries
}

// scanFile is one file found in the folder.
type scanFile struct {
	rel, abs string
	c        classified
	size     int64
	mod      int64
	rec      *fileRecord // as last read (updated as this pass reads it); nil if never
}

func (f *scanFile) changed() bool {
	return f.rec == nil || f.rec.Size != f.size || f.rec.Mod != f.mod
}

// scanned is the folder as one pass found it.
type scanned struct {
	files  []*scanFile
	copies map[string][]*scanFile // conversation → its copies (conversation files and conflict copies)
	named  map[string][]*scanFile // conversation → every file whose name carries its hash
	byRel  map[string]*scanFile
}

// scanFolder lists the folder's files with their sizes and times, and
// drops from the manifest the files that are gone.
func (e *Engine) scanFolder() (*scanned, error) {
	sc := &scanned{copies: map[string][]*scanFile{}, named: map[string][]*scanFile{}, byRel: map[string]*scanFile{}}
	err := filepath.WalkDir(e.cfg.Folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == e.cfg.Folder {
				return err
			}
			return nil // gone meanwhile
		}
		if d.IsDir() {
			if d.Name() == ".stfolder" {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(e.cfg.Folder, p)
		f := &scanFile{rel: filepath.ToSlash(rel), abs: p, c: classify(rel), size: info.Size(), mod: info.ModTime().UnixNano()}
		f.rec = e.st.Files[f.rel]
		sc.files = append(sc.files, f)
		sc.byRel[f.rel] = f
		if f.c.conv != "" {
			sc.named[f.c.conv] = append(sc.named[f.c.conv], f)
		}
		if f.c.kind == kindConversation || f.c.kind == kindConflict {
			sc.copies[f.c.conv] = append(sc.copies[f.c.conv], f)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the sync folder %s: %w", e.cfg.Folder, err)
	}
	for rel := range e.st.Files {
		if f := sc.byRel[rel]; f == nil || (f.c.kind != kindConversation && f.c.kind != kindConflict) {
			delete(e.st.Files, rel)
		}
	}
	return sc, nil
}

// readCopy reads a conversation file whole and checks it: one
// conversation, every line whole, and the one its name says. Its record
// is updated either way.
func (e *Engine) readCopy(f *scanFile) (*funes.Session, error) {
	s, rec, err := readCopyFile(f.abs, f.c.conv)
	rec.Redactions = 0
	if f.rec != nil && f.rec.Hash == rec.Hash {
		rec.Redactions = f.rec.Redactions
	}
	f.rec, f.size, f.mod = rec, rec.Size, rec.Mod
	e.st.Files[f.rel] = rec
	return s, err
}

func readCopyFile(path, conv string) (*funes.Session, *fileRecord, error) {
	rec := &fileRecord{}
	fh, err := os.Open(path)
	if err != nil {
		rec.Bad = err.Error()
		return nil, rec, err
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err == nil {
		rec.Size, rec.Mod = fi.Size(), fi.ModTime().UnixNano()
	}
	data, err := io.ReadAll(fh)
	if err != nil {
		rec.Bad = err.Error()
		return nil, rec, err
	}
	s, err := parseCopy(data, conv, rec)
	return s, rec, err
}

// parseCopy checks a conversation file's bytes (one conversation, every
// line whole, the one its name says) and fills rec from them.
func parseCopy(data []byte, conv string, rec *fileRecord) (*funes.Session, error) {
	sum := sha256.Sum256(data)
	rec.Hash, rec.Bytes = hex.EncodeToString(sum[:]), int64(len(data))
	bad := func(why string) (*funes.Session, error) {
		rec.Bad = why
		return nil, errors.New(why)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return bad("not whole: its last line has no end")
	}
	ss, rs, err := funes.ReadSessions(bytes.NewReader(data))
	switch {
	case err != nil:
		return bad(err.Error())
	case rs.Bad > 0:
		return bad("not whole: " + rs.FirstBad)
	case len(ss) != 1:
		return bad(fmt.Sprintf("holds %d conversations, not one", len(ss)))
	case !memory.KnownHarness(ss[0].Harness):
		return bad(fmt.Sprintf("unknown source %q", ss[0].Harness))
	case memory.ConversationHash(ss[0].Harness, ss[0].ID) != conv:
		return bad("holds another conversation than its name says")
	}
	s := ss[0]
	rec.Turns, rec.Updated = len(s.Turns), unixOf(s.Updated())
	return s, nil
}

func unixOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// copyMeta is what decides which of two copies of a conversation is the
// fuller: the later last turn, then more turns, then more bytes, then the
// content hash, so that every machine decides alike.
type copyMeta struct {
	Updated int64
	Turns   int
	Bytes   int64
	Hash    string
}

func (a copyMeta) better(b copyMeta) bool {
	switch {
	case a.Updated != b.Updated:
		return a.Updated > b.Updated
	case a.Turns != b.Turns:
		return a.Turns > b.Turns
	case a.Bytes != b.Bytes:
		return a.Bytes > b.Bytes
	}
	return a.Hash > b.Hash
}

func metaOfRecord(r *fileRecord) copyMeta {
	return copyMeta{r.Updated, r.Turns, r.Bytes, r.Hash}
}

func metaOfLocal(c *storedConversation) copyMeta {
	return copyMeta{c.Updated, c.Turns, c.Bytes, c.Hash}
}

func byHash(snap storedSnapshot) map[string]*storedConversation {
	out := make(map[string]*storedConversation, len(snap.Conversations))
	for i := range snap.Conversations {
		c := &snap.Conversations[i]
		out[memory.ConversationHash(c.Harness, c.SessionID)] = c
	}
	return out
}

func derivedOf(local map[string]*storedConversation) map[string]string {
	out := make(map[string]string, len(local))
	for h, c := range local {
		out[h] = c.DerivedProject
	}
	return out
}

// ref is how memory's Forget and ScrubApply name a conversation.
func ref(c *storedConversation) string { return c.Harness + ":" + c.SessionID }

// adopt journals the choices this memory holds that no journal does: its
// tombstones, and the tags and stars changed since the last pass without
// an entry (a process that ran without the observer, a crash between a
// choice and its entry, a restored catalog). The first pass journals every
// tag that differs from the project a conversation's file carries, and
// every star. A change this machine journaled after since (the clock when
// the base was taken) is not journaled again, though a later entry from
// elsewhere overrode it. It returns how many entries it wrote.
func (e *Engine) adopt(r *replayed, snap storedSnapshot, local map[string]*storedConversation, since Clock) (int, error) {
	var es []Entry
	for h := range snap.Tombstones {
		if _, ok := r.forgotten[h]; !ok {
			es = append(es, Entry{Op: opForget, Conv: h})
			e.st.Forgotten[h] = true
		}
	}
	slices.SortFunc(es, func(a, b Entry) int { return compareStrings(a.Conv, b.Conv) })
	hashes := make([]string, 0, len(local))
	for h := range local {
		hashes = append(hashes, h)
	}
	slices.Sort(hashes)
	for _, h := range hashes {
		if _, gone := r.forgotten[h]; gone {
			continue
		}
		c := local[h]
		now := e.choicesOf(c.Projects, c.Starred)
		base, ok := e.st.Base[h]
		switch {
		case ok:
		case !e.st.Initialized:
			base = e.choicesOf(derivedTags(c), false)
		default:
			continue // new here since the last pass: nothing chosen yet
		}
		want := e.choicesOf(r.tagsOf(h), r.starOf(h))
		for _, p := range union(now.Tags, base.Tags) {
			in, was, wanted := slices.Contains(now.Tags, p), slices.Contains(base.Tags, p), slices.Contains(want.Tags, p)
			if in != was && in != wanted && !r.journaledHere(itemKey{h, p}, in, since) {
				op := opUntag
				if in {
					op = opTag
				}
				es = append(es, Entry{Op: op, Conv: h, Project: p})
			}
		}
		if now.Star != base.Star && now.Star != want.Star && !r.journaledHere(itemKey{h, ""}, now.Star, since) {
			es = append(es, Entry{Op: opStar, Conv: h, On: now.Star})
		}
	}
	if len(es) == 0 {
		return 0, nil
	}
	written, err := e.jw.appendEntries(es)
	if err != nil {
		return 0, err
	}
	e.addOwn(written)
	return len(written), nil
}

// addOwn adds entries this process just wrote to those read.
func (e *Engine) addOwn(es []Entry) {
	for _, en := range es {
		key, _ := json.Marshal(en)
		e.seen[e.cfg.Machine+string(key)] = true
		e.entries = append(e.entries, en)
	}
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func derivedTags(c *storedConversation) []string {
	if c.DerivedProject == "" {
		return nil
	}
	return []string{c.DerivedProject}
}

// choicesOf is tags and star as sync compares them: sorted, without the
// project names that hold a secret (they never travel).
func (e *Engine) choicesOf(tags []string, star bool) choiceState {
	var out []string
	for _, p := range tags {
		if !e.secretName(p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return choiceState{Tags: slices.Compact(out), Star: star}
}

// secretName says whether the person's finder finds a secret in a name.
func (e *Engine) secretName(p string) bool {
	return hasSecret(e.opts.Finder, p)
}

func hasSecret(f redact.SecretFinder, text string) bool {
	if f == nil || text == "" {
		return false
	}
	found := false
	f.FindSecrets(text, func(string, int, int) { found = true })
	return found
}

func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// engineTempAge is how long the sync engine's temporary file must have
// been left alone before it counts as a leftover rather than a file still
// being written.
const engineTempAge = time.Minute

// applyForgets erases each forgotten conversation: from this memory (once:
// a later import the person asked for is theirs), and from every file in
// the folder whose name carries it, whichever machine's, the sync engine's
// conflict copies, old versions and leftover temporary files included. A
// conversation forgotten elsewhere that this memory never held gets a
// tombstone, so a local import does not bring it in.
func (e *Engine) applyForgets(ctx context.Context, r *replayed, snap storedSnapshot, local map[string]*storedConversation, sc *scanned, rep *Report) error {
	var (
		tombs []catalog.Tombstone
		errs  []error
	)
	for h, when := range r.forgotten {
		if !e.st.Forgotten[h] {
			if c := local[h]; c != nil {
				if _, err := e.m.Forget(memory.Unobserved(ctx), []string{ref(c)}, nil); err != nil && !errors.Is(err, memory.ErrNotFound) {
					errs = append(errs, fmt.Errorf("forget %s, forgotten on another machine: %w", ref(c), err))
					continue
				}
				rep.Forgotten++
			} else if _, ok := snap.Tombstones[h]; !ok {
				tombs = append(tombs, catalog.Tombstone{Hash: h, Forgotten: max(when.T/1000, 1)})
			}
			e.st.Forgotten[h] = true
			delete(e.st.Base, h)
			delete(e.st.Redacted, h)
		}
		for _, f := range sc.named[h] {
			e.erase(f, sc, rep)
		}
	}
	if len(tombs) > 0 {
		if _, err := catalog.Import(ctx, e.m, catalog.Snapshot{Tombstones: tombs}, true); err != nil {
			errs = append(errs, fmt.Errorf("keep the forgotten conversations out: %w", err))
		}
	}
	return errors.Join(errs...)
}

// erase overwrites and removes one file of the folder, unless it is the
// sync engine's temporary file still being written (looked at again
// later: erasing it would only make the engine fetch it again).
func (e *Engine) erase(f *scanFile, sc *scanned, rep *Report) {
	if f.c.kind == kindEngineTemp {
		if age := time.Since(time.Unix(0, f.mod)); age < engineTempAge {
			if wait := engineTempAge - age + time.Second; rep.recheck == 0 || wait < rep.recheck {
				rep.recheck = wait
			}
			return
		}
	}
	if err := shred(f.abs); err == nil {
		rep.Erased++
	}
	delete(e.st.Files, f.rel)
	f.rec = nil
	delete(sc.byRel, f.rel)
	f.c.kind = kindOther // no longer a copy for this pass
}

// applyRedactions applies each conversation's redact entries to the
// memory's copy (again when that copy changed) and to every copy in the
// folder, and erases the old versions and leftover temporary files that
// may still hold the secrets. The secrets read out of any copy are
// redacted from every copy, so a copy whose text sits elsewhere than the
// entries say (another version of it) loses them too.
func (e *Engine) applyRedactions(ctx context.Context, r *replayed, local map[string]*storedConversation, sc *scanned, rep *Report) error {
	var errs []error
	for h, es := range r.redactions {
		if _, gone := r.forgotten[h]; gone {
			continue
		}
		secrets := map[string]string{}
		var stored *funes.Session
		c := local[h]
		if c != nil {
			if mark := e.st.Redacted[h]; mark.N < len(es) || mark.Hash != c.Hash {
				if s, err := e.m.LoadSession(ctx, ref(c)); err == nil {
					stored = s
					maps.Copy(secrets, redactedCopy(s, es, e.opts.Finder))
				}
			}
		}
		type copyOf struct {
			f *scanFile
			s *funes.Session
		}
		var copies []copyOf
		for _, f := range sc.named[h] {
			switch f.c.kind {
			case kindConversation, kindConflict:
				if f.changed() || f.rec.Redactions < len(es) {
					s, err := e.readCopy(f)
					if err != nil {
						continue // unreadable: nothing to redact, and never imported
					}
					maps.Copy(secrets, redactedCopy(s, es, e.opts.Finder))
					copies = append(copies, copyOf{f, s})
				}
			case kindVersion, kindEngineTemp, kindOurTemp:
				e.erase(f, sc, rep)
			}
		}
		if stored != nil {
			if err := e.redactStored(ctx, c, secrets, len(es), rep); err != nil {
				errs = append(errs, err)
			}
		}
		for _, cp := range copies {
			if err := e.redactCopy(cp.f, cp.s, secrets, len(es), rep); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// redactedCopy reads the secrets the entries name out of a copy, the
// entries applied in order to it in memory.
func redactedCopy(s *funes.Session, es []Entry, finder redact.SecretFinder) map[string]string {
	clone := *s
	clone.Turns = make([]funes.Turn, len(s.Turns))
	for i, t := range s.Turns {
		clone.Turns[i] = t
		clone.Turns[i].Blocks = append([]funes.Block(nil), t.Blocks...)
	}
	secs, _ := redactEntries(&clone, es, finder)
	return secs
}

// redactMark is what was redacted of the memory's copy: how many entries,
// and the copy's hash after.
type redactMark struct {
	N    int    `json:"n"`
	Hash string `json:"hash"`
}

// redactStored redacts the secrets from the memory's copy of a
// conversation through memory's scrub, with a finder of just those.
func (e *Engine) redactStored(ctx context.Context, c *storedConversation, secrets map[string]string, n int, rep *Report) error {
	hash := c.Hash
	if len(secrets) > 0 {
		sr, err := memscrub.Apply(memory.Unobserved(ctx), e.m, memscrub.Options{Finder: literalFinder(secrets), Sessions: []string{ref(c)}})
		if err != nil {
			return fmt.Errorf("redact %s, scrubbed on another machine: %w", ref(c), err)
		}
		if sr.Changed > 0 {
			rep.Redacted++
		}
		if snap, err := readStored(ctx, e.m); err == nil {
			if now := byHash(snap)[memory.ConversationHash(c.Harness, c.SessionID)]; now != nil {
				hash = now.Hash
			}
		}
	}
	e.st.Redacted[memory.ConversationHash(c.Harness, c.SessionID)] = redactMark{n, hash}
	return nil
}

// redactCopy redacts the secrets from one copy in the folder, in place,
// whichever machine's: the redacted copy is what its own machine writes
// too.
func (e *Engine) redactCopy(f *scanFile, s *funes.Session, secrets map[string]string, n int, rep *Report) error {
	if len(secrets) > 0 && len(redact.RedactSession(literalFinder(secrets), s)) > 0 {
		data, err := funes.MarshalSession(s)
		if err != nil {
			return err
		}
		if err := replaceErasing(f.abs, data); err != nil {
			return fmt.Errorf("redact %s: %w", f.abs, err)
		}
		rep.Redacted++
		if _, err := e.readCopy(f); err != nil {
			return nil
		}
	}
	f.rec.Redactions = n
	return nil
}

// importBatch is how many conversations go in one memory batch.
const importBatch = 2000

// importCopies imports, for each conversation not forgotten, the fullest
// copy in the folder when this memory lacks it or holds less. Files are
// read only when new or changed; a copy memory declined (it holds as much)
// is not offered again until the memory's copy changes.
func (e *Engine) importCopies(ctx context.Context, r *replayed, local map[string]*storedConversation, sc *scanned, rep *Report) error {
	hashes := make([]string, 0, len(sc.copies))
	for h := range sc.copies {
		hashes = append(hashes, h)
	}
	slices.Sort(hashes)
	type offer struct {
		f    *scanFile
		held string // what the memory held ("-": nothing)
	}
	var (
		b       *memory.Batch
		offered = map[string]offer{} // conversation → the copy offered
	)
	commit := func() error {
		if b == nil {
			return nil
		}
		ir, err := b.Commit(ctx, nil)
		b = nil
		if err != nil {
			return fmt.Errorf("import from the sync folder: %w", err)
		}
		rep.Imported += ir.New + ir.Updated
		// A copy the memory kept its own over (or refused) is not offered
		// again until the memory's copy changes; one it took needs no mark.
		for _, o := range ir.Sessions {
			if of, ok := offered[memory.ConversationHash(o.Harness, o.SessionID)]; ok {
				of.f.rec.Declined = of.held
				if o.Outcome == memory.OutcomeNew || o.Outcome == memory.OutcomeUpdated {
					of.f.rec.Declined = ""
				}
			}
		}
		clear(offered)
		return e.saveState() // a kill after this commit does not read these files again
	}
	for _, h := range hashes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, gone := r.forgotten[h]; gone {
			continue
		}
		var parsed map[*scanFile]*funes.Session
		var best *scanFile
		for _, f := range sc.copies[h] {
			if f.c.kind != kindConversation && f.c.kind != kindConflict {
				continue // erased this pass
			}
			if f.changed() {
				s, err := e.readCopy(f)
				if err != nil {
					continue
				}
				if parsed == nil {
					parsed = map[*scanFile]*funes.Session{}
				}
				parsed[f] = s
			}
			if f.rec.Bad != "" {
				continue
			}
			if best == nil || metaOfRecord(f.rec).better(metaOfRecord(best.rec)) {
				best = f
			}
		}
		if best == nil {
			continue
		}
		c := local[h]
		held := "-" // what the memory held when this copy was last offered
		if c != nil {
			held = c.Hash
			if c.Hash == best.rec.Hash || !metaOfRecord(best.rec).better(metaOfLocal(c)) {
				continue
			}
		}
		if best.rec.Declined == held {
			continue
		}
		s := parsed[best]
		if s == nil {
			var err error
			if s, err = e.readCopy(best); err != nil {
				continue
			}
		}
		if b == nil {
			var err error
			if b, err = e.m.NewBatch(memory.IngestOptions{Redact: e.redactArriving(r)}); err != nil {
				return fmt.Errorf("import from the sync folder: %w", err)
			}
		}
		if err := b.Add(ctx, s); err != nil {
			if ctx.Err() != nil {
				b.Discard()
				return ctx.Err()
			}
			best.rec.Bad = err.Error()
			continue
		}
		offered[h] = offer{best, held}
		if len(offered) >= importBatch {
			if err := commit(); err != nil {
				return err
			}
		}
	}
	return commit()
}

// redactArriving is the import hook for copies from the folder: the
// journals' redactions of that conversation first, then the person's own
// scrub-on-import.
func (e *Engine) redactArriving(r *replayed) func(*funes.Session) map[string]int {
	return func(s *funes.Session) map[string]int {
		_, counts := redactEntries(s, r.redactions[memory.ConversationHash(s.Harness, s.ID)], e.opts.Finder)
		if e.opts.Redact != nil {
			for rule, n := range e.opts.Redact(s) {
				if counts == nil {
					counts = map[string]int{}
				}
				counts[rule] += n
			}
		}
		return counts
	}
}

// exportChunk is how many files one flush covers when exporting.
const exportChunk = 500

// export writes to this machine's subfolder each conversation of the
// memory that no file in the folder holds as it is, unless a fuller copy
// is there (then this memory takes that one). A forgotten conversation is
// never written.
func (e *Engine) export(r *replayed, local map[string]*storedConversation, sc *scanned, rep *Report) error {
	held := map[string]bool{} // content hashes some machine's conversation file holds
	best := map[string]copyMeta{}
	for h, fs := range sc.copies {
		for _, f := range fs {
			if f.rec == nil || f.rec.Bad != "" || (f.c.kind != kindConversation && f.c.kind != kindConflict) {
				continue
			}
			if f.c.kind == kindConversation {
				held[f.rec.Hash] = true
			}
			if m, ok := best[h]; !ok || metaOfRecord(f.rec).better(m) {
				best[h] = metaOfRecord(f.rec)
			}
		}
	}
	defer e.dropConflicts(local, sc, held, rep)
	hashes := make([]string, 0, len(local))
	for h := range local {
		hashes = append(hashes, h)
	}
	slices.Sort(hashes)
	var ws []fileWrite
	var recs []*fileRecord
	flush := func() error {
		if len(ws) == 0 {
			return nil
		}
		if err := writeMany(ws); err != nil {
			return fmt.Errorf("export to the sync folder: %w", err)
		}
		for i, w := range ws {
			if fi, err := os.Stat(w.path); err == nil {
				recs[i].Size, recs[i].Mod = fi.Size(), fi.ModTime().UnixNano()
			}
			rel, _ := filepath.Rel(e.cfg.Folder, w.path)
			e.st.Files[filepath.ToSlash(rel)] = recs[i]
		}
		rep.Exported += len(ws)
		ws, recs = ws[:0], recs[:0]
		return nil
	}
	for _, h := range hashes {
		c := local[h]
		if _, gone := r.forgotten[h]; gone || held[c.Hash] {
			continue
		}
		if m, ok := best[h]; ok && m.better(metaOfLocal(c)) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(e.memDir, c.Path))
		if err != nil {
			continue // being replaced or forgotten meanwhile: the next pass looks again
		}
		sum := sha256.Sum256(data)
		ws = append(ws, fileWrite{conversationPath(e.cfg.Folder, e.cfg.Machine, h), data})
		recs = append(recs, &fileRecord{Hash: hex.EncodeToString(sum[:]), Turns: c.Turns, Updated: c.Updated, Bytes: int64(len(data)),
			Redactions: len(r.redactions[h])})
		if len(ws) >= exportChunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// dropConflicts erases the sync engine's conflict copies that hold nothing
// more than a conversation file or this memory does: any machine may, and
// the folder does not fill up with them.
func (e *Engine) dropConflicts(local map[string]*storedConversation, sc *scanned, held map[string]bool, rep *Report) {
	for h, fs := range sc.copies {
		for _, f := range fs {
			if f.c.kind != kindConflict || f.rec == nil {
				continue
			}
			c := local[h]
			if f.rec.Bad != "" || held[f.rec.Hash] || c != nil && !metaOfRecord(f.rec).better(metaOfLocal(c)) {
				e.erase(f, sc, rep)
			}
		}
	}
}

// applyChoices gives each conversation the tags and star the journals
// leave it, and remembers them as applied.
func (e *Engine) applyChoices(ctx context.Context, r *replayed, local map[string]*storedConversation, rep *Report) error {
	var changes []memory.ChoiceChange
	base := map[string]choiceState{}
	for h, c := range local {
		if _, gone := r.forgotten[h]; gone {
			continue
		}
		want := e.choicesOf(r.tagsOf(h), r.starOf(h))
		now := e.choicesOf(c.Projects, c.Starred)
		base[h] = want
		ch := memory.ChoiceChange{Harness: c.Harness, SessionID: c.SessionID}
		for _, p := range want.Tags {
			if !slices.Contains(now.Tags, p) {
				ch.Tag = append(ch.Tag, p)
			}
		}
		for _, p := range now.Tags {
			if !slices.Contains(want.Tags, p) {
				ch.Untag = append(ch.Untag, p)
			}
		}
		if want.Star != now.Star {
			ch.Star = &want.Star
		}
		if len(ch.Tag)+len(ch.Untag) > 0 || ch.Star != nil {
			changes = append(changes, ch)
		}
	}
	if err := e.m.ApplyChoices(ctx, changes); err != nil {
		return fmt.Errorf("apply the other machines' choices: %w", err)
	}
	rep.Applied += len(changes)
	e.st.Base = base
	return nil
}

// saveState writes the state when it changed.
func (e *Engine) saveState() error {
	status := e.st.Status
	e.st.Status = Status{}
	data, err := json.Marshal(e.st)
	e.st.Status = status
	if err != nil || bytes.Equal(data, e.saved) {
		return err
	}
	if err := funes.WriteFileAtomic(filepath.Join(localDir(e.memDir), stateName), data, 0o600); err != nil {
		return fmt.Errorf("sync state: %w", err)
	}
	e.saved = data
	return nil
}
