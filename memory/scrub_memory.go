package memory

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// ScrubOptions says what a scrub covers.
type ScrubOptions struct {
	Scrubber *Scrubber
	Rules    []string // only findings of these rule ids; empty means every rule
	Sessions []string // only these conversations (id, or harness:id); empty means all
	IDs      []string // only the findings with these ids; empty means all
	// Allow marks these findings (ids from an earlier report) as false
	// positives before anything else: they are remembered and not reported
	// or redacted again. An id that matches no current finding is an error.
	Allow    []string
	Progress func(done, total int) // conversations scanned so far; may be nil
}

// ScrubFinding is one secret found in a stored conversation. It never holds
// the secret: only where it is, the rule, and a masked preview.
type ScrubFinding struct {
	// ID names the finding for --allow: a keyed hash of rule, conversation and
	// secret, so the same secret twice in one conversation shares an id.
	ID        string `json:"id"`
	Source    string `json:"source"`
	SessionID string `json:"session_id"`
	TurnUUID  string `json:"turn_uuid,omitempty"`
	Seq       int    `json:"seq"`   // the turn's seq; -1 for the title
	Block     int    `json:"block"` // the block's index in the turn; -1 for the title
	Rule      string `json:"rule"`
	Start     int    `json:"start"` // byte offsets of the secret in the block text
	End       int    `json:"end"`
	Preview   string `json:"preview"` // first and last two characters

	hash string
}

// ScrubReport is what a scan found and, after an apply, what it redacted.
type ScrubReport struct {
	Scanned  int            `json:"scanned"` // conversations read
	Findings []ScrubFinding `json:"findings"`
	ByRule   map[string]int `json:"by_rule"`
	// Allowed counts findings the allow-list hid, NewlyAllowed the ones this
	// call's Allow added.
	Allowed      int `json:"allowed"`
	NewlyAllowed int `json:"newly_allowed"`
	// Skipped lists conversations whose source file could not be read.
	Skipped []string `json:"skipped,omitempty"`

	Applied  bool           `json:"applied"`
	Changed  int            `json:"changed"`  // conversations rewritten
	Redacted map[string]int `json:"redacted"` // redactions per rule
}

// ScrubScan scans every stored conversation (or the ones o names) and lists
// the secrets in it. The index is derived from the src files, so scanning
// them covers both. Nothing is changed, except that o.Allow is remembered.
func (m *Memory) ScrubScan(ctx context.Context, o ScrubOptions) (ScrubReport, error) {
	return m.scrub(ctx, o, false)
}

// ScrubApply redacts what ScrubScan would report: each affected src file is
// rewritten atomically and its index rows replaced in one transaction (by
// re-ingesting the redacted conversation), the old file's bytes are
// overwritten, and the database is erased the way forget does (freed pages
// zeroed, FTS merged, WAL truncated, vacuum when worth it). A history row
// keeps the counts per rule, never the secrets.
func (m *Memory) ScrubApply(ctx context.Context, o ScrubOptions) (ScrubReport, error) {
	return m.scrub(ctx, o, true)
}

type scrubFilter struct {
	rules   map[string]bool // nil: every rule
	ids     map[string]bool // nil: every finding
	allowed map[string]bool // hashes already allowed
	allow   map[string]bool // ids to allow now
}

type scrubResult struct {
	ref      sessionRef
	findings []ScrubFinding // to report (and redact, when applying)
	allowed  int
	newly    []ScrubFinding // matched an id in Allow
	sess     *Session       // redacted copy; nil if nothing changed
	counts   map[string]int
	err      error
}

func (m *Memory) scrub(ctx context.Context, o ScrubOptions, apply bool) (ScrubReport, error) {
	rep := ScrubReport{Findings: []ScrubFinding{}, ByRule: map[string]int{}, Redacted: map[string]int{}, Applied: apply}
	if o.Scrubber == nil {
		return rep, errNoScrubber
	}
	f := scrubFilter{allow: map[string]bool{}}
	if len(o.Rules) > 0 {
		f.rules = map[string]bool{}
		for _, r := range o.Rules {
			if !o.Scrubber.HasRule(r) {
				return rep, fmt.Errorf("scrub: unknown rule %q", r)
			}
			f.rules[r] = true
		}
	}
	for _, id := range o.Allow {
		f.allow[strings.ToLower(strings.TrimSpace(id))] = true
	}
	if len(o.IDs) > 0 {
		f.ids = map[string]bool{}
		for _, id := range o.IDs {
			f.ids[strings.ToLower(strings.TrimSpace(id))] = true
		}
	}
	key, err := m.scrubKey(ctx)
	if err != nil {
		return rep, err
	}
	if f.allowed, err = m.scrubAllowedHashes(ctx); err != nil {
		return rep, err
	}
	refs, err := m.scrubRefs(ctx, o.Sessions)
	if err != nil {
		return rep, err
	}
	if apply {
		m.shredLeftovers()
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan sessionRef)
	results := make(chan scrubResult)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ref := range jobs {
				r := m.scrubOne(o.Scrubber, key, ref, f, apply)
				select {
				case results <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, ref := range refs {
			select {
			case jobs <- ref:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	var batch *Batch
	var olds []sessionRef // src files the batch replaces
	var newly []ScrubFinding
	var failed error
	for r := range results {
		if failed != nil {
			continue // drain so the workers can finish
		}
		rep.Scanned++
		if o.Progress != nil {
			o.Progress(rep.Scanned, len(refs))
		}
		if r.err != nil {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s:%s: %v", r.ref.harness, r.ref.sid, r.err))
			continue
		}
		rep.Allowed += r.allowed
		newly = append(newly, r.newly...)
		rep.Findings = append(rep.Findings, r.findings...)
		for _, fd := range r.findings {
			rep.ByRule[fd.Rule]++
		}
		if r.sess == nil {
			continue
		}
		if batch == nil {
			if batch, failed = m.NewBatch(IngestOptions{}); failed != nil {
				cancel()
				continue
			}
		}
		if failed = batch.Add(ctx, r.sess); failed != nil {
			failed = fmt.Errorf("scrub %s: %w", r.ref.sid, failed)
			cancel()
			continue
		}
		olds = append(olds, r.ref)
		rep.Changed++
		for rule, n := range r.counts {
			rep.Redacted[rule] += n
		}
	}
	if failed == nil {
		failed = ctx.Err()
	}
	if failed == nil {
		failed = unknownAllowIDs(f.allow, newly)
	}
	if failed != nil {
		if batch != nil {
			batch.Discard()
		}
		return ScrubReport{}, failed
	}
	sortFindings(rep.Findings)
	if rep.NewlyAllowed, err = m.addScrubAllow(ctx, newly); err != nil {
		if batch != nil {
			batch.Discard()
		}
		return ScrubReport{}, err
	}
	if !apply {
		return rep, nil
	}
	if batch != nil {
		if err := m.commitScrub(ctx, batch, olds); err != nil {
			return ScrubReport{}, err
		}
	}
	if err := m.RecordScrub(ctx, rep.Redacted); err != nil {
		return rep, err
	}
	return rep, nil
}

// scrubOne scans one conversation and, when applying, redacts it.
func (m *Memory) scrubOne(sc *Scrubber, key []byte, ref sessionRef, f scrubFilter, apply bool) scrubResult {
	r := scrubResult{ref: ref}
	s, err := m.loadRef(ref)
	if err != nil {
		r.err = err
		return r
	}
	changed := false
	do := func(seq, block int, turnUUID, text string) string {
		ms := sc.Scan(text)
		if len(ms) == 0 {
			return text
		}
		keep := ms[:0:0]
		for _, mt := range ms {
			fd := ScrubFinding{
				Source: s.Harness, SessionID: s.ID, TurnUUID: turnUUID, Seq: seq, Block: block,
				Rule: mt.Rule, Start: mt.Start, End: mt.End, Preview: MaskSecret(text[mt.Start:mt.End]),
			}
			fd.hash = findingHash(key, mt.Rule, s.Harness, s.ID, text[mt.Start:mt.End])
			fd.ID = fd.hash[:findingIDLen]
			switch {
			case f.rules != nil && !f.rules[mt.Rule]:
				continue
			case f.ids != nil && !f.ids[fd.ID] && !f.allow[fd.ID]:
				continue
			case f.allowed[fd.hash]:
				r.allowed++
				if f.allow[fd.ID] {
					r.newly = append(r.newly, fd) // already allowed: not an unknown id
				}
				continue
			case f.allow[fd.ID]:
				r.allowed++
				r.newly = append(r.newly, fd)
				continue
			}
			r.findings = append(r.findings, fd)
			keep = append(keep, mt)
		}
		if !apply || len(keep) == 0 {
			return text
		}
		changed = true
		if r.counts == nil {
			r.counts = map[string]int{}
		}
		for _, mt := range keep {
			r.counts[mt.Rule]++
		}
		return Redact(text, keep)
	}
	s.Title = do(-1, -1, "", s.Title)
	for ti := range s.Turns {
		t := &s.Turns[ti]
		for bi := range t.Blocks {
			t.Blocks[bi].Text = do(t.Seq, bi, t.TurnUUID, t.Blocks[bi].Text)
		}
	}
	if changed {
		r.sess = s
	}
	return r
}

// findingIDLen is how many hex digits of a finding's hash its id shows.
const findingIDLen = 12

// findingHash identifies a finding without keeping its secret: an HMAC, keyed
// per memory, of rule, conversation and a hash of the secret.
func findingHash(key []byte, rule, harness, sid, secret string) string {
	sum := sha256.Sum256([]byte(secret))
	h := hmac.New(sha256.New, key)
	for _, p := range []string{rule, harness, sid} {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	h.Write(sum[:])
	return hex.EncodeToString(h.Sum(nil))
}

func unknownAllowIDs(want map[string]bool, found []ScrubFinding) error {
	if len(want) == 0 {
		return nil
	}
	got := map[string]bool{}
	for _, fd := range found {
		got[fd.ID] = true
	}
	var missing []string
	for id := range want {
		if !got[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	return fmt.Errorf("scrub: no finding with id %s (ids come from the scrub report; a --rule or --session filter may hide it)", strings.Join(missing, ", "))
}

func sortFindings(fs []ScrubFinding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		switch {
		case a.Source != b.Source:
			return a.Source < b.Source
		case a.SessionID != b.SessionID:
			return a.SessionID < b.SessionID
		case a.Seq != b.Seq:
			return a.Seq < b.Seq
		case a.Block != b.Block:
			return a.Block < b.Block
		}
		return a.Start < b.Start
	})
}

// scrubRefs lists the conversations to scan: the named ones, or all.
func (m *Memory) scrubRefs(ctx context.Context, ids []string) ([]sessionRef, error) {
	if len(ids) > 0 {
		var refs []sessionRef
		seen := map[string]bool{}
		for _, id := range ids {
			ref, err := m.findSession(ctx, m.db, id, nil)
			if err != nil {
				return nil, err
			}
			if k := ref.harness + "\x00" + ref.sid; !seen[k] {
				seen[k] = true
				refs = append(refs, ref)
			}
		}
		return refs, nil
	}
	rows, err := m.db.QueryContext(ctx, `SELECT id, harness, session_id, path FROM sessions ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var refs []sessionRef
	for rows.Next() {
		var r sessionRef
		if err := rows.Scan(&r.id, &r.harness, &r.sid, &r.path); err != nil {
			return nil, err
		}
		refs = append(refs, r)
	}
	return refs, rows.Err()
}

// commitScrub commits the redacted conversations, then overwrites the
// replaced files' old bytes and erases the database's.
func (m *Memory) commitScrub(ctx context.Context, batch *Batch, olds []sessionRef) error {
	// Hard links keep the old files' inodes reachable after the batch renames
	// the redacted files over them, so their blocks can be overwritten.
	var links []string
	for _, ref := range olds {
		if l, err := m.linkOld(ref.path); err == nil {
			links = append(links, l)
		}
	}
	_, err := batch.Commit(ctx, nil)
	for _, l := range links {
		shredOld(m.dir, l)
	}
	if err != nil {
		return fmt.Errorf("scrub: %w", err)
	}
	if err := m.Erase(ctx); err != nil {
		return fmt.Errorf("scrub: erase old text: %w", err)
	}
	return nil
}

const oldPrefix = "scrub-old-"

// linkOld hard-links a src file into the staging folder, naming it after
// its path so a crash's leftovers can be told apart from live files.
func (m *Memory) linkOld(rel string) (string, error) {
	dir := filepath.Join(m.dir, ".staging")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	l := filepath.Join(dir, oldPrefix+randomHex(4)+"-"+hex.EncodeToString([]byte(rel)))
	return l, os.Link(filepath.Join(m.dir, rel), l)
}

// shredOld overwrites and removes a link made by linkOld, unless the src
// path still points at the same file (the commit did not replace it): then
// it only removes the link, since zeroing it would zero the live file.
func shredOld(dir, link string) {
	name := filepath.Base(link)
	rest, ok := strings.CutPrefix(name, oldPrefix)
	if !ok {
		return
	}
	live := false
	if _, enc, ok := strings.Cut(rest, "-"); ok {
		if rel, err := hex.DecodeString(enc); err == nil {
			a, errA := os.Stat(link)
			b, errB := os.Stat(filepath.Join(dir, string(rel)))
			live = errA == nil && errB == nil && os.SameFile(a, b)
		}
	}
	if live {
		os.Remove(link)
		return
	}
	if err := shred(link); err != nil {
		os.Remove(link)
	}
}

// shredLeftovers finishes what a crashed apply left behind.
func (m *Memory) shredLeftovers() {
	ls, _ := filepath.Glob(filepath.Join(m.dir, ".staging", oldPrefix+"*"))
	for _, l := range ls {
		shredOld(m.dir, l)
	}
}

// scrubKey is the memory's key for finding hashes, made on first use.
func (m *Memory) scrubKey(ctx context.Context) ([]byte, error) {
	if _, err := m.db.ExecContext(ctx, `INSERT OR IGNORE INTO meta(key,value) VALUES('scrub_key',?)`, randomHex(32)); err != nil {
		return nil, fmt.Errorf("scrub: %w", err)
	}
	var v string
	if err := m.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='scrub_key'`).Scan(&v); err != nil {
		return nil, fmt.Errorf("scrub: %w", err)
	}
	return hex.DecodeString(v)
}

func (m *Memory) scrubAllowedHashes(ctx context.Context) (map[string]bool, error) {
	rows, err := m.db.QueryContext(ctx, `SELECT hash FROM scrub_allow`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out[h] = true
	}
	return out, rows.Err()
}

// addScrubAllow remembers findings as false positives and returns how many
// were new.
func (m *Memory) addScrubAllow(ctx context.Context, fs []ScrubFinding) (int, error) {
	if len(fs) == 0 {
		return 0, nil
	}
	n := 0
	err := m.withTx(ctx, func(tx *sql.Tx) error {
		now := time.Now().Unix()
		for _, fd := range fs {
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO scrub_allow(hash, rule, added) VALUES(?,?,?)`, fd.hash, fd.Rule, now)
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k > 0 {
				n++
			}
		}
		return nil
	})
	return n, err
}

// ScrubAllowEntry is one remembered false positive.
type ScrubAllowEntry struct {
	ID    string    `json:"id"`
	Rule  string    `json:"rule"`
	Added time.Time `json:"added"`
}

// ScrubAllowList lists the remembered false positives, newest first.
func (m *Memory) ScrubAllowList(ctx context.Context) ([]ScrubAllowEntry, error) {
	rows, err := m.db.QueryContext(ctx, `SELECT hash, rule, added FROM scrub_allow ORDER BY added DESC, hash`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ScrubAllowEntry
	for rows.Next() {
		var h, rule string
		var added int64
		if err := rows.Scan(&h, &rule, &added); err != nil {
			return nil, err
		}
		out = append(out, ScrubAllowEntry{ID: h[:min(len(h), findingIDLen)], Rule: rule, Added: time.Unix(added, 0).UTC()})
	}
	return out, rows.Err()
}

// ScrubUnallow forgets allow-list entries by finding id, so those findings
// are reported again. Unknown ids are an error and nothing changes.
func (m *Memory) ScrubUnallow(ctx context.Context, ids ...string) error {
	return m.withTx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			id = strings.ToLower(strings.TrimSpace(id))
			if len(id) != findingIDLen || strings.ContainsAny(id, "%_") {
				return fmt.Errorf("scrub: %q is not a finding id", id)
			}
			res, err := tx.ExecContext(ctx, `DELETE FROM scrub_allow WHERE hash LIKE ? || '%'`, id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return fmt.Errorf("scrub: %s is not on the allow-list", id)
			}
		}
		return nil
	})
}

// ScrubHistoryEntry is one scrub: when, and how many redactions per rule.
type ScrubHistoryEntry struct {
	TS     time.Time      `json:"ts"`
	Counts map[string]int `json:"counts"`
}

// RecordScrub adds a history row: the time and the counts per rule, never
// the secrets. ScrubApply records itself; an import with scrub on records
// its IngestReport.Redacted through this.
func (m *Memory) RecordScrub(ctx context.Context, counts map[string]int) error {
	if counts == nil {
		counts = map[string]int{}
	}
	js, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	return m.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO scrub_history(ts, counts) VALUES(?,?)`, time.Now().Unix(), string(js))
		return err
	})
}

// ScrubHistory lists past scrubs, newest first; limit ≤ 0 means all.
func (m *Memory) ScrubHistory(ctx context.Context, limit int) ([]ScrubHistoryEntry, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := m.db.QueryContext(ctx, `SELECT ts, counts FROM scrub_history ORDER BY ts DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ScrubHistoryEntry
	for rows.Next() {
		var ts int64
		var js string
		if err := rows.Scan(&ts, &js); err != nil {
			return nil, err
		}
		e := ScrubHistoryEntry{TS: time.Unix(ts, 0).UTC(), Counts: map[string]int{}}
		if err := json.Unmarshal([]byte(js), &e.Counts); err != nil {
			return nil, errors.New("scrub history: a row is not valid JSON")
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
