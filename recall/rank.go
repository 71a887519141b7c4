package recall

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/ireneo-app/ireneo/funes"
)

// rank turns candidates into the top k: BM25 relative to the best match,
// a mild recency lift, a star, one hit per turn, and a penalty for further
// hits from a conversation already represented.
func rank(cands []candidate, k int, tn Tuning, tie float64, speaker string) []candidate {
	if len(cands) == 0 {
		return nil
	}
	if tn.StopAdd > 0 {
		for i := range cands {
			cands[i].bm25 -= tn.StopAdd * cands[i].stopIDF // bm25 is negated
		}
	}
	best := cands[0].bm25
	var newest int64
	for _, c := range cands {
		best = math.Min(best, c.bm25)
		if c.ts > newest {
			newest = c.ts
		}
	}
	// A turn's match: its best chunk's BM25, relative to the best match.
	turnRel := map[[2]int64]float64{}
	turnCov := map[[2]int64]float64{}
	for _, c := range cands {
		turnCov[[2]int64{c.sess, int64(c.seq)}] = math.Max(turnCov[[2]int64{c.sess, int64(c.seq)}], c.cov)
		key := [2]int64{c.sess, int64(c.seq)}
		r := 1.0
		if best < 0 {
			r = c.bm25 / best
		}
		if tn.TurnLenPower > 0 && c.turnChunks > 1 {
			r /= math.Pow(float64(c.turnChunks), tn.TurnLenPower)
		}
		turnRel[key] = math.Max(turnRel[key], r)
	}
	// A conversation's matching turns, best first, for the session signal.
	var sessRels map[int64][]sessRel
	var exOf map[[2]int64][2]int64
	if tn.SessionWeight > 0 {
		if tn.SessionOwnExchange {
			exOf = make(map[[2]int64][2]int64, len(cands))
			for _, c := range cands {
				exOf[[2]int64{c.sess, int64(c.seq)}] = exchangeOf(c)
			}
		}
		sessRels = map[int64][]sessRel{}
		for key, r := range turnRel {
			if tn.SessionCover && tn.CoverPower > 0 {
				r *= math.Pow(turnCov[key], tn.CoverPower)
			}
			sessRels[key[0]] = append(sessRels[key[0]], sessRel{key, r})
		}
		for _, rs := range sessRels {
			// Best first; equal matches by turn, so the sum does not depend on the map's order.
			slices.SortFunc(rs, func(a, b sessRel) int {
				if a.r != b.r {
					return cmp.Compare(b.r, a.r)
				}
				return cmp.Compare(a.key[1], b.key[1])
			})
		}
	}
	seenTurn := map[[2]int64]bool{}
	// A person's turns favoured (FirstPerson): what each scored before,
	// so a reply that matched better than the message it answers keeps
	// its own place ("how did I fix the flaky test?", the fix in the
	// reply) rather than the discount of a shown exchange.
	boosted := speaker == funes.RoleUser && tn.SpeakerWeight > 0
	var userRaw map[[2]int64]float64
	if boosted {
		userRaw = map[[2]int64]float64{}
	}
	pool := make([]candidate, 0, len(cands))
	for _, c := range cands {
		key := [2]int64{c.sess, int64(c.seq)}
		if seenTurn[key] {
			continue // a turn's best chunk speaks for it
		}
		seenTurn[key] = true
		c.rel = turnRel[key]
		if tn.CtxWeight > 0 {
			// The turns around it that matched too: an answer is found
			// with the question that led to it.
			var window float64
			for d := -tn.CtxTurns; d <= tn.CtxTurns; d++ {
				if d != 0 {
					window += turnRel[[2]int64{c.sess, int64(c.seq + d)}]
				}
			}
			c.rel = (c.rel + tn.CtxWeight*window) / (1 + tn.CtxWeight)
		}
		if tn.SessionWeight > 0 {
			// The conversation's other matching turns, the best first.
			var others float64
			n := 0
			for _, o := range sessRels[c.sess] {
				if o.key == key || exOf != nil && exOf[o.key] == exOf[key] {
					continue // the turn itself, and with SessionOwnExchange its exchange
				}
				if n >= max(tn.SessionTurns, 1) {
					break
				}
				others += o.r
				n++
			}
			c.rel = (c.rel + tn.SessionWeight*others) / (1 + tn.SessionWeight)
		}
		if tn.HalfLifeDays > 0 && c.ts > 0 {
			age := float64(newest-c.ts) / 86400
			c.rec = math.Exp2(-age / tn.HalfLifeDays)
		}
		c.score = c.rel * (1 + tn.RecencyWeight*c.rec)
		if tn.CoverPower > 0 {
			c.score *= math.Pow(c.cov, tn.CoverPower)
		}
		c.score *= 1 + tn.StopWeight*c.stopCov
		if c.starred {
			c.score *= 1 + tn.StarWeight
		}
		if c.echo {
			c.score *= tn.Echo
		}
		c.score *= 1 + tn.IDHeld*c.idShare
		c.score *= 1 + tn.WhenWeight*c.when
		if c.inSpan {
			c.score *= 1 + tn.SpanWeight
		}
		if boosted && c.role == funes.RoleUser {
			userRaw[exchangeOf(c)] = c.score
		}
		if speaker != "" && c.role == speaker {
			c.score *= 1 + tn.SpeakerWeight
		}
		pool = append(pool, c)
	}
	// slices' stable sort is sort.SliceStable's algorithm without its
	// reflection: the same order, at a third of rank's cost (BenchmarkPresent).
	slices.SortStableFunc(pool, func(a, b candidate) int {
		if a.score > b.score {
			return -1
		}
		if b.score > a.score {
			return 1
		}
		return 0
	})
	if tie != 0 {
		newestFirstAmongTies(pool, tie)
	}
	if tn.FoldCopies {
		pool = foldCopies(pool)
	}
	if tn.OneHitPerExchange {
		pool = onePerExchange(pool)
	}
	if tn.SameSession <= 0 || tn.SameSession >= 1 {
		return pool[:min(k, len(pool))]
	}
	// Greedy pick with a penalty that grows with each hit a conversation has.
	perSess := map[int64]int{}
	exchanges := map[[2]int64]bool{}
	var out []candidate
	taken := make([]bool, len(pool))
	for len(out) < k {
		bi, bs := -1, -1.0
		for i, c := range pool {
			if taken[i] {
				continue
			}
			s := c.score * math.Pow(tn.SameSession, float64(perSess[c.sess]))
			if tn.SameExchange > 0 && tn.SameExchange < 1 && exchanges[exchangeOf(c)] {
				if !boosted || c.role == funes.RoleUser || c.score <= userRaw[exchangeOf(c)] {
					s *= tn.SameExchange
				}
			}
			if s > bs {
				bi, bs = i, s
			}
		}
		if bi < 0 {
			break
		}
		if boosted && tn.OwnTurn > 0 && pool[bi].role != funes.RoleUser {
			if u := ownTurn(pool, taken, bi, tn.OwnTurn); u >= 0 {
				bi = u
			}
		}
		taken[bi] = true
		perSess[pool[bi].sess]++
		exchanges[exchangeOf(pool[bi])] = true
		pool[bi].score = bs
		out = append(out, pool[bi])
		if tn.GroupTurns > 1 && perSess[pool[bi].sess] == 1 {
			out = groupCompanions(out, pool, taken, perSess, bi, k, tn)
		}
	}
	return out
}

// ownTurn finds, for the reply pool[r], the person's message it answers
// among the untaken, covering at least minCov of the question; -1 if none.
func ownTurn(pool []candidate, taken []bool, r int, minCov float64) int {
	ex := exchangeOf(pool[r])
	for i, c := range pool {
		if !taken[i] && c.role == funes.RoleUser && exchangeOf(c) == ex && c.cov >= minCov {
			return i
		}
	}
	return -1
}

// groupCompanions follows a conversation's first hit with its next best
// turns that score nearly as well (GroupShare of it, up to GroupTurns in
// all), so the turns that answer together are shown, and counted, together
// rather than pushed below other conversations by the diversity discount.
// pool is sorted best first.
func groupCompanions(out, pool []candidate, taken []bool, perSess map[int64]int, first, k int, tn Tuning) []candidate {
	lead := pool[first]
	for i := range pool {
		if len(out) >= k || perSess[lead.sess] >= tn.GroupTurns {
			break
		}
		c := pool[i]
		if c.score < tn.GroupShare*lead.score {
			break // sorted: no later turn scores more
		}
		if taken[i] || c.sess != lead.sess {
			continue
		}
		taken[i] = true
		perSess[c.sess]++
		out = append(out, c)
	}
	return out
}

// newestFirstAmongTies moves the chunks that cover the query as fully as the
// top one, and score at least share of it, to the front, newest first: they
// say the same thing, and the latest saying is the one that holds. A
// negative share orders them oldest first ("the first time").
func newestFirstAmongTies(pool []candidate, share float64) {
	if len(pool) < 2 {
		return
	}
	oldest := share < 0
	share = math.Abs(share)
	top := pool[0]
	var ties, rest []candidate
	for _, c := range pool {
		if c.cov >= top.cov-1e-9 && c.score >= share*top.score {
			ties = append(ties, c)
		} else {
			rest = append(rest, c)
		}
	}
	if len(ties) < 2 {
		return
	}
	sort.SliceStable(ties, func(i, j int) bool {
		if oldest {
			return ties[i].ts < ties[j].ts
		}
		return ties[i].ts > ties[j].ts
	})
	// A tie keeps the top score so later re-ranking (diversity) keeps the order.
	for i := range ties {
		ties[i].score = top.score * (1 - 1e-6*float64(i))
	}
	copy(pool, ties)
	copy(pool[len(ties):], rest)
}

// onePerExchange keeps, of a person's message and the assistant's reply to
// it, only the better-scoring one: the hit shows the other as its
// neighbour, so the second would spend a place on the same exchange. pool
// is sorted best first and stays so.
func onePerExchange(pool []candidate) []candidate {
	seen := map[[2]int64]bool{}
	out := pool[:0]
	for _, c := range pool {
		key := exchangeOf(c)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, c)
	}
	return out
}

// exchangeOf names the exchange a turn belongs to: a person's message, or
// the turn before a reply.
func exchangeOf(c candidate) [2]int64 {
	ex := int64(c.seq)
	if c.role != funes.RoleUser {
		ex-- // a reply belongs to the message before it
	}
	return [2]int64{c.sess, ex}
}

// foldCopies keeps, of turns in several conversations that say the same
// (by their whole preview), the best-scoring one, counting the others in
// its copies. pool is sorted best first and stays so.
func foldCopies(pool []candidate) []candidate {
	first := map[string]int{} // copy key → index in out
	out := pool[:0]
	for _, c := range pool {
		if k := copyKey(c.preview); k != "" {
			if at, ok := first[k]; ok && out[at].sess != c.sess {
				out[at].copies++
				continue
			}
			first[k] = len(out)
		}
		out = append(out, c)
	}
	return out
}

// sessRel is one of a conversation's matching turns, for the session signal.
type sessRel struct {
	key [2]int64
	r   float64
}
