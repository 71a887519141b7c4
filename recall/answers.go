package recall

import (
	"strings"

	"github.com/ireneo-app/ireneo/memory"
)

// From a matching question to its answer. In a conversation the turn that
// matches a question best is often a question itself ("what kind of
// programs are they making?"), and its answer is the next turn of the other
// speaker, which shares few of its words and ranks far below. When the
// first hit asks something, that answer comes right after it, ranked with
// it (Tuning.AnswerFollows): its place is the question's.

// askMaxBytes bounds a turn that counts as a question: a long reply that
// ends by offering more ("want me to add the links?") asks nothing.
const askMaxBytes = 1000

// asks reports whether a shown turn asks something: a short turn with a
// question mark in what it says.
func asks(st *memory.ShownTurn) bool {
	n := 0
	for _, ch := range st.Chunks {
		if !ch.Searched {
			continue
		}
		n += len(ch.Body)
		if n > askMaxBytes {
			return false
		}
	}
	for _, ch := range st.Chunks {
		if ch.Searched && strings.Contains(ch.Body, "?") {
			return true
		}
	}
	return false
}

// withAnswer puts the answer of ranked's first hit right after it when the
// first hit asks something and the snapshot found its reply (moving it up
// if it was further down), the list keeping its length.
func withAnswer(ranked []candidate, shown map[memory.TurnKey]*memory.ShownTurn) []candidate {
	q := ranked[0]
	st := shown[q.turn()]
	if st == nil || st.Reply == nil || !asks(st) {
		return ranked
	}
	reply := memory.TurnKey{Sess: q.sess, Seq: st.ReplySeq}
	if len(ranked) > 1 && ranked[1].turn() == reply {
		return ranked
	}
	shown[reply] = st.Reply
	out := make([]candidate, 0, len(ranked)+1)
	out = append(out, q, candidate{sess: q.sess, seq: reply.Seq, role: st.Reply.Role, ts: st.Reply.TS, score: q.score})
	for _, c := range ranked[1:] {
		if c.turn() != reply {
			out = append(out, c)
		}
	}
	return out[:len(ranked)]
}
