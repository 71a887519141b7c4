package indexdoc

import (
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/o200k"
	"github.com/ireneo-app/ireneo/plumbing"
)

// The index (layout 4 on) is one engine document per turn: its searched
// chunks' text (body), its conversation's title, the identifiers in it
// (ids) and its date as words (date), so "what did we decide in March" can
// match it. A document's id is DocID(sessions.id, seq). Each chunk is
// marked searched or not (plumbing.Classify): an agent's calls to Ireneo
// and their results, and harness plumbing, keep their chunk rows for
// display but reach neither the engine nor any count, so a memory does not
// feed on its own answers.

// Prepared is a session cut into the rows the index needs. Preparing is
// the CPU-heavy part of indexing (chunking, token counting, identifiers),
// so memory runs it on every core while one goroutine writes to SQLite.
type Prepared struct {
	Session *funes.Session
	Data    []byte // its funes jsonl
	Hash    string
	Turns   []Turn
	Chunks  []Chunk
	Tokens  int // the searched chunks' o200k tokens
}

// Turn is a turn's row: TS in Unix seconds (an undated turn takes the time
// of the turn before it), a Preview only for a turn of plumbing alone (any
// other's is cut from its chunks when read), Doc nil when nothing in it is
// searched.
type Turn struct {
	Seq        int
	UUID, Role string
	TS         int64
	Preview    string
	Doc        *engine.Doc
}

// Chunk is a chunk's row: part Part of block Block of turn Seq. Tokens is 0
// for a chunk that is not searched (plumbing counts for nothing).
type Chunk struct {
	Seq, Block, Part int
	BlockType        string
	Tokens           int
	Searched         bool
	Body             string
}

// Prepare cuts a session, whose funes jsonl is data with hash, into turn
// and chunk rows and documents.
func Prepare(s *funes.Session, data []byte, hash string) *Prepared {
	p := &Prepared{Session: s, Data: data, Hash: hash}
	last := s.Started()
	for _, t := range s.Turns {
		ts := t.TS
		if ts.IsZero() {
			ts = last
		} else {
			last = ts
		}
		pt := Turn{Seq: t.Seq, UUID: t.TurnUUID, Role: t.Role, TS: Unix(ts)}
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
				for _, piece := range SplitChunks(text) {
					c := Chunk{Seq: t.Seq, Block: bi, Part: pi, BlockType: blk.Type, Searched: searched, Body: piece}
					pi++
					if searched {
						c.Tokens = o200k.Count(piece)
						p.Tokens += c.Tokens
						body = append(body, piece)
					}
					p.Chunks = append(p.Chunks, c)
				}
			}
		}
		if len(said) == 0 {
			pt.Preview = plumb
		}
		pt.Doc = TurnDoc(body, s.Title, pt.TS)
		p.Turns = append(p.Turns, pt)
	}
	return p
}

// TurnDoc is a turn's engine document, from its searched chunks' text in
// order, its conversation's title and its time as stored (nil when nothing
// in it is searched). A delete builds it again from the stored rows, so it
// reads nothing the rows do not keep.
func TurnDoc(pieces []string, title string, ts int64) *engine.Doc {
	if len(pieces) == 0 {
		return nil
	}
	var ids []string
	seen := map[string]bool{}
	for _, piece := range pieces {
		for _, id := range engine.Identifiers(piece) {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return engine.NewDoc([engine.NumFields]string{
		engine.Body: strings.Join(pieces, "\n\n"), engine.Title: title,
		engine.IDs: strings.Join(ids, " "), engine.Date: dateWords(ts),
	})
}

// dateWords writes a turn's date as words a question may use: "March 2026
// 2026-03-11". An undated turn has none.
func dateWords(ts int64) string {
	if ts == 0 {
		return ""
	}
	return time.Unix(ts, 0).UTC().Format("January 2006 2006-01-02")
}
