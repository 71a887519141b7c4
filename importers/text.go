package importers

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/plumbing"
)

// ChatGPT marks citations and entities in answer text with private-use
// characters: U+E200 opens, U+E202 separates fields, U+E201 closes, as in
// "\ue200filecite\ue202turn0file0\ue201": only references into
// metadata, so they go. Older exports wrote citations as text the person
// saw: "【11†source】" in answers, "【0†Title†example.com】" in browser
// results, holding the source number, page title and domain. Those are
// kept as they are.
const (
	citeOpen  = '\ue200'
	citeClose = '\ue201'
	citeSep   = '\ue202'
)

// stripCitations removes citation markup from ChatGPT text. An entity token
// (entity["vehicle","Kia Optima",…]) keeps its display name, so the text
// still reads as the person saw it.
func stripCitations(s string) string {
	if strings.ContainsRune(s, citeOpen) {
		var b strings.Builder
		b.Grow(len(s))
		for {
			i := strings.IndexRune(s, citeOpen)
			if i < 0 {
				break
			}
			b.WriteString(s[:i])
			rest := s[i+utf8.RuneLen(citeOpen):]
			j := strings.IndexRune(rest, citeClose)
			if j < 0 {
				// Unclosed: keep the rest; its stray markers go below. (Looking
				// for a close again after each open would be quadratic.)
				s = rest
				break
			}
			b.WriteString(entityName(rest[:j]))
			s = rest[j+utf8.RuneLen(citeClose):]
		}
		b.WriteString(s)
		s = b.String()
	}
	s = strings.Map(func(r rune) rune {
		if r >= '\ue200' && r <= '\ue2ff' { // stray markers of the same family
			return -1
		}
		return r
	}, s)
	return s
}

// entityName returns the display name of an entity marker body
// (`entity` SEP `["kind","Name",…]`), and "" for any other marker.
func entityName(body string) string {
	kind, arg, ok := strings.Cut(body, string(citeSep))
	if !ok || kind != "entity" {
		return ""
	}
	var fields []any
	if json.Unmarshal([]byte(arg), &fields) != nil || len(fields) < 2 {
		return ""
	}
	name, _ := fields[1].(string)
	return name
}

// Claude Code's <system-reminder> blocks, and the other harness plumbing,
// are kept as written: the verbatim promise holds for them too. The index
// leaves them out (plumbing.Classify), and titles are made from the rest.

// blank reports whether s holds nothing but white space.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// addBlock appends a block unless its text is blank.
func addBlock(bs []funes.Block, typ, text, tool string) []funes.Block {
	if blank(text) {
		return bs
	}
	return append(bs, funes.Block{Type: typ, Text: text, ToolName: tool})
}

// Title limits for titles made from the first user words.
const (
	titleWords = 12
	titleRunes = 80
)

// untitled is the title of a conversation with no words to name it by.
const untitled = "Untitled conversation"

// titleFrom makes a title from the first words of the first user text, for
// sources that have none; failing that, from the first text of any turn.
func titleFrom(turns []funes.Turn) string {
	for _, userOnly := range []bool{true, false} {
		for _, t := range turns {
			if userOnly && t.Role != funes.RoleUser {
				continue
			}
			for _, b := range t.Blocks {
				if b.Type != funes.BlockText {
					continue
				}
				if said := plumbing.SaidText(t.Role, b.Type, b.ToolName, b.Text); !blank(said) && !isPlaceholder(said) {
					return firstWords(said)
				}
			}
		}
	}
	return untitled
}

// firstWords shortens text to a title: whitespace collapsed, at most
// titleWords words and titleRunes characters.
func firstWords(text string) string {
	words := strings.FieldsFunc(text, unicode.IsSpace)
	cut := len(words) > titleWords
	if cut {
		words = words[:titleWords]
	}
	s := strings.Join(words, " ")
	if utf8.RuneCountInString(s) > titleRunes {
		r := []rune(s)
		s = strings.TrimSpace(string(r[:titleRunes]))
		cut = true
	}
	if cut {
		s += "…"
	}
	return s
}

// placeholderPrefixes start the short texts that stand in for images,
// audio and files (never their bytes).
var placeholderPrefixes = []string{"[image", "[generated image", "[audio", "[video", "[file", "[attachment", "[document"}

// isPlaceholder reports whether text is such a placeholder.
func isPlaceholder(text string) bool {
	if !strings.HasSuffix(text, "]") || strings.Contains(text, "\n") {
		return false
	}
	for _, p := range placeholderPrefixes {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// number assigns Seq 0..n-1 and fills missing turn ids as <session>-<seq>.
func number(s *funes.Session) {
	for i := range s.Turns {
		s.Turns[i].Seq = i
		if s.Turns[i].TurnUUID == "" {
			s.Turns[i].TurnUUID = s.ID + "-" + strconv.Itoa(i)
		}
	}
}
