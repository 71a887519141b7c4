package memory

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

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
	// Field says which text holds the secret: one of package redact's
	// Field names (FieldTitle, FieldWorkdir, FieldProject, FieldToolName,
	// FieldProjectTag, empty for a block's text) or FieldAudit.
	Field   string `json:"field,omitempty"`
	AuditID int64  `json:"audit_id,omitempty"` // the audit row, for FieldAudit
	Rule    string `json:"rule"`
	Start   int    `json:"start"` // byte offsets of the secret in that text
	End     int    `json:"end"`
	Preview string `json:"preview"` // first and last two characters

	// Hash is the finding's full keyed hash, which the allow-list keeps;
	// ID is its first FindingIDLen hex digits.
	Hash string `json:"-"`
}

// FindingIDLen is how many hex digits of a finding's hash its id shows.
const FindingIDLen = 12

// ConversationRef names one stored conversation a scrub reads and rewrites.
type ConversationRef struct {
	Harness, SessionID string
	ref                sessionRef
}

// ScrubConversations lists the conversations a scrub scans: the named ones
// (id, or harness:id; each once), or all, in the order they were stored.
func (m *Memory) ScrubConversations(ctx context.Context, ids []string) ([]ConversationRef, error) {
	refs, err := m.scrubRefs(ctx, ids)
	out := make([]ConversationRef, len(refs))
	for i, r := range refs {
		out[i] = ConversationRef{Harness: r.harness, SessionID: r.sid, ref: r}
	}
	return out, err
}

// LoadConversation reads a conversation's source file, verbatim.
func (m *Memory) LoadConversation(r ConversationRef) (*funes.Session, error) { return m.loadRef(r.ref) }

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
	var refs []sessionRef
	err := EachRow(ctx, m.db, `SELECT id, harness, session_id, path FROM sessions ORDER BY id`, nil, func(rows *sql.Rows) error {
		var r sessionRef
		err := rows.Scan(&r.id, &r.harness, &r.sid, &r.path)
		refs = append(refs, r)
		return err
	})
	return refs, err
}

// ScrubCommit gathers one scrub's redactions — rewritten conversations,
// renamed project tags, rewritten audit rows — and commits them together.
type ScrubCommit struct {
	m       *Memory
	batch   *Batch
	olds    []sessionRef // src files the batch replaces
	tags    []tagEdit
	edits   []auditEdit
	history map[string]int // counts per rule for the history row; nil: none
}

// BeginScrub starts a scrub's commit, first finishing a forget or scrub
// another process left unfinished (the erase journal), and the links to
// old files a scrub of an earlier version left in .staging.
func (m *Memory) BeginScrub() *ScrubCommit {
	m.finishErases(context.Background()) // best effort: Commit journals its own job
	m.shredLeftovers()
	return &ScrubCommit{m: m}
}

// Conversation stages s, the redacted copy of the conversation r names,
// to replace it.
func (c *ScrubCommit) Conversation(ctx context.Context, r ConversationRef, s *funes.Session) error {
	if c.batch == nil {
		var err error
		if c.batch, err = c.m.NewBatch(IngestOptions{}); err != nil {
			return err
		}
	}
	if err := c.batch.Add(ctx, s); err != nil {
		return fmt.Errorf("scrub %s: %w", r.ref.sid, err)
	}
	c.olds = append(c.olds, r.ref)
	return nil
}

// Tag renames one of a conversation's project tags, from to to.
func (c *ScrubCommit) Tag(harness, sessionID, from, to string) {
	c.tags = append(c.tags, tagEdit{harness, sessionID, from, to})
}

// Audit rewrites an audit row's recorded arguments.
func (c *ScrubCommit) Audit(id int64, args string) { c.edits = append(c.edits, auditEdit{id, args}) }

// History has Commit add the scrub's history row (RecordScrub) in the
// same transaction as its redactions, so a kill cannot keep one without
// the other.
func (c *ScrubCommit) History(counts map[string]int) {
	if counts == nil {
		counts = map[string]int{}
	}
	c.history = counts
}

// Discard drops what was staged; nothing is changed.
func (c *ScrubCommit) Discard() {
	if c.batch != nil {
		c.batch.Discard()
	}
}

// Commit commits what was gathered (commitScrub), then tells the observer
// what the scrub redacted (findings).
func (c *ScrubCommit) Commit(ctx context.Context, findings []ScrubFinding) error {
	if c.batch == nil && len(c.tags) == 0 && len(c.edits) == 0 {
		if c.history != nil {
			return c.m.RecordScrub(ctx, c.history) // nothing to redact: the row alone
		}
		return nil
	}
	if err := c.m.commitScrub(ctx, c.batch, c.olds, c.tags, c.edits, c.history); err != nil {
		return err
	}
	c.m.reportRedactions(ctx, findings)
	return nil
}

// tagEdit renames one session's project tag that held a secret.
type tagEdit struct {
	harness, sid, from, to string
}

// auditEdit is an audit row's redacted arguments.
type auditEdit struct {
	id   int64
	args string
}

// commitScrub commits the redacted conversations, project tags and audit
// rows in one transaction, then overwrites the replaced files' old bytes
// and erases the database's. It is an erase job (see the erase journal):
// what it rewrites is journalled first, and the hard links that keep the
// old files' blocks reachable live in the job's folder, so a scrub killed
// at any step is finished by the next open, import, reindex, forget or
// scrub — the old bytes overwritten, the database erased — and, being one
// transaction, is either all applied or not at all. Killed after its
// transaction, before the rename, the dead batch's committed files are
// put in place first (recoverStaging). A killed scrub used to keep its
// links in .staging/scrub-old-* for good, the unredacted text with them.
func (m *Memory) commitScrub(ctx context.Context, batch *Batch, olds []sessionRef, tags []tagEdit, edits []auditEdit, history map[string]int) error {
	if batch == nil && len(tags) == 0 && len(edits) == 0 {
		return nil
	}
	var items []eraseItem
	for _, r := range olds {
		items = append(items, eraseItem{harness: r.harness, sid: r.sid, path: r.path})
	}
	for _, e := range tags {
		items = append(items, eraseItem{harness: e.harness, sid: e.sid})
	}
	if len(edits) > 0 {
		items = append(items, eraseItem{}) // the audit log: the database to erase
	}
	job, err := m.beginErase(ctx, eraseScrub, items)
	if err != nil {
		if batch != nil {
			batch.Discard()
		}
		return fmt.Errorf("scrub (nothing was changed): %w", err)
	}
	jctx := withJob(ctx, job)
	// Hard links keep the old files' inodes reachable after the batch
	// renames the redacted files over them, so their blocks can be
	// overwritten.
	var links []string
	for _, ref := range olds {
		l, err := m.keepOld(jctx, ref.path)
		if os.IsNotExist(err) {
			continue // no old bytes to overwrite
		}
		if err != nil {
			if batch != nil {
				batch.Discard()
			}
			job.cancel(ctx)
			return fmt.Errorf("scrub (nothing was changed): keep %s to overwrite: %w", ref.path, err)
		}
		links = append(links, l)
	}
	killPoint("scrub-linked")
	rewrite := func(ctx context.Context, tx *sql.Tx) error {
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
		if history != nil {
			return insertScrubHistory(ctx, tx, history)
		}
		return nil
	}
	if batch != nil {
		batch.whole, batch.inTx = true, rewrite // commitWhole: one transaction, rewrite in it
		_, err = batch.Commit(ctx, nil)
	} else {
		err = m.withTx(ctx, func(tx *sql.Tx) error { return rewrite(ctx, tx) })
	}
	killPoint("scrub-committed")
	// Overwritten whether or not the commit went in: a link to a file
	// the commit did not replace is only unlinked (shredKept).
	for _, l := range links {
		m.shredKept(l)
	}
	if err != nil {
		job.drop() // its rows stay: the next open erases whatever went in
		return fmt.Errorf("scrub: %w", err)
	}
	killPoint("scrub-shredded")
	if _, err := m.erase(ctx); err != nil {
		job.drop()
		return fmt.Errorf("scrub: erase old text: %w", err)
	}
	killPoint("scrub-erased")
	if err := job.done(ctx); err != nil {
		return fmt.Errorf("scrub: %w", err)
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

// shredLeftovers overwrites the links to old files (.staging/scrub-old-*)
// a scrub apply killed before its commit was journalled (an earlier
// version) left behind; Open runs it too.
func (m *Memory) shredLeftovers() {
	ls, _ := filepath.Glob(filepath.Join(m.dir, ".staging", oldPrefix+"*"))
	for _, l := range ls {
		shredOld(m.dir, l)
	}
}

// ScrubKey is the memory's key for finding hashes, made on first use.
func (m *Memory) ScrubKey(ctx context.Context) ([]byte, error) {
	if _, err := m.db.ExecContext(ctx, `INSERT OR IGNORE INTO meta(key,value) VALUES('scrub_key',?)`, randomHex(32)); err != nil {
		return nil, fmt.Errorf("scrub: %w", err)
	}
	var v string
	if err := m.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='scrub_key'`).Scan(&v); err != nil {
		return nil, fmt.Errorf("scrub: %w", err)
	}
	return hex.DecodeString(v)
}

// AddScrubAllow remembers findings (by Hash and Rule) as false positives
// and returns how many were new.
func (m *Memory) AddScrubAllow(ctx context.Context, fs []ScrubFinding) (int, error) {
	if len(fs) == 0 {
		return 0, nil
	}
	n := 0
	err := m.withTx(ctx, func(tx *sql.Tx) error {
		now := time.Now().Unix()
		for _, fd := range fs {
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO scrub_allow(hash, rule, added) VALUES(?,?,?)`, fd.Hash, fd.Rule, now)
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

// ScrubUnallow forgets allow-list entries by finding id, so those findings
// are reported again. Unknown ids are an error and nothing changes.
func (m *Memory) ScrubUnallow(ctx context.Context, ids ...string) error {
	return m.withTx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			id = strings.ToLower(strings.TrimSpace(id))
			if len(id) != FindingIDLen || strings.ContainsAny(id, "%_") {
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

// RecordScrub adds a history row: the time and the counts per rule, never
// the secrets. memscrub.Apply records its counts through
// ScrubCommit.History; an import with scrub on records its
// IngestReport.Redacted through this.
func (m *Memory) RecordScrub(ctx context.Context, counts map[string]int) error {
	if counts == nil {
		counts = map[string]int{}
	}
	return m.withTx(ctx, func(tx *sql.Tx) error { return insertScrubHistory(ctx, tx, counts) })
}

// insertScrubHistory adds a history row in tx.
func insertScrubHistory(ctx context.Context, tx *sql.Tx, counts map[string]int) error {
	js, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO scrub_history(ts, counts) VALUES(?,?)`, time.Now().Unix(), string(js))
	return err
}
