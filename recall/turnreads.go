package recall

import (
	"context"
	"database/sql"
	"strings"

	"github.com/ireneo-app/ireneo/indexdoc"
	"github.com/ireneo-app/ireneo/memory"
)

// What the snapshot reads of its candidate turns beyond their scores, when
// the run's stages ask (snapshotQuery): their searched text, their chunk
// counts, their previews, and the turns around them.

// keptTurnTexts is turnTexts through tc, which keeps them for rt's
// generation: the candidates a question shares with earlier ones are not
// read again (on the load bench, where agents ask again, reading them was
// a tenth of a call's CPU).
func keptTurnTexts(ctx context.Context, rt *memory.ReadTx, tc *genMap[textKey, string], turns []memory.TurnKey, limit int) (map[memory.TurnKey]string, error) {
	gen := rt.Gen()
	keys := make([]textKey, len(turns))
	for i, k := range turns {
		keys[i] = textKey{doc: k.Doc(), limit: limit}
	}
	out := make(map[memory.TurnKey]string, len(turns))
	tc.lookup(gen, keys, func(i int, t string) { out[turns[i]] = t })
	if len(out) == len(turns) {
		return out, nil
	}
	var need []memory.TurnKey
	for _, k := range turns {
		if _, ok := out[k]; !ok {
			need = append(need, k)
		}
	}
	read, err := turnTexts(ctx, rt, need, limit)
	if err != nil {
		return nil, err
	}
	kept := make(map[textKey]string, len(need))
	for _, k := range need {
		t := read[k] // "" for a turn with no searched text: kept too
		out[k] = t
		kept[textKey{doc: k.Doc(), limit: limit}] = t
	}
	tc.add(gen, textCacheBytes, kept, func(t string) int { return len(t) })
	return out, nil
}

// turnTexts reads the searched text of turns, at most limit bytes of each.
func turnTexts(ctx context.Context, q memory.Querier, turns []memory.TurnKey, limit int) (map[memory.TurnKey]string, error) {
	out := make(map[memory.TurnKey]string, len(turns))
	if len(turns) == 0 {
		return out, nil
	}
	set, args := memory.TurnSet(turns)
	return out, memory.EachRow(ctx, q, `SELECT sess, seq, body FROM chunks WHERE searched AND (sess, seq) IN (`+set+`) ORDER BY sess, seq, block, part`, args, func(rows *sql.Rows) error {
		var k memory.TurnKey
		var body string
		if err := rows.Scan(&k.Sess, &k.Seq, &body); err != nil {
			return err
		}
		if t := out[k]; len(t) < limit {
			if t != "" {
				t += "\n\n"
			}
			if len(t)+len(body) > limit {
				body = body[:max(0, limit-len(t))]
			}
			out[k] = t + body
		}
		return nil
	})
}

// turnChunkCounts says how many searched chunks each turn was cut into.
func turnChunkCounts(ctx context.Context, q memory.Querier, turns []memory.TurnKey) (map[memory.TurnKey]int, error) {
	n := map[memory.TurnKey]int{}
	for _, k := range turns {
		n[k] = 0
	}
	if len(turns) == 0 {
		return n, nil
	}
	set, args := memory.TurnSet(turns)
	return n, memory.EachRow(ctx, q, `SELECT sess, seq, count(*) FROM chunks WHERE searched AND (sess, seq) IN (`+set+`) GROUP BY sess, seq`, args, func(rows *sql.Rows) error {
		var k memory.TurnKey
		var c int
		err := rows.Scan(&k.Sess, &k.Seq, &c)
		n[k] = c
		return err
	})
}

// readAround reads the searched chunk bodies, in order, of the turns up to
// n before and after each given turn in its conversation (the turn itself
// left out).
func readAround(ctx context.Context, q memory.Querier, turns []memory.TurnKey, n int) (map[memory.TurnKey][]string, error) {
	out := map[memory.TurnKey][]string{}
	if len(turns) == 0 {
		return out, nil
	}
	var where []string
	var args []any
	for _, k := range turns {
		where = append(where, "(c.sess = ? AND c.seq BETWEEN ? AND ? AND c.seq != ?)")
		args = append(args, k.Sess, k.Seq-n, k.Seq+n, k.Seq)
	}
	return out, memory.EachRow(ctx, q, `SELECT c.sess, c.seq, c.body FROM chunks c
		WHERE c.searched AND (`+strings.Join(where, " OR ")+`) ORDER BY c.sess, c.seq, c.block, c.part`, args, func(rows *sql.Rows) error {
		var k memory.TurnKey
		var body string
		err := rows.Scan(&k.Sess, &k.Seq, &body)
		out[k] = append(out[k], body)
		return err
	})
}

// turnPreviews fills in each candidate's preview: the stored one, else (a
// turn keeps none of its own text) cut from its first chunks as import did;
// pc keeps them for generation gen.
func turnPreviews(ctx context.Context, q memory.Querier, pc *previewCache, gen int64, cs []snapCandidate) error {
	if len(cs) == 0 {
		return nil
	}
	docs := make([]uint64, len(cs))
	for i, c := range cs {
		docs[i] = memory.TurnKey{Sess: c.Sess, Seq: c.Seq}.Doc()
	}
	found := make([]bool, len(cs))
	pc.lookup(gen, docs, func(i int, p string) { cs[i].Preview, found[i] = p, true })
	var keys []memory.TurnKey
	at := make(map[memory.TurnKey][]int, len(cs))
	for i, c := range cs {
		if !found[i] {
			k := memory.TurnKey{Sess: c.Sess, Seq: c.Seq}
			if len(at[k]) == 0 {
				keys = append(keys, k)
			}
			at[k] = append(at[k], i)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	read := make(map[uint64]string, len(keys))
	set, args := memory.TurnSet(keys)
	err := memory.EachRow(ctx, q, `SELECT t.sess, t.seq, t.preview, `+memory.PreviewSQL+` FROM turns t WHERE (t.sess, t.seq) IN (`+set+`)`, args, func(rows *sql.Rows) error {
		var k memory.TurnKey
		var p, said string
		if err := rows.Scan(&k.Sess, &k.Seq, &p, &said); err != nil {
			return err
		}
		if p == "" {
			p = indexdoc.Preview(said)
		}
		for _, i := range at[k] {
			cs[i].Preview = p
		}
		read[k.Doc()] = p
		return nil
	})
	if err != nil {
		return err
	}
	pc.add(gen, read)
	return nil
}
