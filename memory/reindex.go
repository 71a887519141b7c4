package memory

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/indexdoc"
)

// ReindexReport says what a reindex rebuilt.
type ReindexReport struct {
	Sessions int `json:"sessions"`
	Files    int `json:"files"`
	// Erased counts files of forgotten conversations it found in src/ and
	// overwrote and removed (a forget killed before it shredded the file,
	// in a build before the erase journal).
	Erased int      `json:"erased_forgotten,omitempty"`
	Failed []string `json:"failed,omitempty"` // "path: reason"
}

// Reindex rebuilds the search index from the files under src/ and keeps the
// catalog (tags, stars, tombstones, tokens, audit).
func (m *Memory) Reindex(ctx context.Context, progress func(done, total int)) (ReindexReport, error) {
	var rep ReindexReport
	if err := m.finishErases(ctx); err != nil {
		return rep, fmt.Errorf("reindex: %w", err)
	}
	files, err := m.srcFiles()
	if err != nil {
		return rep, fmt.Errorf("reindex: %w", err)
	}
	rep.Files = len(files)
	err = m.withTx(ctx, func(tx *sql.Tx) error {
		qs := []string{`DELETE FROM chunks`, `DELETE FROM turns`, `DELETE FROM sessions`}
		for _, t := range engine.Tables {
			qs = append(qs, `DELETE FROM `+t)
		}
		for _, q := range qs {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return m.fillIndex(ctx, tx, files, &rep, progress)
	})
	if err != nil {
		return rep, fmt.Errorf("reindex: %w", err)
	}
	if err := m.pack(ctx); err != nil {
		return rep, fmt.Errorf("reindex: %w", err)
	}
	return rep, nil
}

// srcFiles lists the conversation files under src/.
func (m *Memory) srcFiles() ([]string, error) {
	var files []string
	root := filepath.Join(m.dir, SrcDir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".funes.jsonl") {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// fillIndex indexes files into an empty index within tx, skipping forgotten
// conversations, and overwrites and removes a file that holds only those;
// a file that cannot be read is listed in rep.Failed.
func (m *Memory) fillIndex(ctx context.Context, tx *sql.Tx, files []string, rep *ReindexReport, progress func(done, total int)) error {
	stmts, err := prepareIndexStmts(ctx, tx)
	if err != nil {
		return err
	}
	defer stmts.Close()
	for i, p := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(m.dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			rep.Failed = append(rep.Failed, fmt.Sprintf("%s: %v", rel, err))
			continue
		}
		ss, _, err := funes.ReadSessions(strings.NewReader(string(data)))
		if err != nil {
			rep.Failed = append(rep.Failed, fmt.Sprintf("%s: %v", rel, err))
			continue
		}
		live := 0
		for _, s := range ss {
			var dead int
			tx.QueryRowContext(ctx, `SELECT count(*) FROM tombstones WHERE hash=?`, tombstoneHash(s.Harness, s.ID)).Scan(&dead)
			if dead > 0 {
				continue
			}
			live++
			canon, err := funes.MarshalSession(s)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(canon)
			if err := m.indexSession(ctx, tx, stmts, indexdoc.Prepare(s, canon, hex.EncodeToString(sum[:])), rel); err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			if err := deriveProjects(ctx, tx, s); err != nil {
				return err
			}
			rep.Sessions++
		}
		if live == 0 {
			// Forgotten, all of it: gone for good, under the write lock an
			// import that brings it back takes to lift its tombstone.
			if err := shred(p); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("erase %s, which holds only forgotten conversations: %w", rel, err)
			}
			rep.Erased++
			rep.Files--
		}
		if progress != nil {
			progress(i+1, len(files))
		}
	}
	return stmts.flush()
}
