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
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ireneo-app/ireneo/funes"
)

// ScrubOptions says what a scrub covers.
type ScrubOptions struct {
	Finder   SecretFinder
	Rules    []string // only findings of these rule ids; empty means every rule
	Sessions []string // only these conversations (id, or harness:id); empty means all, and the audit log
	// AuditLog scans the audit log too when Sessions names conversations
	// (with Sessions empty, it always is).
	AuditLog bool
	IDs      []string // only the findings with these ids; empty means all
	// Allow marks these findings (ids from an earlier report) as false
	// positives before anything else: they are remembered and not reported
	// or redacted again. An id that matches no current finding is an error.
	Allow    []string
	Progress func(done, total int) // conversations scanned so far; may be nil
}

// FieldAudit marks a finding in the audit log: the arguments an agent's
// call was recorded with.
const FieldAudit = "audit"

// ScrubFinding is one secret found in a stored conversation or in the audit
// log. It never holds the secret: only where it is, the rule, and a masked
// preview.
type ScrubFinding struct {
	// ID names the finding for --allow: a keyed hash of rule, conversation and
	// secret, so the same secret twice in one conversation shares an id (and
	// the same secret anywhere in the audit log).
	ID        string `json:"id"`
	Source    string `json:"source"`
	SessionID string `json:"session_id"`
	TurnUUID  string `json:"turn_uuid,omitempty"`
	Seq       int    `json:"seq"`   // the turn's seq; -1 for the session's own fields and the audit log
	Block     int    `json:"block"` // the block's index in the turn; -1 likewise
	// Field says which text holds the secret: FieldTitle, FieldWorkdir,
	// FieldProject, FieldToolName, FieldAudit, or empty for a block's text.
	Field   string `json:"field,omitempty"`
	AuditID int64  `json:"audit_id,omitempty"` // the audit row, for FieldAudit
	Rule    string `json:"rule"`
	Start   int    `json:"start"` // byte offsets of the secret in that text
	End     int    `json:"end"`
	Preview string `json:"preview"` // first and last two characters

	hash string
}

// ScrubReport is what a scan found and, after an apply, what it redacted.
type ScrubReport struct {
	Scanned      int            `json:"scanned"`       // conversations read
	AuditScanned int            `json:"audit_scanned"` // audit log rows read
	Findings     []ScrubFinding `json:"findings"`
	ByRule       map[string]int `json:"by_rule"`
	// Allowed counts findings the allow-list hid, NewlyAllowed the ones this
	// call's Allow added.
	Allowed      int `json:"allowed"`
	NewlyAllowed int `json:"newly_allowed"`
	// Skipped lists conversations whose source file could not be read.
	Skipped []string `json:"skipped,omitempty"`

	Applied      bool           `json:"applied"`
	Changed      int            `json:"changed"`       // conversations rewritten
	AuditChanged int            `json:"audit_changed"` // audit rows rewritten
	Redacted     map[string]int `json:"redacted"`      // redactions per rule
}

func newScrubReport(applied bool) ScrubReport {
	return ScrubReport{Findings: []ScrubFinding{}, ByRule: map[string]int{}, Redacted: map[string]int{}, Applied: applied}
}

// ScrubScan scans every stored conversation and the audit log (or the
// conversations o names) and lists the secrets in them. The index is
// derived from the src files, so scanning them covers both. Nothing is
// changed, except that o.Allow is remembered.
func (m *Memory) ScrubScan(ctx context.Context, o ScrubOptions) (ScrubReport, error) {
	rep := newScrubReport(false)
	p, err := m.newScrubPlan(ctx, o)
	if err != nil {
		return rep, err
	}
	var t scrubTally
	err = m.eachSessionScan(ctx, p, false, func(r sessionScan) error {
		rep.addSession(r, &t, len(p.refs), o.Progress)
		return nil
	})
	if err != nil {
		return ScrubReport{}, err
	}
	if _, err := m.scanAudit(ctx, p, &t, &rep, false); err != nil {
		return ScrubReport{}, err
	}
	if err := m.settleScrub(ctx, p, &rep, &t); err != nil {
		return ScrubReport{}, err
	}
	return rep, nil
}

// ScrubApply redacts what ScrubScan would report: each affected src file is
// rewritten atomically and its index rows replaced in one transaction (by
// re-ingesting the redacted conversation), affected audit rows are
// rewritten, the old file's bytes are overwritten, and the database is
// erased the way forget does (freed pages zeroed, the engine's blocks rewritten, WAL
// truncated, vacuum when worth it). A history row keeps the counts per
// rule, never the secrets.
func (m *Memory) ScrubApply(ctx context.Context, o ScrubOptions) (ScrubReport, error) {
	rep := newScrubReport(true)
	p, err := m.newScrubPlan(ctx, o)
	if err != nil {
		return rep, err
	}
	m.shredLeftovers()
	var (
		t     scrubTally
		batch *Batch
		olds  []sessionRef // src files the batch replaces
		tags  []tagEdit
	)
	discard := func() {
		if batch != nil {
			batch.Discard()
		}
	}
	err = m.eachSessionScan(ctx, p, true, func(r sessionScan) error {
		rep.addSession(r, &t, len(p.refs), o.Progress)
		if r.err != nil {
			return nil
		}
		tags = append(tags, r.tagEdits...)
		if r.sess == nil && len(r.tagEdits) > 0 {
			rep.Changed++
			addCounts(rep.Redacted, r.counts)
		}
		if r.sess == nil {
			return nil
		}
		if batch == nil {
			var err error
			if batch, err = m.NewBatch(IngestOptions{}); err != nil {
				return err
			}
		}
		if err := batch.Add(ctx, r.sess); err != nil {
			return fmt.Errorf("scrub %s: %w", r.ref.sid, err)
		}
		olds = append(olds, r.ref)
		rep.Changed++
		addCounts(rep.Redacted, r.counts)
		return nil
	})
	if err != nil {
		discard()
		return ScrubReport{}, err
	}
	edits, err := m.scanAudit(ctx, p, &t, &rep, true)
	if err != nil {
		discard()
		return ScrubReport{}, err
	}
	if err := m.settleScrub(ctx, p, &rep, &t); err != nil {
		discard()
		return ScrubReport{}, err
	}
	if err := m.commitScrub(ctx, batch, olds, tags, edits); err != nil {
		return ScrubReport{}, err
	}
	m.reportRedactions(ctx, rep.Findings)
	if err := m.RecordScrub(ctx, rep.Redacted); err != nil {
		return rep, err
	}
	return rep, nil
}

// scrubPlan is a checked ScrubOptions and what every scan needs.
type scrubPlan struct {
	finder SecretFinder
	key    []byte // the memory's key for finding hashes
	filter scrubFilter
	refs   []sessionRef        // conversations to scan
	tags   map[string][]string // project tags by harness NUL session id
	audit  bool                // scan the audit log
}

type scrubFilter struct {
	rules   map[string]bool // nil: every rule
	ids     map[string]bool // nil: every finding
	allowed map[string]bool // hashes already allowed
	allow   map[string]bool // ids to allow now
}

func (m *Memory) newScrubPlan(ctx context.Context, o ScrubOptions) (*scrubPlan, error) {
	if o.Finder == nil {
		return nil, errNoFinder
	}
	p := &scrubPlan{finder: o.Finder, filter: scrubFilter{allow: map[string]bool{}}, audit: len(o.Sessions) == 0 || o.AuditLog}
	f := &p.filter
	if len(o.Rules) > 0 {
		f.rules = map[string]bool{}
		for _, r := range o.Rules {
			if !o.Finder.HasRule(r) {
				return nil, fmt.Errorf("scrub: unknown rule %q", r)
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
	var err error
	if p.key, err = m.scrubKey(ctx); err != nil {
		return nil, err
	}
	if f.allowed, err = m.scrubAllowedHashes(ctx); err != nil {
		return nil, err
	}
	if p.refs, err = m.scrubRefs(ctx, o.Sessions); err != nil {
		return nil, err
	}
	if p.tags, err = m.scrubTags(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// scrubTally gathers what the scans found.
type scrubTally struct {
	allowed int
	newly   []ScrubFinding // matched an id in Allow
}

// check finds the secrets in one text, reports them as findings like at
// (which says where the text is), and returns the ones to redact: those the
// filters keep and the allow-list does not hide. scope names the text's
// owner in the finding hash: a conversation, or the audit log. named
// holds the rule each secret of the scope was first found by: a secret
// found again by another rule (password here, generic-api-key there) is
// reported under that one, so it is one finding with one rule name. found,
// for a title, holds the secrets found in the rest of its conversation, a
// prefix of which a title cut short may keep.
func (p *scrubPlan) check(t *scrubTally, findings *[]ScrubFinding, text string, at ScrubFinding, scope [2]string, named map[string]string, found ...map[string]string) []secretSpan {
	if text == "" {
		return nil
	}
	spans := findSecrets(p.finder, text)
	if at.Field == FieldTitle && len(found) > 0 {
		spans = withCutSecret(text, spans, found[0])
	}
	for i := range spans {
		v := text[spans[i].start:spans[i].end]
		if r, ok := named[v]; ok {
			spans[i].rule = r
		} else if named != nil {
			named[v] = spans[i].rule
		}
	}
	if len(spans) == 0 {
		return nil
	}
	f := &p.filter
	var keep []secretSpan
	for _, sp := range spans {
		fd := at
		fd.Rule, fd.Start, fd.End = sp.rule, sp.start, sp.end
		fd.Preview = MaskSecret(text[sp.start:sp.end])
		fd.hash = findingHash(p.key, sp.rule, scope[0], scope[1], text[sp.start:sp.end])
		fd.ID = fd.hash[:findingIDLen]
		switch {
		case f.rules != nil && !f.rules[sp.rule]:
			continue
		case f.ids != nil && !f.ids[fd.ID] && !f.allow[fd.ID]:
			continue
		case f.allowed[fd.hash]:
			t.allowed++
			if f.allow[fd.ID] {
				t.newly = append(t.newly, fd) // already allowed: not an unknown id
			}
			continue
		case f.allow[fd.ID]:
			t.allowed++
			t.newly = append(t.newly, fd)
			continue
		}
		*findings = append(*findings, fd)
		keep = append(keep, sp)
	}
	return keep
}

// sessionScan is what scanning one conversation found.
type sessionScan struct {
	ref      sessionRef
	findings []ScrubFinding // to report (and redact, when applying)
	tally    scrubTally
	sess     *funes.Session // redacted copy; nil if nothing changed
	tagEdits []tagEdit      // project tags to rename
	counts   map[string]int
	err      error
}

// tagEdit renames one session's project tag that held a secret.
type tagEdit struct {
	harness, sid, from, to string
}

// eachSessionScan scans the plan's conversations on every CPU and hands
// each result to each, on the calling goroutine. An error from each stops
// the scan and is returned.
func (m *Memory) eachSessionScan(ctx context.Context, p *scrubPlan, redact bool, each func(sessionScan) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, runtime.GOMAXPROCS(0)))
	results := make(chan sessionScan)
	go func() {
		defer close(results)
		for _, ref := range p.refs {
			if gctx.Err() != nil {
				break
			}
			g.Go(func() error {
				select {
				case results <- m.scanSession(p, ref, redact):
					return nil
				case <-gctx.Done():
					return gctx.Err()
				}
			})
		}
		g.Wait() // its only errors are the context's, returned below
	}()
	var failed error
	for r := range results {
		if failed != nil {
			continue // drain so the workers can finish
		}
		if failed = each(r); failed != nil {
			cancel()
		}
	}
	if failed != nil {
		return failed
	}
	return ctx.Err()
}

// scanSession scans one conversation, its metadata included, and when
// redact is set, redacts what it reports.
func (m *Memory) scanSession(p *scrubPlan, ref sessionRef, redact bool) sessionScan {
	r := sessionScan{ref: ref}
	s, err := m.loadRef(ref)
	if err != nil {
		r.err = err
		return r
	}
	scope := [2]string{s.Harness, s.ID}
	changed := false
	secrets := map[string]string{} // found so far, for a title cut inside one
	named := map[string]string{}   // each secret's rule, the first found
	visit := func(loc textLoc, text string) string {
		at := ScrubFinding{Source: s.Harness, SessionID: s.ID, Seq: -1, Block: -1, Field: loc.field}
		if loc.turn >= 0 {
			t := s.Turns[loc.turn]
			at.Seq, at.Block, at.TurnUUID = t.Seq, loc.block, t.TurnUUID
		}
		keep := p.check(&r.tally, &r.findings, text, at, scope, named, secrets)
		for _, sp := range keep {
			secrets[text[sp.start:sp.end]] = sp.rule
		}
		if !redact || len(keep) == 0 {
			return text
		}
		changed = true
		for _, sp := range keep {
			r.counts = countRule(r.counts, sp.rule)
		}
		return redactSpans(p.finder, text, keep)
	}
	// The title last, when the secrets its cut may hold a prefix of are known.
	eachText(s, func(loc textLoc, text string) string {
		if loc.field == FieldTitle {
			return text
		}
		return visit(loc, text)
	})
	s.Title = visit(textLoc{-1, -1, FieldTitle}, s.Title)
	for _, tag := range p.tags[s.Harness+"\x00"+s.ID] {
		at := ScrubFinding{Source: s.Harness, SessionID: s.ID, Seq: -1, Block: -1, Field: FieldProjectTag}
		keep := p.check(&r.tally, &r.findings, tag, at, scope, named)
		if !redact || len(keep) == 0 {
			continue
		}
		r.tagEdits = append(r.tagEdits, tagEdit{s.Harness, s.ID, tag, redactSpans(p.finder, tag, keep)})
		for _, sp := range keep {
			r.counts = countRule(r.counts, sp.rule)
		}
	}
	if changed {
		r.sess = s
	}
	return r
}

func countRule(counts map[string]int, rule string) map[string]int {
	if counts == nil {
		counts = map[string]int{}
	}
	counts[rule]++
	return counts
}

// scrubTags lists every session's project tags.
func (m *Memory) scrubTags(ctx context.Context) (map[string][]string, error) {
	rows, err := m.db.QueryContext(ctx, `SELECT harness, session_id, project FROM session_projects`)
	if err != nil {
		return nil, fmt.Errorf("scrub: read project tags: %w", err)
	}
	defer rows.Close()
	tags := map[string][]string{}
	for rows.Next() {
		var h, sid, p string
		if err := rows.Scan(&h, &sid, &p); err != nil {
			return nil, fmt.Errorf("scrub: read project tags: %w", err)
		}
		tags[h+"\x00"+sid] = append(tags[h+"\x00"+sid], p)
	}
	return tags, rows.Err()
}

// addSession adds one conversation's scan to the report.
func (rep *ScrubReport) addSession(r sessionScan, t *scrubTally, total int, progress func(done, total int)) {
	rep.Scanned++
	if progress != nil {
		progress(rep.Scanned, total)
	}
	if r.err != nil {
		rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s:%s: %v", r.ref.harness, r.ref.sid, r.err))
		return
	}
	t.allowed += r.tally.allowed
	t.newly = append(t.newly, r.tally.newly...)
	rep.Findings = append(rep.Findings, r.findings...)
	for _, fd := range r.findings {
		rep.ByRule[fd.Rule]++
	}
}

// auditEdit is an audit row's redacted arguments.
type auditEdit struct {
	id   int64
	args string
}

// scanAudit scans the audit log's recorded arguments (an agent's queries)
// and, when redact is set, returns the rows to rewrite.
func (m *Memory) scanAudit(ctx context.Context, p *scrubPlan, t *scrubTally, rep *ScrubReport, redact bool) ([]auditEdit, error) {
	if !p.audit {
		return nil, nil
	}
	rows, err := m.db.QueryContext(ctx, `SELECT id, args FROM audit ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("scrub the audit log: %w", err)
	}
	defer rows.Close()
	var edits []auditEdit
	scope := [2]string{FieldAudit, ""}
	named := map[string]string{}
	for rows.Next() {
		var id int64
		var args string
		if err := rows.Scan(&id, &args); err != nil {
			return nil, fmt.Errorf("scrub the audit log: %w", err)
		}
		rep.AuditScanned++
		n := len(rep.Findings)
		keep := p.check(t, &rep.Findings, args, ScrubFinding{Seq: -1, Block: -1, Field: FieldAudit, AuditID: id}, scope, named)
		for _, fd := range rep.Findings[n:] {
			rep.ByRule[fd.Rule]++
		}
		if !redact || len(keep) == 0 {
			continue
		}
		edits = append(edits, auditEdit{id, redactSpans(p.finder, args, keep)})
		for _, sp := range keep {
			rep.Redacted[sp.rule]++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("scrub the audit log: %w", err)
	}
	rep.AuditChanged = len(edits)
	return edits, nil
}

// settleScrub checks the allow ids, sorts the findings and remembers the
// newly allowed ones.
func (m *Memory) settleScrub(ctx context.Context, p *scrubPlan, rep *ScrubReport, t *scrubTally) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := unknownAllowIDs(p.filter.allow, t.newly); err != nil {
		return err
	}
	rep.Allowed = t.allowed
	sortFindings(rep.Findings)
	var err error
	rep.NewlyAllowed, err = m.addScrubAllow(ctx, t.newly)
	return err
}

func addCounts(dst, src map[string]int) {
	for k, v := range src {
		dst[k] += v
	}
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
		case a.AuditID != b.AuditID:
			return a.AuditID < b.AuditID
		case a.Block != b.Block:
			return a.Block < b.Block
		case a.Field != b.Field:
			return a.Field < b.Field
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

// commitScrub commits the redacted conversations and audit rows, then
// overwrites the replaced files' old bytes and erases the database's.
func (m *Memory) commitScrub(ctx context.Context, batch *Batch, olds []sessionRef, tags []tagEdit, edits []auditEdit) error {
	if batch == nil && len(tags) == 0 && len(edits) == 0 {
		return nil
	}
	if batch != nil {
		// Hard links keep the old files' inodes reachable after the batch
		// renames the redacted files over them, so their blocks can be
		// overwritten.
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
	}
	if len(tags)+len(edits) > 0 {
		err := m.withTx(ctx, func(tx *sql.Tx) error {
			for _, e := range tags {
				// The redacted tag may be one the session has already.
				if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO session_projects(harness,session_id,project) VALUES(?,?,?)`, e.harness, e.sid, e.to); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `DELETE FROM session_projects WHERE harness=? AND session_id=? AND project=?`, e.harness, e.sid, e.from); err != nil {
					return err
				}
			}
			for _, e := range edits {
				if _, err := tx.ExecContext(ctx, `UPDATE audit SET args=? WHERE id=?`, e.args, e.id); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("scrub project tags and the audit log: %w", err)
		}
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
