package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
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

// seqBits is how many low bits of a document id hold the turn's seq: the
// engine's member bits, so a conversation's turns code compactly.
const seqBits = engine.MemberBits

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
		var body, said []string
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
					}
					p.chunks = append(p.chunks, c)
				}
			}
		}
		if len(said) == 0 {
			// A turn of plumbing only reads as what it is; any other's
			// preview is cut from its chunks when read (previewSQL).
			pt.preview = plumb
		}
		pt.doc = turnDoc(body, s.Title, pt.ts)
		p.turns = append(p.turns, pt)
	}
	return p
}

// turnDoc is a turn's engine document, from its searched chunks' text in
// order, its conversation's title and its time as stored (nil when nothing
// in it is searched). A delete builds it again from the stored rows, so it
// reads nothing the rows do not keep.
func turnDoc(pieces []string, title string, ts int64) *engine.Doc {
	if len(pieces) == 0 {
		return nil
	}
	var ids []string
	seen := map[string]bool{}
	for _, piece := range pieces {
		for _, id := range identifiers(piece) {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return engine.NewDoc([engine.NumFields]string{
		engine.Body: strings.Join(pieces, "\n\n"), engine.Title: title,
		engine.IDs: strings.Join(ids, " "), engine.Date: dateWords(fromUnix(ts)),
	})
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
	if err := deleteSessionRows(ctx, tx, st.eng, s.Harness, s.ID, p); err != nil {
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
// and its engine documents. again, when set, is the session about to be
// indexed in their place: its turns are the engine's first guess at the
// documents it deletes (a grown conversation's old turns are unchanged).
func deleteSessionRows(ctx context.Context, tx *sql.Tx, eng *engine.Writer, harness, id string, again *prepared) error {
	var sess int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM sessions WHERE harness=? AND session_id=?`, harness, id).Scan(&sess)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	lo, hi := sessionDocs(sess)
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
func storedDocs(ctx context.Context, tx *sql.Tx, sess int64, again *prepared) engine.Known {
	var next map[int]*engine.Doc
	if again != nil {
		next = make(map[int]*engine.Doc, len(again.turns))
		for _, t := range again.turns {
			next[t.seq] = t.doc
		}
	}
	var stored map[int]*engine.Doc
	read := false
	return func(doc uint64, try func(*engine.Doc) bool) {
		seq := docSeq(doc)
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
		out[seq] = turnDoc(pieces[seq], title, ts[seq])
	}
	return out, nil
}

// PassageChunk finds where a long turn's passage (Candidate.Passage)
// starts among the turn's chunks (in order, as TurnChunks reads them): the
// chunk's index and the byte offset in it. ok is false for no passage.
func PassageChunk(chunks []Chunk, passage int) (i, off int, ok bool) {
	if passage < 0 {
		return 0, 0, false
	}
	var body strings.Builder
	var starts []int // where each searched chunk starts in the body
	var at []int     // its index in chunks
	for k, c := range chunks {
		if !c.Searched {
			continue
		}
		if body.Len() > 0 {
			body.WriteString("\n\n")
		}
		starts = append(starts, body.Len())
		at = append(at, k)
		body.WriteString(c.Body)
	}
	ps := engine.Passages(body.String())
	if passage >= len(ps) {
		return 0, 0, false
	}
	s := ps[passage].Start
	j := len(starts) - 1
	for j > 0 && starts[j] > s {
		j--
	}
	return at[j], max(0, s-starts[j]), true
}

// previewSQL is, for a turn t with no stored preview, the start of its
// searched text: enough of its first chunks for preview to cut previewRunes
// from (at most 4 bytes a rune).
var previewSQL = fmt.Sprintf(`CASE WHEN t.preview != '' THEN '' ELSE (SELECT substr(group_concat(c.body, ' '), 1, %d) FROM
	(SELECT body FROM chunks c WHERE c.sess = t.sess AND c.seq = t.seq AND c.searched ORDER BY c.block, c.part LIMIT 4) c) END`, 4*previewRunes)

// preview is the first n runes of s on one line: its words joined by one
// space (strings.Fields), cut at the last space of the first n runes when
// that keeps more than half of them, with an ellipsis. One pass that stops
// after n runes: recall cuts one for every candidate it folds or weighs as
// an echo (0.2 of its 1.3 CPU-ms there went to splitting and rejoining).
func preview(s string, n int) string {
	var b strings.Builder
	runes, space := 0, false
	for i, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			if runes == n {
				return cutPreview(b.String())
			}
			b.WriteByte(' ')
			runes++
			space = false
		}
		if runes == n {
			return cutPreview(b.String())
		}
		if b.Len() == 0 {
			b.Grow(min(len(s)-i, 4*n))
		}
		if r == utf8.RuneError {
			_, w := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+w]) // an invalid byte as it was, as Fields keeps it
		} else {
			b.WriteRune(r)
		}
		runes++
	}
	return b.String()
}

// cutPreview ends a preview of more runes than it holds.
func cutPreview(out string) string {
	if !utf8.ValidString(out) {
		out = string([]rune(out)) // as the cut of a []rune did: each invalid byte U+FFFD
	}
	if cut := strings.LastIndexByte(out, ' '); cut > len(out)/2 {
		out = out[:cut]
	}
	return out + "…"
}
