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

// asks reports whether a shown turn asks what the query matched in it: a
// short turn with a question ("…?") that holds at least half of what the
// whole turn holds of the query's terms. A turn that states a fact and then
// asks something else ("for the record: … Why is it slow?") answers itself.
// With loose, any short turn with a question asks: the query asks for the
// other speaker's words ("what did you suggest …?" matched by the
// person's "any ideas for …?"), whose answer is the reply whatever the
// question holds.
func asks(st *shownTurn, terms []weightedTerm, loose bool) bool {
	var text strings.Builder
	for _, ch := range st.Chunks {
		if ch.Searched {
			text.WriteString(ch.Body)
			text.WriteByte('\n')
			if text.Len() > askMaxBytes {
				return false
			}
		}
	}
	whole := coverage(text.String(), terms)
	if whole == 0 {
		return false
	}
	if loose {
		return strings.Contains(text.String(), "?")
	}
	for _, q := range questions(text.String()) {
		if coverage(q, terms) >= whole/2 {
			return true
		}
	}
	return false
}

// questions are the sentences of text that end in a question mark.
func questions(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		switch r {
		case '.', '!', '\n':
			start = i + 1
		case '?':
			out = append(out, text[start:i+1])
			start = i + 1
		}
	}
	return out
}

// withAnswer puts the answer of ranked's first hit right after it when the
// first hit asks something and the snapshot found its reply (moving it up
// if it was further down), the list keeping its length.
func withAnswer(ranked []candidate, shown map[memory.TurnKey]*shownTurn, terms []weightedTerm, speaker string, tn Tuning) []candidate {
	q := ranked[0]
	st := shown[q.turn()]
	loose := tn.AskLoose || speaker != "" && speaker != q.role
	if st == nil || st.Reply == nil || !asks(st, terms, loose) {
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
