package memory

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/plumbing"
)

// Ireneo's own answers in an agent's transcript quote other conversations:
// a recall hit carries a passage and its receipt, a get answer a window of
// one conversation, a sessions answer a title per line. Once a conversation
// is forgotten those quotes must go too, or its text stays on disk inside
// other conversations' files. The unit erased is the smallest that holds
// all of the quote: one hit (its previews and title with it), one sessions
// line or entry, one get answer; the agent's own words around the answer,
// the query, the answer's boilerplate and a shell's output after it stay
// verbatim. Where a unit's bounds are unsure (a pasted answer inside a
// quoted text, a CLI block with nothing to say where it ends), only what
// every reading puts in the quote goes by its receipt: never a byte that
// may be another's.

// ForgottenText replaces what was erased.
const ForgottenText = "[forgotten]"

// goneFunc says whether the conversation a receipt names is forgotten;
// source is the harness the answer names, or "" when it names none.
type goneFunc func(source, sid string) bool

// quoteMaxDepth bounds how deep answers wrapped in answers are followed
// (plumbing's classifier looks as deep).
const quoteMaxDepth = 4

// quoteHint is in every answer of Ireneo's that quotes a conversation, in
// each of its forms: blocks without it are passed over unparsed.
const quoteHint = "session_id"

// eraseQuotesInSession erases, in place, every quote of a forgotten
// conversation from the Ireneo answers in s, and returns how many it
// erased. An answer emptied of its receipts keeps the marker, so it is
// still known for Ireneo's and stays out of the index. passages, when
// given, are the forgotten conversations' own texts: any found verbatim
// within the farthest a forgotten hit could reach (a receipt forged inside
// a quoted text can end a hit early) goes too.
func eraseQuotesInSession(s *funes.Session, gone goneFunc, passages []string) int {
	n := 0
	for ti := range s.Turns {
		t := &s.Turns[ti]
		for bi := range t.Blocks {
			b := &t.Blocks[bi]
			whole := b.Type == funes.BlockToolResult && isRecallResult(t.Role, *b)
			if b.Type != funes.BlockToolResult || !mayQuote(b.Text, gone) || !whole && !holdsRecallResult(t.Role, *b) {
				continue
			}
			text, k := eraseQuotes(b.Text, gone, passages, 0)
			if k == 0 {
				continue
			}
			if whole && !isRecallResult(t.Role, funes.Block{Type: b.Type, Text: text, ToolName: b.ToolName}) {
				text = plumbing.ResultMarker + " " + text
			}
			b.Text = text
			n += k
		}
	}
	return n
}

// mayQuote is a quick look, before any parse, for a quote of a forgotten
// conversation in any of the answers' forms.
func mayQuote(text string, gone goneFunc) bool {
	return strings.Contains(text, quoteHint) && mayQuoteGone(text, gone) || cliMayQuoteGone(text, gone)
}

// mayQuoteGone is a quick look, before any parse, at the ids that follow
// "session_id" in text in any of the answers' forms (session_id=, ": ",
// "session_id":", escaped in a JSON string or not): false when none is
// forgotten. An id it cannot read plainly (an escape inside it) counts as
// maybe. Most tool output mentioning session_id is not Ireneo's; without
// this, classifying it was most of an import's cost of this check.
func mayQuoteGone(text string, gone goneFunc) bool {
	last := ""
	for at := 0; ; {
		i := strings.Index(text[at:], quoteHint)
		if i < 0 {
			return false
		}
		j := at + i + len(quoteHint)
		for j < len(text) && strings.IndexByte("\\\"': =\t", text[j]) >= 0 {
			j++
		}
		k := j
		for k < len(text) && strings.IndexByte(" \t\r\n\"\\,}]", text[k]) < 0 && !strings.HasPrefix(text[k:], "·") {
			k++
		}
		if k < len(text) && text[k] == '\\' && (k+1 >= len(text) || (text[k+1] != '"' && text[k+1] != '\\')) {
			return true
		}
		if k > j && text[j:k] != last {
			if gone("", text[j:k]) {
				return true
			}
			last = text[j:k] // a list of one id over and over asks once
		}
		at = max(k, j)
		if at >= len(text) {
			return false
		}
	}
}

// minVerbatimBytes is the shortest passage looked for verbatim: shorter
// ones ("Thanks, that settles it.") are said in many conversations.
const minVerbatimBytes = 40

// jsonInner is s as a JSON string holds it, without the quotes.
func jsonInner(s string, escapeHTML bool) string {
	q := jsonString(s, escapeHTML)
	return q[1 : len(q)-1]
}

// isRecallResult reports whether the whole block is one of Ireneo's
// answers, as the index sees it.
func isRecallResult(role string, b funes.Block) bool {
	sp := plumbing.Classify(role, b.Type, b.ToolName, b.Text)
	return len(sp) == 1 && sp[0].Kind == plumbing.RecallResult
}

// holdsRecallResult reports whether part of the block is one of Ireneo's
// answers: the CLI's, after other commands' output in a shell's.
func holdsRecallResult(role string, b funes.Block) bool {
	for _, sp := range plumbing.Classify(role, b.Type, b.ToolName, b.Text) {
		if sp.Kind == plumbing.RecallResult {
			return true
		}
	}
	return false
}

// eraseQuotes erases the quotes of forgotten conversations from one
// answer, text or structured, and returns the new text and how many quotes
// went. Anything it cannot read is left as it is.
func eraseQuotes(text string, gone goneFunc, passages []string, depth int) (string, int) {
	if depth > quoteMaxDepth || !strings.Contains(text, quoteHint) && !strings.Contains(text, plumbing.ResultMarker) {
		return text, 0
	}
	t := strings.TrimSpace(text)
	if head, _ := answer.ShellOutput(t); head != "" {
		// The CLI run through Codex's exec: the answer behind the envelope.
		at := strings.Index(text, head) + len(head)
		out, n := eraseQuotes(text[at:], gone, passages, depth+1)
		return text[:at] + out, n
	}
	if t != "" && (t[0] == '{' || t[0] == '[') && !strings.HasPrefix(t, plumbing.ResultMarker) {
		if !json.Valid([]byte(t)) {
			if len(cliAnswers(text)) > 1 {
				return eraseCLIQuotes(text, gone, passages) // `cat x.json && ireneo get …`
			}
			return text, 0
		}
		var edits []quoteEdit
		n := walkJSON([]byte(text), 0, gone, passages, depth, &edits)
		if len(edits) == 1 && edits[0].end-edits[0].start == len(t) {
			// The whole answer went (a get's): what is left stays
			// structured, and known for Ireneo's by its marker.
			edits[0].repl = forgottenAnswerJSON
		}
		return applyEdits(text, edits), n
	}
	return eraseTextQuotes(text, gone, passages)
}

// quoteEdit replaces text[start:end] with repl.
type quoteEdit struct {
	start, end int
	repl       string
}

// applyEdits applies edits sorted by start and not overlapping.
func applyEdits(text string, edits []quoteEdit) string {
	if len(edits) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, e := range edits {
		b.WriteString(text[last:e.start])
		b.WriteString(e.repl)
		last = e.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// forgottenJSON is what replaces a structured quote: a string where the
// object was, so the answer stays valid JSON.
var forgottenJSON = strconv.Quote(ForgottenText)

// forgottenAnswerJSON replaces a structured answer that went whole.
var forgottenAnswerJSON = `{"` + plumbing.MarkerField + `":` + strconv.Quote(plumbing.ResultMarker) + `,"text":` + forgottenJSON + `}`

// walkJSON finds the quotes in one JSON value (raw, at offset base of the
// text) and adds their edits, in order; it returns how many it found.
// Offsets come from the decoder, so the bytes around an edit are the
// file's own.
func walkJSON(raw []byte, base int, gone goneFunc, passages []string, depth int, edits *[]quoteEdit) int {
	start := 0
	for start < len(raw) && isSpaceByte(raw[start]) {
		start++
	}
	raw, base = bytes.TrimRight(raw[start:], " \t\r\n"), base+start
	if len(raw) == 0 {
		return 0
	}
	switch raw[0] {
	case '{':
		fields, ok := jsonFields(raw)
		if !ok {
			return 0
		}
		if quotesGone(fields, gone) {
			*edits = append(*edits, quoteEdit{base, base + len(raw), forgottenJSON})
			return 1
		}
		n := 0
		for _, f := range fields {
			n += walkJSON(f.raw, base+f.off, gone, passages, depth, edits)
		}
		return n
	case '[':
		dec := json.NewDecoder(bytes.NewReader(raw))
		if _, err := dec.Token(); err != nil {
			return 0
		}
		n := 0
		for dec.More() {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return n
			}
			end := int(dec.InputOffset())
			n += walkJSON(v, base+end-len(v), gone, passages, depth, edits)
		}
		return n
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil || !strings.Contains(s, quoteHint) && !strings.Contains(s, plumbing.ResultMarker) {
			return 0
		}
		out, n := eraseQuotes(s, gone, passages, depth+1)
		if n == 0 {
			return 0
		}
		// Re-encoded as it was written: HTML escaped or not (encoding/json
		// escapes by default; funes files do not).
		html := bytes.Contains(raw, []byte(`\u003c`)) || bytes.Contains(raw, []byte(`\u003e`)) || bytes.Contains(raw, []byte(`\u0026`))
		*edits = append(*edits, quoteEdit{base, base + len(raw), jsonString(out, html)})
		return n
	}
	return 0
}

// jsonField is one member of an object: its value's bytes and their offset
// in the object.
type jsonField struct {
	key string
	raw json.RawMessage
	off int
}

func jsonFields(raw []byte) ([]jsonField, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	var out []jsonField
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := k.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		end := int(dec.InputOffset())
		out = append(out, jsonField{key, v, end - len(v)})
	}
	return out, true
}

// quotesGone reports whether an object is a quote of a forgotten
// conversation: a recall hit or a sessions entry (its own session_id and
// source), or a get answer (its session's).
func quotesGone(fields []jsonField, gone goneFunc) bool {
	var sid, source string
	var session json.RawMessage
	for _, f := range fields {
		switch f.key {
		case "session_id":
			json.Unmarshal(f.raw, &sid)
		case "source":
			json.Unmarshal(f.raw, &source)
		case "session":
			session = f.raw
		}
	}
	if sid != "" {
		return gone(source, sid)
	}
	if len(session) > 0 && session[0] == '{' {
		var brief struct {
			SessionID string `json:"session_id"`
			Source    string `json:"source"`
		}
		if json.Unmarshal(session, &brief) == nil && brief.SessionID != "" {
			return gone(brief.Source, brief.SessionID)
		}
	}
	return false
}

var (
	hitHeader    = regexp.MustCompile(`^\[(\d+)\] `)
	hitReceipt   = regexp.MustCompile(`^receipt: session_id=(\S*) turn_uuid=\S*$`)
	recallTrail  = regexp.MustCompile(`^(To read around a hit, call get with its session_id and turn_uuid\.)? ?(\d+ more matching passage\(s\) did not fit the token budget of \d+: call recall again with a larger token_budget or a narrower query\.)?\n*$`)
	getSession   = regexp.MustCompile(`(?m)^session_id: (\S+) · \d+ turns$`)
	sessionsHead = regexp.MustCompile(`^\d+ conversation\(s\) match; showing \d+ to \d+, newest first\.`)
	sessionLine  = regexp.MustCompile(`^- [^\n]* · session_id (\S+)$`)
)

// eraseTextQuotes erases quotes from an answer's text: recall's hits (the
// MCP server's and the CLI's context block), a get answer whole, sessions'
// lines.
func eraseTextQuotes(text string, gone goneFunc, passages []string) (string, int) {
	body := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), plumbing.ResultMarker))
	if strings.HasPrefix(body, `Conversation "`) {
		m := getSession.FindStringSubmatch(body)
		if m == nil {
			return eraseCLIQuotes(text, gone, passages) // the CLI's get of a conversation so titled
		}
		source := ""
		if q, err := strconv.QuotedPrefix(strings.TrimPrefix(body, "Conversation ")); err == nil {
			rest := strings.TrimPrefix(body, "Conversation "+q+" (")
			source, _, _ = strings.Cut(rest, ",")
		}
		if !gone(source, m[1]) {
			return text, 0
		}
		return plumbing.ResultMarker + " " + ForgottenText + "\n", 1
	}
	if strings.HasPrefix(body, `Past conversations matching "`) {
		return eraseRecallHits(text, gone, passages)
	}
	if !sessionsHead.MatchString(body) {
		return eraseCLIQuotes(text, gone, passages)
	}
	var (
		out strings.Builder
		n   int
	)
	out.Grow(len(text))
	for _, line := range strings.SplitAfter(text, "\n") {
		bare := strings.TrimSuffix(line, "\n")
		if m := sessionLine.FindStringSubmatch(bare); m != nil && gone(sessionSource(bare), m[1]) {
			n++
			out.WriteString("- " + ForgottenText + strings.TrimPrefix(line, bare))
			continue
		}
		out.WriteString(line)
	}
	if n == 0 {
		return text, 0
	}
	return out.String(), n
}

// recallCount reads the number of hits recall's first line announces.
var recallCount = regexp.MustCompile(`^[^\n]*?": (\d+) (?:verbatim )?passage\(s\), best first\.`)

// eraseRecallHits erases the forgotten conversations' hits from recall's
// text answer. A hit's text is verbatim and may hold anything, a pasted
// answer of Ireneo's too, so a header is only taken for a hit's when it
// follows a blank line, has its receipt on the next line and carries the
// number due (hit 1 is the first such; hit k+1 comes after hit k). When
// two lines could begin hit k, neither is sure: that hit is not erased by
// its receipt, since either reading may be a kept conversation's text.
// What goes by receipt is only what every reading puts in the forgotten
// hit: from its header to where the next hit could first begin (recall's
// closing hints, for the last; the CLI's block has none, and a shell may
// print more after it, so there only the hit's first line of text).
// Within the farthest a forgotten hit could reach, the forgotten
// conversations' passages found verbatim go too: that catches what a
// forged receipt or an unsure end left, and nothing of a kept hit's
// outside it.
func eraseRecallHits(text string, gone goneFunc, passages []string) (string, int) {
	lines := strings.SplitAfter(text, "\n")
	off := make([]int, len(lines)+1)
	for i, l := range lines {
		off[i+1] = off[i] + len(l)
	}
	blank := func(i int) bool { return strings.TrimSpace(lines[i]) == "" }
	trail := trailStart(lines)
	want := -1
	if m := recallCount.FindStringSubmatch(strings.TrimPrefix(strings.TrimSpace(text), plumbing.ResultMarker+" ")); m != nil {
		want, _ = strconv.Atoi(m[1])
	}
	cli := strings.Contains(lines[0], " verbatim passage(s), best first.")
	// levels[k-1] are the lines that could begin hit k.
	var levels [][]int
	for k := 1; want < 0 || k <= want; k++ {
		from := 1
		if k > 1 {
			from = levels[k-2][0] + 1
		}
		var at []int
		for i := from; i+1 < trail; i++ {
			if blank(i-1) && startsHit(lines, i, k) {
				at = append(at, i)
				if k == 1 {
					break // hit 1 is the first: nothing comes before it
				}
			}
		}
		if len(at) == 0 {
			break
		}
		levels = append(levels, at)
	}
	var sure, maybe []quoteEdit
	for k, at := range levels {
		farthest := len(lines)
		if k+1 < len(levels) {
			farthest = levels[k+1][len(levels[k+1])-1]
		} else if trail < len(lines) {
			farthest = trail
		}
		for _, i := range at {
			header := strings.TrimSuffix(lines[i], "\n")
			r := hitReceipt.FindStringSubmatch(strings.TrimSuffix(lines[i+1], "\n"))
			if !gone(hitSource(header), r[1]) {
				continue
			}
			maybe = append(maybe, quoteEdit{off[i], off[farthest], ""})
			if len(at) > 1 {
				continue
			}
			end := 0
			switch {
			case k+1 < len(levels):
				end = levels[k+1][0] - 1 // the blank line before the next hit stays
			case trail < len(lines) || !cli:
				end = farthest
				for end > i+2 && blank(end-1) {
					end--
				}
			default:
				end = i + 2
				for end < len(lines) && strings.HasPrefix(lines[end], "  (before) ") {
					end++
				}
				if end < len(lines) && !blank(end) {
					end++ // the hit's text begins on this line
				}
				for end < len(lines) && strings.HasPrefix(lines[end], "  (after) ") {
					end++
				}
			}
			sure = append(sure, quoteEdit{off[i], off[end], hitHeader.FindString(header) + ForgottenText + "\n"})
		}
	}
	edits := sure
	for _, r := range maybe {
		for _, p := range passages {
			if len(p) < minVerbatimBytes {
				continue
			}
			for at := r.start; ; {
				j := strings.Index(text[at:r.end], p)
				if j < 0 {
					break
				}
				edits = append(edits, quoteEdit{at + j, at + j + len(p), ForgottenText})
				at += j + len(p)
			}
		}
	}
	if len(edits) == 0 {
		return text, 0
	}
	sort.Slice(edits, func(a, b int) bool { return edits[a].start < edits[b].start })
	// Overlapping edits become one: the hits' replacements in it, or the
	// mark of a passage. The quotes counted are the hits, or the passages
	// when no hit was sure.
	var (
		merged []quoteEdit
		hits   []int
	)
	for _, e := range edits {
		isHit := e.repl != ForgottenText
		if l := len(merged) - 1; l >= 0 && e.start < merged[l].end {
			merged[l].end = max(merged[l].end, e.end)
			if isHit {
				if hits[l] == 0 {
					merged[l].repl = ""
				}
				merged[l].repl += e.repl
				hits[l]++
			}
			continue
		}
		merged = append(merged, e)
		hits = append(hits, map[bool]int{true: 1}[isHit])
	}
	n := len(sure)
	if n == 0 {
		n = len(merged) // no hit was sure: each passage found is a quote
	}
	return applyEdits(text, merged), n
}

// startsHit reports whether lines[i] is the header of hit number want.
func startsHit(lines []string, i, want int) bool {
	m := hitHeader.FindStringSubmatch(strings.TrimSuffix(lines[i], "\n"))
	return m != nil && m[1] == strconv.Itoa(want) && i+1 < len(lines) && hitReceipt.MatchString(strings.TrimSuffix(lines[i+1], "\n"))
}

// trailStart is the index of the line where recall's closing hints begin
// (the last paragraph, when it is one of them), or len(lines).
func trailStart(lines []string) int {
	end := len(lines)
	for end > 0 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	start := end
	for start > 0 && strings.TrimSpace(lines[start-1]) != "" {
		start--
	}
	if start == 0 || start == end {
		return len(lines)
	}
	if para := strings.Join(lines[start:end], ""); strings.TrimSpace(para) != "" && recallTrail.MatchString(para) {
		return start
	}
	return len(lines)
}

// hitSource is the source a hit's header names: "[1] date · source · …".
func hitSource(header string) string {
	parts := strings.SplitN(header, " · ", 3)
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

// sessionSource is the source a sessions line names: "- date · source · …".
func sessionSource(line string) string { return hitSource(line) }
