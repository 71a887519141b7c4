package memory

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"unicode/utf8"
)

// previewRunes bounds the turn preview kept for neighbours and lists.
const previewRunes = 320

// indexSession replaces a session's index rows within tx.
func (m *Memory) indexSession(ctx context.Context, tx *sql.Tx, s *Session, hash, rel string, size int64) error {
	if err := deleteSessionRows(ctx, tx, s.Harness, s.ID); err != nil {
		return err
	}
	started, updated := s.Started(), s.Updated()
	var tokens int
	res, err := tx.ExecContext(ctx, `INSERT INTO sessions(harness,session_id,title,workdir,derived_project,started,updated,turns,tokens,bytes,hash,path,imported)
		VALUES(?,?,?,?,?,?,?,?,0,?,?,?,strftime('%s','now'))`,
		s.Harness, s.ID, s.Title, s.Workdir, s.Project, unix(started), unix(updated), len(s.Turns), size, hash, rel)
	if err != nil {
		return err
	}
	sess, err := res.LastInsertId()
	if err != nil {
		return err
	}
	insTurn, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO turns(sess,seq,turn_uuid,role,ts,preview) VALUES(?,?,?,?,?,?)`)
	if err != nil {
		return err
	}
	defer insTurn.Close()
	insChunk, err := tx.PrepareContext(ctx, `INSERT INTO chunks(sess,seq,block,part,block_type,tokens) VALUES(?,?,?,?,?,?)`)
	if err != nil {
		return err
	}
	defer insChunk.Close()
	insFTS, err := tx.PrepareContext(ctx, `INSERT INTO chunks_fts(rowid,body,title,ids) VALUES(?,?,?,?)`)
	if err != nil {
		return err
	}
	defer insFTS.Close()

	last := started
	for _, t := range s.Turns {
		ts := t.TS
		if ts.IsZero() {
			ts = last // an undated turn takes the time of the turn before it
		} else {
			last = ts
		}
		if _, err := insTurn.ExecContext(ctx, sess, t.Seq, t.TurnUUID, t.Role, unix(ts), preview(t.Text(), previewRunes)); err != nil {
			return err
		}
		for bi, blk := range t.Blocks {
			for pi, piece := range splitChunks(blk.Text) {
				n := CountTokens(piece)
				tokens += n
				r, err := insChunk.ExecContext(ctx, sess, t.Seq, bi, pi, blk.Type, n)
				if err != nil {
					return err
				}
				id, _ := r.LastInsertId()
				if _, err := insFTS.ExecContext(ctx, id, piece, s.Title, strings.Join(identifiers(piece), " ")); err != nil {
					return err
				}
			}
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE sessions SET tokens=? WHERE id=?`, tokens, sess)
	return err
}

// deleteSessionRows removes a session's index rows (not its catalog rows).
func deleteSessionRows(ctx context.Context, tx *sql.Tx, harness, id string) error {
	var sess int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM sessions WHERE harness=? AND session_id=?`, harness, id).Scan(&sess)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE sess=?)`,
		`DELETE FROM chunks WHERE sess=?`,
		`DELETE FROM turns WHERE sess=?`,
		`DELETE FROM sessions WHERE id=?`,
	} {
		if _, err := tx.ExecContext(ctx, q, sess); err != nil {
			return err
		}
	}
	return nil
}

// preview is the first n runes of s on one line.
func preview(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)[:n]
	cut := strings.LastIndexByte(string(rs), ' ')
	out := string(rs)
	if cut > len(out)/2 {
		out = out[:cut]
	}
	return out + "…"
}
