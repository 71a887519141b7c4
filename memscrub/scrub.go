// Package memscrub scrubs a stored memory of secrets: it scans every
// conversation (its metadata and project tags included) and the audit log
// with a redact.SecretFinder, reports the findings (Finding: each named by
// a keyed hash, never holding the secret), filters them by rule, id and
// the memory's allow-list of false positives, and applies the redactions.
// It owns a scrub's part of the catalog: the key for finding hashes, the
// allow-list and the history of past scrubs, which it reads in a
// memory.ReadTx (reads.go) and writes through memory.WriteCatalog
// (catalog.go), and the list of conversations a scrub scans. Memory keeps
// what must stay consistent with its files: an apply's redacted
// conversations, project tags, audit arguments and history row go in one
// memory.Rewrite, which replaces the files and the index in one commit
// with those catalog edits and erases the old bytes, as a journaled job
// the next open finishes if the scrub is killed.
package memscrub

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/redact"
)

// Options says what a scrub covers.
type Options struct {
	Finder   redact.SecretFinder
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

// Report is what a scan found and, after an apply, what it redacted.
type Report struct {
	Scanned      int            `json:"scanned"`       // conversations read
	AuditScanned int            `json:"audit_scanned"` // audit log rows read
	Findings     []Finding      `json:"findings"`
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

func newReport(applied bool) Report {
	return Report{Findings: []Finding{}, ByRule: map[string]int{}, Redacted: map[string]int{}, Applied: applied}
}

// errNoFinder is returned when a scrub runs without a secret finder.
var errNoFinder = errors.New("scrub: no secret finder given")

// Scan scans every stored conversation of m and the audit log (or the
// conversations o names) and lists the secrets in them. The index is
// derived from the src files, so scanning them covers both. Nothing is
// changed, except that o.Allow is remembered.
func Scan(ctx context.Context, m *memory.Memory, o Options) (Report, error) {
	rep := newReport(false)
	p, err := newPlan(ctx, m, o)
	if err != nil {
		return rep, err
	}
	var t tally
	err = eachSessionScan(ctx, p, false, func(r sessionScan) error {
		rep.addSession(r, &t, len(p.refs), o.Progress)
		return nil
	})
	if err != nil {
		return Report{}, err
	}
	if err := scanAudit(ctx, p, &t, &rep, nil); err != nil {
		return Report{}, err
	}
	if err := settle(ctx, p, &rep, &t); err != nil {
		return Report{}, err
	}
	return rep, nil
}

// Apply redacts what Scan would report: each affected src file is
// rewritten atomically and its index rows replaced in one transaction (by
// re-ingesting the redacted conversation), affected audit rows are
// rewritten, the old file's bytes are overwritten, and the database is
// erased the way forget does (freed pages zeroed, the engine's blocks rewritten, WAL
// truncated, vacuum when worth it): a memory.Rewrite. A history row
// keeps the counts per rule, never the secrets.
func Apply(ctx context.Context, m *memory.Memory, o Options) (Report, error) {
	rep := newReport(true)
	p, err := newPlan(ctx, m, o)
	if err != nil {
		return rep, err
	}
	var t tally
	var tags []tagEdit
	var audits []auditEdit
	w := m.BeginRewrite()
	err = eachSessionScan(ctx, p, true, func(r sessionScan) error {
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
		if err := w.Conversation(ctx, r.sess); err != nil {
			return err
		}
		rep.Changed++
		addCounts(rep.Redacted, r.counts)
		return nil
	})
	if err != nil {
		w.Discard()
		return Report{}, err
	}
	if err := scanAudit(ctx, p, &t, &rep, &audits); err != nil {
		w.Discard()
		return Report{}, err
	}
	if err := settle(ctx, p, &rep, &t); err != nil {
		w.Discard()
		return Report{}, err
	}
	redactCatalog(ctx, w, tags, audits, rep.Redacted) // its history row goes in with the redactions
	reportRedactions(w, rep.Findings)
	if err := w.Commit(ctx); err != nil {
		return Report{}, fmt.Errorf("scrub: %w", err)
	}
	return rep, nil
}

// plan is a checked Options and what every scan needs.
type plan struct {
	m      *memory.Memory
	finder redact.SecretFinder
	key    []byte // the memory's key for finding hashes
	filter filter
	refs   []conversation         // conversations to scan
	tags   map[[2]string][]string // project tags by harness and session id
	audit  bool                   // scan the audit log
}

type filter struct {
	rules   map[string]bool // nil: every rule
	ids     map[string]bool // nil: every finding
	allowed map[string]bool // hashes already allowed
	allow   map[string]bool // ids to allow now
}

func newPlan(ctx context.Context, m *memory.Memory, o Options) (*plan, error) {
	if o.Finder == nil {
		return nil, errNoFinder
	}
	p := &plan{m: m, finder: o.Finder, filter: filter{allow: map[string]bool{}}, audit: len(o.Sessions) == 0 || o.AuditLog}
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
	if p.key, err = findingKey(ctx, m); err != nil {
		return nil, err
	}
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("scrub: %w", err)
	}
	defer rt.Close()
	if p.refs, err = toScan(ctx, rt, o.Sessions); err != nil {
		return nil, err
	}
	if f.allowed, err = allowedHashes(ctx, rt); err != nil {
		return nil, err
	}
	if p.tags, err = projectTags(ctx, rt); err != nil {
		return nil, err
	}
	return p, nil
}

// tally gathers what the scans found.
type tally struct {
	allowed int
	newly   []Finding // matched an id in Allow
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
func (p *plan) check(t *tally, findings *[]Finding, text string, at Finding, scope [2]string, named map[string]string, found ...map[string]string) []redact.Span {
	if text == "" {
		return nil
	}
	spans := redact.Find(p.finder, text)
	if at.Field == redact.FieldTitle && len(found) > 0 {
		spans = redact.WithCutSecret(text, spans, found[0])
	}
	for i := range spans {
		v := text[spans[i].Start:spans[i].End]
		if r, ok := named[v]; ok {
			spans[i].Rule = r
		} else if named != nil {
			named[v] = spans[i].Rule
		}
	}
	if len(spans) == 0 {
		return nil
	}
	f := &p.filter
	var keep []redact.Span
	for _, sp := range spans {
		fd := at
		fd.Rule, fd.Start, fd.End, fd.TextLen = sp.Rule, sp.Start, sp.End, len(text)
		fd.Preview = redact.MaskSecret(text[sp.Start:sp.End])
		fd.Hash = findingHash(p.key, sp.Rule, scope[0], scope[1], text[sp.Start:sp.End])
		fd.ID = fd.Hash[:FindingIDLen]
		switch {
		case f.rules != nil && !f.rules[sp.Rule]:
			continue
		case f.ids != nil && !f.ids[fd.ID] && !f.allow[fd.ID]:
			continue
		case f.allowed[fd.Hash]:
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
	ref      conversation
	findings []Finding // to report (and redact, when applying)
	tally    tally
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
func eachSessionScan(ctx context.Context, p *plan, apply bool, each func(sessionScan) error) error {
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
				case results <- scanSession(gctx, p, ref, apply):
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
// apply is set, redacts what it reports.
func scanSession(ctx context.Context, p *plan, ref conversation, apply bool) sessionScan {
	r := sessionScan{ref: ref}
	s, err := p.m.LoadSession(ctx, ref.harness+":"+ref.sid)
	if err != nil {
		r.err = err
		return r
	}
	scope := [2]string{s.Harness, s.ID}
	changed := false
	secrets := map[string]string{} // found so far, for a title cut inside one
	named := map[string]string{}   // each secret's rule, the first found
	visit := func(loc redact.Loc, text string) string {
		at := Finding{Source: s.Harness, SessionID: s.ID, Seq: -1, Block: -1, Field: loc.Field}
		if loc.Turn >= 0 {
			t := s.Turns[loc.Turn]
			at.Seq, at.Block, at.TurnUUID = t.Seq, loc.Block, t.TurnUUID
		}
		keep := p.check(&r.tally, &r.findings, text, at, scope, named, secrets)
		for _, sp := range keep {
			secrets[text[sp.Start:sp.End]] = sp.Rule
		}
		if !apply || len(keep) == 0 {
			return text
		}
		changed = true
		for _, sp := range keep {
			r.counts = countRule(r.counts, sp.Rule)
		}
		return redact.Replace(p.finder, text, keep)
	}
	// The title last, when the secrets its cut may hold a prefix of are known.
	redact.EachText(s, func(loc redact.Loc, text string) string {
		if loc.Field == redact.FieldTitle {
			return text
		}
		return visit(loc, text)
	})
	s.Title = visit(redact.Loc{Turn: -1, Block: -1, Field: redact.FieldTitle}, s.Title)
	for _, tag := range p.tags[[2]string{s.Harness, s.ID}] {
		at := Finding{Source: s.Harness, SessionID: s.ID, Seq: -1, Block: -1, Field: redact.FieldProjectTag}
		keep := p.check(&r.tally, &r.findings, tag, at, scope, named)
		if !apply || len(keep) == 0 {
			continue
		}
		r.tagEdits = append(r.tagEdits, tagEdit{s.Harness, s.ID, tag, redact.Replace(p.finder, tag, keep)})
		for _, sp := range keep {
			r.counts = countRule(r.counts, sp.Rule)
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

// addSession adds one conversation's scan to the report.
func (rep *Report) addSession(r sessionScan, t *tally, total int, progress func(done, total int)) {
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

// scanAudit scans the audit log's recorded arguments (an agent's queries)
// and, when edits is not nil, adds the rows to rewrite to it.
func scanAudit(ctx context.Context, p *plan, t *tally, rep *Report, edits *[]auditEdit) error {
	if !p.audit {
		return nil
	}
	scope := [2]string{FieldAudit, ""}
	named := map[string]string{}
	return eachAuditArgs(ctx, p.m, func(id int64, args string) error {
		rep.AuditScanned++
		n := len(rep.Findings)
		keep := p.check(t, &rep.Findings, args, Finding{Seq: -1, Block: -1, Field: FieldAudit, AuditID: id}, scope, named)
		for _, fd := range rep.Findings[n:] {
			rep.ByRule[fd.Rule]++
		}
		if edits == nil || len(keep) == 0 {
			return nil
		}
		*edits = append(*edits, auditEdit{id, redact.Replace(p.finder, args, keep)})
		rep.AuditChanged++
		for _, sp := range keep {
			rep.Redacted[sp.Rule]++
		}
		return nil
	})
}

// settle checks the allow ids, sorts the findings and remembers the
// newly allowed ones.
func settle(ctx context.Context, p *plan, rep *Report, t *tally) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := unknownAllowIDs(p.filter.allow, t.newly); err != nil {
		return err
	}
	rep.Allowed = t.allowed
	sortFindings(rep.Findings)
	var err error
	rep.NewlyAllowed, err = addAllowed(ctx, p.m, t.newly)
	return err
}

func addCounts(dst, src map[string]int) {
	for k, v := range src {
		dst[k] += v
	}
}

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

func unknownAllowIDs(want map[string]bool, found []Finding) error {
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

func sortFindings(fs []Finding) {
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
