package memory

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/plumbing"
)

// previewRunes bounds the turn preview kept for neighbours and lists.
const previewRunes = 320

// The index (layout 2) adds to each chunk its turn's date as words (the
// date column), so "what did we decide in March" can match it. Layout 3
// marks each chunk searched or not (plumbing.Classify): an agent's calls
// to Ireneo and their results, and harness plumbing, keep their chunk rows
// for display but reach neither FTS5 nor any count, so a memory does not
// feed on its own answers.

// prepared is a session cut into the rows the index needs. Preparing is the
// CPU-heavy part of indexing (chunking, token counting, identifiers), so it
// runs on every core while one goroutine writes to SQLite.
type prepared struct {
	s      *Session
	data   []byte // its funes jsonl
	hash   string
	turns  []preparedTurn
	chunks []preparedChunk
	tokens int
}

type preparedTurn struct {
	seq        int
	uuid, role string
	ts         int64
	preview    string
}

type preparedChunk struct {
	seq, block, part int
	blockType        string
	tokens           int
	body, ids, date  string
	searched         bool
}

// prepare cuts a session into turn and chunk rows.
func prepare(s *Session, data []byte, hash string) *prepared {
	p := &prepared{s: s, data: data, hash: hash}
	last := s.Started()
	for _, t := range s.Turns {
		ts := t.TS
		if ts.IsZero() {
			ts = last // an undated turn takes the time of the turn before it
		} else {
			last = ts
		}
		said := make([]string, 0, len(t.Blocks))
		plumb := ""
		date := dateWords(ts)
		for bi, blk := range t.Blocks {
			pi := 0
			for _, sp := range plumbing.Classify(t.Role, blk.Type, blk.ToolName, blk.Text) {
				text := blk.Text[sp.Start:sp.End]
				searched := sp.Kind.Searched()
				if searched {
					said = append(said, text)
				} else if plumb == "" && strings.TrimSpace(text) != "" {
					plumb = "(" + sp.Kind.Label() + ")"
				}
				for _, piece := range splitChunks(text) {
					c := preparedChunk{seq: t.Seq, block: bi, part: pi, blockType: blk.Type, body: piece, date: date, searched: searched}
					if searched { // plumbing counts for nothing
						c.tokens = CountTokens(piece)
						p.tokens += c.tokens
						c.ids = strings.Join(identifiers(piece), " ")
					}
					p.chunks = append(p.chunks, c)
					pi++
				}
			}
		}
		pv := preview(strings.Join(said, "\n\n"), previewRunes)
		if pv == "" {
			pv = plumb // a turn of plumbing only reads as what it is
		}
		p.turns = append(p.turns, preparedTurn{seq: t.Seq, uuid: t.TurnUUID, role: t.Role, ts: unix(ts), preview: pv})
	}
	return p
}

// dateWords writes a turn's date as words a question may use: "March 2026
// 2026-03-11". An undated turn has none.
func dateWords(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("January 2006 2006-01-02")
}

// indexStmts are the inserts indexing repeats, prepared once per transaction.
type indexStmts struct{ turn, chunk, fts *sql.Stmt }

func prepareIndexStmts(ctx context.Context, tx *sql.Tx) (*indexStmts, error) {
	var st indexStmts
	var err error
	if st.turn, err = tx.PrepareContext(ctx, `INSERT OR REPLACE INTO turns(sess,seq,turn_uuid,role,ts,preview) VALUES(?,?,?,?,?,?)`); err != nil {
		return nil, err
	}
	if st.chunk, err = tx.PrepareContext(ctx, `INSERT INTO chunks(sess,seq,block,part,block_type,tokens,searched) VALUES(?,?,?,?,?,?,?)`); err != nil {
		return nil, err
	}
	if st.fts, err = tx.PrepareContext(ctx, `INSERT INTO chunks_fts(rowid,body,title,ids,date) VALUES(?,?,?,?,?)`); err != nil {
		return nil, err
	}
	return &st, nil
}

func (st *indexStmts) Close() {
	for _, s := range []*sql.Stmt{st.turn, st.chunk, st.fts} {
		if s != nil {
			s.Close()
		}
	}
}

// indexSession replaces a session's index rows within tx.
func (m *Memory) indexSession(ctx context.Context, tx *sql.Tx, st *indexStmts, p *prepared, rel string) error {
	s := p.s
	if err := deleteSessionRows(ctx, tx, s.Harness, s.ID); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO sessions(harness,session_id,title,workdir,derived_project,started,updated,turns,tokens,bytes,hash,path,imported)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,strftime('%s','now'))`,
		s.Harness, s.ID, s.Title, s.Workdir, s.Project, unix(s.Started()), unix(s.Updated()), len(s.Turns), p.tokens, len(p.data), p.hash, rel)
	if err != nil {
		return err
	}
	sess, err := res.LastInsertId()
	if err != nil {
		return err
	}
	for _, t := range p.turns {
		if _, err := st.turn.ExecContext(ctx, sess, t.seq, t.uuid, t.role, t.ts, t.preview); err != nil {
			return err
		}
	}
	for _, c := range p.chunks {
		r, err := st.chunk.ExecContext(ctx, sess, c.seq, c.block, c.part, c.blockType, c.tokens, c.searched)
		if err != nil {
			return err
		}
		if !c.searched {
			continue // kept for display, never searched
		}
		id, _ := r.LastInsertId()
		if _, err := st.fts.ExecContext(ctx, id, c.body, s.Title, c.ids, c.date); err != nil {
			return err
		}
	}
	return nil
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
