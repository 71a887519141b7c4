package answer

import "strings"

// The budget: an answer's pieces are counted as they are sent (in each of
// its forms: the MCP answer's structured content and its text must each fit)
// and added while they fit. No count of the whole: the pieces' counts, with
// a token or two of slack per seam, bound it, and counting is most of the
// cost of an answer.

// seamSlack is the tokens allowed per joined piece, so the sum of pieces
// counted alone never undercounts the whole (a merge across a seam can only
// save tokens, but a separator may cost one).
const seamSlack = 2

// The least room worth filling with a shortened passage: the CLI's context
// block's, and the MCP answers' (each of its two forms is counted).
const (
	cliMinTrim = 48
	mcpMinTrim = 40
)

// costs is a piece's tokens in each form of an answer (one or two).
type costs [2]int

// use is what an answer's forms have spent of a budget.
type use struct {
	used   costs
	forms  int
	budget int
}

func newUse(budget, forms int) use { return use{forms: forms, budget: budget} }

// fits reports whether a piece of cost c fits what is left in every form.
func (u *use) fits(c costs) bool {
	for i := 0; i < u.forms; i++ {
		if u.used[i]+c[i] > u.budget {
			return false
		}
	}
	return true
}

func (u *use) add(c costs) {
	for i := range u.used {
		u.used[i] += c[i]
	}
}

// left is the room the fullest form has left.
func (u *use) left() int { return u.budget - max(u.used[0], u.used[1]) }

// over is how many tokens a piece of cost c overshoots in its worst form.
func (u *use) over(c costs) int {
	return max(u.used[0]+c[0], u.used[1]+c[1]) - u.budget
}

// fitHit is a recall hit of either form, as fitHits shortens it.
type fitHit[H any] interface {
	*H
	dropNeighbours()
	passage() string
	shorten(string) // and mark it shortened
}

// fitHits adds hits in rank order while they fit u. A hit that doesn't fit
// loses its neighbours, then is shortened, if at least minTrim tokens are
// left to be useful; after the first hit that can't fit, the rest are cut.
// cost counts hit number n of the answer.
func fitHits[H any, P fitHit[H]](hits []H, u *use, minTrim int, cost func(n int, h *H) costs) (kept []H, cut int) {
	kept = make([]H, 0, len(hits))
	for i, h := range hits {
		n := len(kept) + 1
		p := P(&h)
		c := cost(n, &h)
		if !u.fits(c) && u.left() >= minTrim {
			p.dropNeighbours()
			c = cost(n, &h)
			for !u.fits(c) && p.passage() != "" {
				text := p.passage()
				next := trimText(text, u.over(c))
				if len(next) >= len(text) {
					// Shorten's " …" replaced all it cut: without this a
					// short text one token over never ends.
					next = ""
				}
				p.shorten(next)
				c = cost(n, &h)
			}
		}
		if !u.fits(c) || p.passage() == "" {
			return kept, len(hits) - i
		}
		kept = append(kept, h)
		u.add(c)
	}
	return kept, 0
}

// trimText cuts text so a piece's larger cost drops by at least over tokens,
// at a word boundary, marked with " …".
func trimText(text string, over int) string {
	keep := len(text) - max(over*4, len(text)/8)
	if keep <= 0 {
		return ""
	}
	return Shorten(text, keep)
}

// Shorten cuts s to at most n bytes at a word boundary and marks the cut
// with " …", as the answers mark a shortened passage.
func Shorten(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	cut := s[:n]
	if i := strings.LastIndexAny(cut, " \n"); i > n/2 {
		cut = cut[:i]
	}
	return cut + " …"
}
