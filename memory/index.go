package memory

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/o200k"
	"github.com/ireneo-app/ireneo/plumbing"
)

// previewRunes bounds the turn preview kept for neighbours and lists.
const previewRunes = 320

// The index (layout 4) is one engine document per turn: its searched
// chunks' text (body), its conversation's title, the identifiers in it
// (ids) and its date as words (date), so "what did we decide in March" can
// match it. A document's id is docID(sessions.id, seq). Each chunk is marked
// searched or not (plumbing.Classify): an agent's calls to Ireneo and their
// results, and harness plumbing, keep their chunk rows for display but reach
// neither the engine nor any count, so a memory does not feed on its own
// answers.

// prepared is a session cut into the rows the index needs. Preparing is the
// CPU-heavy part of indexing (chunking, token counting, identifiers), so it
// runs on every core while one goroutine writes to SQLite.
type prepared struct {
	s      *funes.Session
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
	doc        *engine.Doc // nil when nothing in the turn is searched
}

type preparedChunk struct {
	seq, block, part int
	blockType        string
	tokens           int
	searched         bool
	body             string
}

// seqBits is how many low bits of a document id hold the turn's seq.
const seqBits = 20

// docID is the engine document of a turn. A new session row takes the
// largest id in the table plus one (SQLite's rowid), so an import appends
// to the end of every posting list. Ids do not only grow: a re-import of
// the newest session, its old rows deleted first, may get its id back, but
// that id is still above every remaining one.
func docID(sess int64, seq int) uint64 { return uint64(sess)<<seqBits | uint64(seq) }

// docSession and docSeq take a document id apart.
func docSession(doc uint64) int64 { return int64(doc >> seqBits) }
func docSeq(doc uint64) int       { return int(doc & (1<<seqBits - 1)) }

// sessionDocs is the range of a session's document ids.
func sessionDocs(sess int64) (lo, hi uint64) { return docID(sess, 0), docID(sess+1, 0) - 1 }

// prepare cuts a session into turn and chunk rows.
func prepare(s *funes.Session, data []byte, hash string) *prepared {
	p := &prepared{s: s, data: data, hash: hash}
	last := s.Started()
	for _, t := range s.Turns {
		ts := t.TS
		if ts.IsZero() {
			ts = last // an undated turn takes the time of the turn before it
		} else {
			last = ts
		}
		pt := preparedTurn{seq: t.Seq, uuid: t.TurnUUID, role: t.Role, ts: unix(ts)}
		var body, ids, said []string
		seen := map[string]bool{}
		plumb := ""
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
					c := preparedChunk{seq: t.Seq, block: bi, part: pi, blockType: blk.Type, searched: searched, body: piece}
					pi++
					if searched { // plumbing counts for nothing
						c.tokens = o200k.Count(piece)
						p.tokens += c.tokens
						body = append(body, piece)
						for _, id := range identifiers(piece) {
							if !seen[id] {
								seen[id] = true
								ids = append(ids, id)
							}
						}
					}
					p.chunks = append(p.chunks, c)
				}
			}
		}
		pt.preview = preview(strings.Join(said, "\n\n"), previewRunes)
		if pt.preview == "" {
			pt.preview = plumb // a turn of plumbing only reads as what it is
		}
		if len(body) > 0 {
			pt.doc = engine.NewDoc([engine.NumFields]string{
				engine.Body: strings.Join(body, "\n\n"), engine.Title: s.Title,
				engine.IDs: strings.Join(ids, " "), engine.Date: dateWords(ts),
			})
		}
		p.turns = append(p.turns, pt)
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

// indexStmts are the inserts indexing repeats, prepared once per
// transaction, and the engine's writer for it: call flush before commit.
type indexStmts struct {
	turn, chunk *sql.Stmt
	eng         *engine.Writer
}

func prepareIndexStmts(ctx context.Context, tx *sql.Tx) (*indexStmts, error) {
	var st indexStmts
	var err error
	if st.turn, err = tx.PrepareContext(ctx, `INSERT OR REPLACE INTO turns(sess,seq,turn_uuid,role,ts,preview) VALUES(?,?,?,?,?,?)`); err != nil {
		return nil, err
	}
	if st.chunk, err = tx.PrepareContext(ctx, `INSERT INTO chunks(sess,seq,block,part,block_type,tokens,searched,body) VALUES(?,?,?,?,?,?,?,?)`); err != nil {
		return nil, err
	}
	if st.eng, err = engine.NewWriter(ctx, tx); err != nil {
		return nil, err
	}
	return &st, nil
}

// flush writes what the engine buffered; the transaction may commit after.
func (st *indexStmts) flush() error { return st.eng.Flush() }

func (st *indexStmts) Close() {
	for _, s := range []*sql.Stmt{st.turn, st.chunk} {
		if s != nil {
			s.Close()
		}
	}
	if st.eng != nil {
		st.eng.Close()
	}
}

// indexSession replaces a session's index rows within tx.
func (m *Memory) indexSession(ctx context.Context, tx *sql.Tx, st *indexStmts, p *prepared, rel string) error {
	s := p.s
	if err := deleteSessionRows(ctx, tx, st.eng, s.Harness, s.ID); err != nil {
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
		if t.doc != nil && t.seq >= 0 && t.seq < 1<<seqBits {
			if err := st.eng.AddDoc(docID(sess, t.seq), t.doc); err != nil {
				return err
			}
		}
	}
	for _, c := range p.chunks {
		if _, err := st.chunk.ExecContext(ctx, sess, c.seq, c.block, c.part, c.blockType, c.tokens, c.searched, c.body); err != nil {
			return err
		}
	}
	return nil
}

// deleteSessionRows removes a session's index rows (not its catalog rows)
// and its engine documents.
func deleteSessionRows(ctx context.Context, tx *sql.Tx, eng *engine.Writer, harness, id string) error {
	var sess int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM sessions WHERE harness=? AND session_id=?`, harness, id).Scan(&sess)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := eng.DeleteRange(sessionDocs(sess)); err != nil {
		return err
	}
	for _, q := range []string{
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
