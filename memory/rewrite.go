package memory

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ireneo-app/ireneo/funes"
)

// Rewrite replaces stored conversations with new versions of them and
// edits the catalog in the same transaction: memory's one rewrite of what
// it stores, which a scrub (package memscrub) makes of its redactions. The
// old versions' bytes are overwritten and the database erased after the
// commit, and the whole is an erase job (see the erase journal), so a
// rewrite killed at any step is either undone whole or finished by the
// next open, import, reindex, forget or rewrite, with no old text left in
// any file. Its rows in the journal, its kill points (scrub-journaled,
// scrub-linked, commit-tx, scrub-committed, scrub-shredded, scrub-erased)
// and the count in FinishReport.Scrubbed keep the name of the rewrite's
// only maker.
type Rewrite struct {
	m       *Memory
	batch   *Batch
	olds    []sessionRef // stored conversations the batch replaces
	erased  []eraseItem  // what the catalog edits replace (Erases)
	catalog []func(*CatalogTx) error
	choices []Choice
}

// BeginRewrite starts a rewrite, first finishing a forget or rewrite
// another process left unfinished (the erase journal), and the links to
// old files a scrub of an earlier version left in .staging.
func (m *Memory) BeginRewrite() *Rewrite {
	m.finishErases(context.Background()) // best effort: Commit journals its own job
	m.shredLeftovers()
	return &Rewrite{m: m}
}

// Conversation stages s, a new version of the stored conversation of its
// harness and id, to replace it.
func (w *Rewrite) Conversation(ctx context.Context, s *funes.Session) error {
	ref, err := findSession(ctx, w.m.db, s.Harness+":"+s.ID, nil)
	if errors.Is(err, ErrNotFound) {
		ref, err = sessionRef{harness: s.Harness, sid: s.ID}, nil // gone meanwhile: no old file to overwrite
	}
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", s.ID, err)
	}
	if w.batch == nil {
		if w.batch, err = w.m.NewBatch(IngestOptions{}); err != nil {
			return err
		}
	}
	if err := w.batch.Add(ctx, s); err != nil {
		return fmt.Errorf("rewrite %s: %w", s.ID, err)
	}
	w.olds = append(w.olds, ref)
	return nil
}

// Catalog has Commit run fn in the rewrite's transaction, after the
// conversations are replaced and after the fns given before it: its
// writes commit with them or not at all. Text an edit replaces is named
// with Erases.
func (w *Rewrite) Catalog(fn func(*CatalogTx) error) { w.catalog = append(w.catalog, fn) }

// Erases says a catalog edit replaces text that must not stay in the
// database's free pages: a conversation's rows (harness and sid: a
// project tag), or, both empty, rows of no conversation (the audit log).
// Commit journals it, and erases the database once the edit is in.
func (w *Rewrite) Erases(harness, sid string) {
	w.erased = append(w.erased, eraseItem{harness: harness, sid: sid})
}

// Report has Commit tell the memory's observer of c (ObserveChoices)
// just before the rewrite goes in (see Commit).
func (w *Rewrite) Report(c Choice) { w.choices = append(w.choices, c) }

// Discard drops what was staged; nothing is changed.
func (w *Rewrite) Discard() {
	if w.batch != nil {
		w.batch.Discard()
	}
}

// Commit reports its choices, then commits what was gathered
// (commitRewrite). With no conversation and nothing erased, the catalog
// edits alone are one transaction.
//
// A rewrite's choices are a scrub's redactions, and they are reported
// first so that sync's journal holds them before any reader can see the
// redacted copy: a sync pass that read the memory after the commit and
// the journals before the entry took the folder's unredacted copy (more
// bytes, the same turns) back in as the fuller one (TestSyncthingScrubTravels,
// once under load). An entry whose rewrite then fails only redacts, at the
// next pass, what the person asked to scrub.
func (w *Rewrite) Commit(ctx context.Context) error {
	for _, c := range w.choices {
		w.m.reported(ctx, c, nil)
	}
	edit := func(tx *sql.Tx) error {
		c := &CatalogTx{tx: tx}
		for _, fn := range w.catalog {
			if err := fn(c); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	if w.batch == nil && len(w.erased) == 0 {
		if len(w.catalog) == 0 {
			return nil
		}
		err = w.m.withTx(ctx, edit)
	} else {
		err = w.m.commitRewrite(ctx, w.batch, w.olds, w.erased, edit)
	}
	return err
}

// commitRewrite commits the new versions of the conversations and the
// catalog edits (edit) in one transaction, then overwrites the replaced
// files' old bytes and erases the database's. It is an erase job (see the
// erase journal): what it rewrites is journalled first, and the hard links
// that keep the old files' blocks reachable live in the job's folder, so a
// rewrite killed at any step is finished by the next open, import,
// reindex, forget or rewrite — the old bytes overwritten, the database
// erased — and, being one transaction, is either all applied or not at
// all. Killed after its transaction, before the rename, the dead batch's
// committed files are put in place first (recoverStaging). A killed scrub
// used to keep its links in .staging/scrub-old-* for good, the unredacted
// text with them.
func (m *Memory) commitRewrite(ctx context.Context, batch *Batch, olds []sessionRef, erased []eraseItem, edit func(*sql.Tx) error) error {
	var items []eraseItem
	for _, r := range olds {
		items = append(items, eraseItem{harness: r.harness, sid: r.sid, path: r.path})
	}
	items = append(items, erased...)
	job, err := m.beginErase(ctx, eraseScrub, items)
	if err != nil {
		if batch != nil {
			batch.Discard()
		}
		return fmt.Errorf("rewrite (nothing was changed): %w", err)
	}
	jctx := withJob(ctx, job)
	// Hard links keep the old files' inodes reachable after the batch
	// renames the new files over them, so their blocks can be overwritten.
	var links []string
	for _, ref := range olds {
		if ref.path == "" {
			continue // not stored any more: no old file
		}
		l, err := m.keepOld(jctx, ref.path)
		if os.IsNotExist(err) {
			continue // no old bytes to overwrite
		}
		if err != nil {
			if batch != nil {
				batch.Discard()
			}
			job.cancel(ctx)
			return fmt.Errorf("rewrite (nothing was changed): keep %s to overwrite: %w", ref.path, err)
		}
		links = append(links, l)
	}
	killPoint("scrub-linked")
	if batch != nil {
		// commitWhole: one transaction, the catalog edits in it.
		batch.whole, batch.inTx = true, func(_ context.Context, tx *sql.Tx) error { return edit(tx) }
		_, err = batch.Commit(ctx, nil)
	} else {
		err = m.withTx(ctx, edit)
	}
	killPoint("scrub-committed")
	// Overwritten whether or not the commit went in: a link to a file
	// the commit did not replace is only unlinked (shredKept).
	for _, l := range links {
		m.shredKept(l)
	}
	if err != nil {
		job.drop() // its rows stay: the next open erases whatever went in
		return fmt.Errorf("rewrite: %w", err)
	}
	killPoint("scrub-shredded")
	if _, err := m.erase(ctx); err != nil {
		job.drop()
		return fmt.Errorf("rewrite: erase old text: %w", err)
	}
	killPoint("scrub-erased")
	if err := job.done(ctx); err != nil {
		return fmt.Errorf("rewrite: %w", err)
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
