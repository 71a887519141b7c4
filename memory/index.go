package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/indexdoc"
)

// The index's rows and documents are package indexdoc's cut of each
// conversation (indexdoc.Prepare); memory stores them, and deletes them by
// the documents indexdoc builds again from the stored rows.

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
func (m *Memory) indexSession(ctx context.Context, tx *sql.Tx, st *indexStmts, p *indexdoc.Prepared, rel string) error {
	s := p.Session
	if err := deleteSessionRows(ctx, tx, st.eng, s.Harness, s.ID, p); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO sessions(harness,session_id,title,workdir,derived_project,started,updated,turns,tokens,bytes,hash,path,imported,times)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,strftime('%s','now'),?)`,
		s.Harness, s.ID, s.Title, s.Workdir, s.Project, indexdoc.Unix(s.Started()), indexdoc.Unix(s.Updated()), len(s.Turns), p.Tokens, len(p.Data), p.Hash, rel, packTurnTimes(p.Turns))
	if err != nil {
		return err
	}
	sess, err := res.LastInsertId()
	if err != nil {
		return err
	}
	for _, t := range p.Turns {
		if _, err := st.turn.ExecContext(ctx, sess, t.Seq, t.UUID, t.Role, t.TS, t.Preview); err != nil {
			return err
		}
		if t.Doc != nil && t.Seq >= 0 && t.Seq < 1<<indexdoc.SeqBits {
			if err := st.eng.AddDoc(indexdoc.DocID(sess, t.Seq), t.Doc); err != nil {
				return err
			}
		}
	}
	for _, c := range p.Chunks {
		if _, err := st.chunk.ExecContext(ctx, sess, c.Seq, c.Block, c.Part, c.BlockType, c.Tokens, c.Searched, c.Body); err != nil {
			return err
		}
	}
	return nil
}

// deleteSessionRows removes a session's index rows (not its catalog rows)
// and its engine documents. again, when set, is the session about to be
// indexed in their place: its turns are the engine's first guess at the
// documents it deletes (a grown conversation's old turns are unchanged).
func deleteSessionRows(ctx context.Context, tx *sql.Tx, eng *engine.Writer, harness, id string, again *indexdoc.Prepared) error {
	var sess int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM sessions WHERE harness=? AND session_id=?`, harness, id).Scan(&sess)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	lo, hi := indexdoc.SessionDocs(sess)
	before := eng.Lost()
	if err := eng.DeleteRange(lo, hi, storedDocs(ctx, tx, sess, again)); err != nil {
		return err
	}
	lostDocs.Add(int64(eng.Lost() - before))
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

// lostDocs counts the documents deletes handed the engine otherwise than
// indexed (it then looked for them in every list): tests hold it at 0.
var lostDocs atomic.Int64

// storedDocs hands the engine a session's documents as they were indexed,
// so a delete takes their postings from their terms' lists: the turn of
// the same seq about to replace it, if any, else the document built again
// from the turn's stored rows, read once for the session when first
// needed. A read that fails leaves the engine to look in every list.
func storedDocs(ctx context.Context, tx *sql.Tx, sess int64, again *indexdoc.Prepared) engine.Known {
	var next map[int]*engine.Doc
	if again != nil {
		next = make(map[int]*engine.Doc, len(again.Turns))
		for _, t := range again.Turns {
			next[t.Seq] = t.Doc
		}
	}
	var stored map[int]*engine.Doc
	read := false
	return func(doc uint64, try func(*engine.Doc) bool) {
		seq := indexdoc.DocSeq(doc)
		if d := next[seq]; d != nil && try(d) {
			return
		}
		if !read {
			read = true
			stored, _ = readStoredDocs(ctx, tx, sess)
		}
		if d := stored[seq]; d != nil {
			try(d)
		}
	}
}

// readStoredDocs builds a session's turn documents from its rows.
func readStoredDocs(ctx context.Context, tx *sql.Tx, sess int64) (map[int]*engine.Doc, error) {
	var title string
	if err := tx.QueryRowContext(ctx, `SELECT title FROM sessions WHERE id=?`, sess).Scan(&title); err != nil {
		return nil, err
	}
	ts := map[int]int64{}
	rows, err := tx.QueryContext(ctx, `SELECT seq, ts FROM turns WHERE sess=?`, sess)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var seq int
		var t int64
		if err := rows.Scan(&seq, &t); err != nil {
			rows.Close()
			return nil, err
		}
		ts[seq] = t
	}
	rows.Close()
	pieces := map[int][]string{}
	var order []int
	rows, err = tx.QueryContext(ctx, `SELECT seq, body FROM chunks WHERE sess=? AND searched ORDER BY seq, block, part`, sess)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int
		var body string
		if err := rows.Scan(&seq, &body); err != nil {
			return nil, err
		}
		if _, ok := pieces[seq]; !ok {
			order = append(order, seq)
		}
		pieces[seq] = append(pieces[seq], body)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make(map[int]*engine.Doc, len(order))
	for _, seq := range order {
		out[seq] = indexdoc.TurnDoc(pieces[seq], title, ts[seq])
	}
	return out, nil
}

// previewSQL is, for a turn t with no stored preview, the start of its
// searched text: enough of its first chunks for indexdoc.Preview to cut its runes
// from (at most 4 bytes a rune); empty for a turn with no searched text either
// (group_concat of no rows is NULL, which a string cannot scan).
var previewSQL = fmt.Sprintf(`CASE WHEN t.preview != '' THEN '' ELSE coalesce((SELECT substr(group_concat(c.body, ' '), 1, %d) FROM
	(SELECT body FROM chunks c WHERE c.sess = t.sess AND c.seq = t.seq AND c.searched ORDER BY c.block, c.part LIMIT 4) c), '') END`, 4*indexdoc.PreviewRunes)
