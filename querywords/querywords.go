// Package querywords cuts a query's text into the words and identifiers the
// search index holds them as (the engine's analysis decides, so index and
// query agree), and knows which words name no topic: English function and
// question words, and the words asking for the latest state of something.
// Recall's query plan and the searches that are not recall (the
// conversation list's filter, package conversations; the forget audit's
// probe, in memory) both cut queries with it; the latter take their terms
// from SearchTerms. A leaf over engine.
package querywords

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/engine"
)

// MaxQueryRunes caps a recall query; longer input is cut, not refused.
const MaxQueryRunes = 500

// Identifiers finds identifier-like tokens (MT-4471, N-11, P-003, DR-512,
// 3.4%, v1.2.1, foo_bar.go) and returns them normalised as single index
// terms, so that "MT-4471" and "mt4471" typed later meet the same term.
func Identifiers(text string) []string { return engine.Identifiers(text) }

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Words splits text into lowercase runs of letters and digits. A run of a
// script written without spaces (Han, Kana, Hangul, Thai) becomes the
// character bigrams the engine indexes it as (engine.SegmentWord), its
// combining marks kept with it, so each word is one index term.
func Words(text string) []string {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			return words(text)
		}
	}
	return asciiWords(text)
}

// asciiWords is Words of a text of ASCII bytes: the runs of letters and
// digits, lowered, with no rune decoded and no segmenting (no ASCII word
// is segmented). Recall splits each candidate's preview and text into
// words several times: Words was 4.7 % of a recall's CPU, nearly all of
// it texts of ASCII.
func asciiWords(text string) []string {
	lower := text
	for i := 0; i < len(text); i++ {
		if 'A' <= text[i] && text[i] <= 'Z' {
			lower = strings.ToLower(text)
			break
		}
	}
	n := 0
	in := false
	for i := 0; i < len(lower); i++ {
		a := asciiAlnum(lower[i])
		if a && !in {
			n++
		}
		in = a
	}
	ws := make([]string, 0, n) // never nil, as strings.FieldsFunc's
	start := -1
	for i := 0; i < len(lower); i++ {
		switch a := asciiAlnum(lower[i]); {
		case a && start < 0:
			start = i
		case !a && start >= 0:
			ws = append(ws, lower[start:i])
			start = -1
		}
	}
	if start >= 0 {
		ws = append(ws, lower[start:])
	}
	return ws
}

func asciiAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// words is Words of any text.
func words(text string) []string {
	ws := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isAlnum(r) && !unicode.Is(unicode.Mn, r) })
	for i := 0; i < len(ws); i++ {
		if seg := engine.SegmentWord(ws[i]); seg != nil {
			ws = append(ws[:i], append(seg, ws[i+1:]...)...)
			i += len(seg) - 1
		}
	}
	return ws
}

// IsStopword reports whether a lowercase word is an English function word
// or question word (stopwords below): searches leave them out.
func IsStopword(w string) bool { return stopwords[w] }

// IsRecencyWord reports whether a lowercase word asks for the latest state
// of something ("latest", "current", "now").
func IsRecencyWord(w string) bool { return recencyWords[w] }

// recencyWords say the question wants the latest state of something; they
// name nothing to search for.
var recencyWords = map[string]bool{
	"latest": true, "newest": true, "current": true, "currently": true, "recent": true,
	"recently": true, "lately": true, "nowadays": true, "now": true, "today": true, "updated": true,
}

// stopwords are English function words and question words: they carry no
// topic, and in a long question they drown the words that do.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
	before being below between both but by can could did do does doing down during each few for from further had has
	have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself
	no nor not now of off on once only or other our ours ourselves out over own same she should so some such than that
	the their theirs them themselves then there these they this those through to too under until up very was we were
	what when where which while who whom why will with would you your yours yourself yourselves ago also any anyone
	anything did didn doesn don get got let lets like may might must need ok okay please remind recall remember said
	say says tell told thing things us use used using want wanted way we'd what's whats who's whose yes yet ever
	earlier last time previously before again discussed discuss talked talk conversation conversations chat chats
	mentioned mention`) {
		m[w] = true
	}
	return m
}()
