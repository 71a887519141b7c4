package answer

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ireneo-app/ireneo/spans"
)

// Erasing a forgotten conversation's quotes from an answer. Ireneo's
// answers in an agent's transcript quote other conversations: a recall hit
// carries a passage and its receipt, a get answer a window of one
// conversation, a sessions answer a title per line. Once a conversation is
// forgotten those quotes must go too, or its text stays on disk inside
// other conversations' files. The unit erased is the smallest that holds
// all of the quote: one hit (its previews and title with it), one sessions
// line or entry, one get answer; the agent's own words around the answer,
// the query, the answer's boilerplate and a shell's output after it stay
// verbatim. Where a unit's bounds are unsure (a pasted answer inside a
// quoted text, a CLI block with nothing to say where it ends), only what
// every reading puts in the quote goes by its receipt: never a byte that
// may be another's.
//
// The readers here find each unit where the renderers put it, by the same
// phrases (phrases.go); each form's golden test renders it, erases from it
// and compares the rest byte for byte.

// Gone says whether the conversation a receipt names is forgotten; source
// is the harness the answer names, or "" when it names none.
type Gone func(source, sessionID string) bool

// quoteHint is in every answer that quotes a conversation, in each of its
// forms but the CLI's text ones: blocks without it are passed over unparsed.
const quoteHint = "session_id"

// MinPassageBytes is the shortest passage Erase looks for verbatim: shorter
// ones ("Thanks, that settles it.") are said in many conversations.
const MinPassageBytes = 40

// Erase erases from text, a tool's result, every quote of a forgotten
// conversation in the answers of Ireneo's it holds, and returns the new
// text and how many quotes went. Anything it cannot read is left as it is.
// An answer emptied of its receipts keeps the marker, so it is still known
// for Ireneo's and stays out of the index. passages, when given, are the
// forgotten conversations' own texts: any found verbatim within the
// farthest a forgotten hit could reach (a receipt forged inside a quoted
// text can end a hit early) goes too.
func Erase(text string, gone Gone, passages []string) (string, int) {
	out, n := erase(text, gone, passages, 0)
	if n > 0 && Is(text) && !Is(out) {
		out = Marker + " " + out
	}
	return out, n
}

// MayQuote is a quick look, before any parse, for a quote of a forgotten
// conversation in any of the answers' forms: false means Erase would find
// none.
func MayQuote(text string, gone Gone) bool {
	return strings.Contains(text, quoteHint) && mayQuoteGone(text, gone) || cliMayQuoteGone(text, gone)
}

// mayQuoteGone is a quick look, before any parse, at the ids that follow
// "session_id" in text in any of the answers' forms (session_id=, ": ",
// "session_id":", escaped in a JSON string or not): false when none is
// forgotten. An id it cannot read plainly (an escape inside it) counts as
// maybe. Most tool output mentioning session_id is not Ireneo's; without
// this, classifying it was most of an import's cost of this check.
func mayQuoteGone(text string, gone Gone) bool {
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

// erase is Erase at a depth of answers wrapped in answers.
func erase(text string, gone Gone, passages []string, depth int) (string, int) {
	if depth > readDepth || !strings.Contains(text, quoteHint) && !strings.Contains(text, Marker) {
		return text, 0
	}
	t := strings.TrimSpace(text)
	if head, _ := ShellOutput(t); head != "" {
		// The CLI run through Codex's exec, or any tool's result in Gemini
		// CLI's envelope: the answer behind it, the envelope's close kept.
		at := strings.Index(text, head) + len(head)
		end := at + envelopeClose(head, text[at:])
		out, n := erase(text[at:end], gone, passages, depth+1)
		return text[:at] + out + text[end:], n
	}
	if t != "" && (t[0] == '{' || t[0] == '[') && !strings.HasPrefix(t, Marker) {
		if !json.Valid([]byte(t)) {
			if len(cliAnswers(text)) > 1 {
				return eraseCLI(text, gone, passages) // `cat x.json && ireneo get …`
			}
			// `ireneo get --json x; go test`: the answer, then the shell's.
			if end := jsonValueEnd(text); end > 0 && end < len(text) {
				if out, n := erase(text[:end], gone, passages, depth+1); n > 0 {
					return out + text[end:], n
				}
			}
			return text, 0
		}
		var edits []spans.Edit
		n := walkJSON([]byte(text), 0, gone, passages, depth, &edits)
		if len(edits) == 1 && edits[0].End-edits[0].Start == len(t) {
			// The whole answer went (a get's): what is left stays
			// structured, and known for Ireneo's by its marker, indented
			// as the CLI's were (so known after other output too).
			edits[0].With = forgottenAnswerJSON
			if strings.HasPrefix(t, "{\n") {
				edits[0].With = forgottenAnswerCLI
			}
		}
		return spans.Replace(text, edits), n
	}
	if !strings.HasPrefix(t, Marker) && !unmarkedText(t) {
		if at := Within(text); at > 0 {
			// An answer after other commands' output in a shell's: the
			// output before it stays.
			out, n := erase(text[at:], gone, passages, depth+1)
			return text[:at] + out, n
		}
	}
	return eraseText(text, gone, passages)
}

// forgottenJSON is what replaces a structured quote: a string where the
// object was, so the answer stays valid JSON.
var forgottenJSON = strconv.Quote(ForgottenText)

// forgottenAnswerJSON replaces a structured answer that went whole;
// forgottenAnswerCLI one the CLI printed, indented.
var (
	forgottenAnswerJSON = `{"` + MarkerField + `":` + strconv.Quote(Marker) + `,"text":` + forgottenJSON + `}`
	forgottenAnswerCLI  = markerJSONLine + Marker + `",` + "\n" + `  "text": ` + forgottenJSON + "\n}"
)

// walkJSON finds the quotes in one JSON value (raw, at offset base of the
// text) and adds their edits, in order; it returns how many it found.
// Offsets come from the decoder, so the bytes around an edit are the
// file's own.
func walkJSON(raw []byte, base int, gone Gone, passages []string, depth int, edits *[]spans.Edit) int {
	start := 0
	for start < len(raw) && isSpace(raw[start]) {
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
			*edits = append(*edits, spans.Edit{Start: base, End: base + len(raw), With: forgottenJSON})
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
		if json.Unmarshal(raw, &s) != nil || !strings.Contains(s, quoteHint) && !strings.Contains(s, Marker) {
			return 0
		}
		out, n := erase(s, gone, passages, depth+1)
		if n == 0 {
			return 0
		}
		// Re-encoded as it was written: HTML escaped or not (encoding/json
		// escapes by default; funes files do not).
		html := bytes.Contains(raw, []byte(`\u003c`)) || bytes.Contains(raw, []byte(`\u003e`)) || bytes.Contains(raw, []byte(`\u0026`))
		*edits = append(*edits, spans.Edit{Start: base, End: base + len(raw), With: jsonString(out, html)})
		return n
	}
	return 0
}

// jsonValueEnd is where the JSON value text begins with ends, or 0.
func jsonValueEnd(text string) int {
	dec := json.NewDecoder(strings.NewReader(text))
	var v json.RawMessage
	if dec.Decode(&v) != nil {
		return 0
	}
	return int(dec.InputOffset())
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// jsonString is s as a JSON string, HTML escaped or not.
func jsonString(s string, escapeHTML bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
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
func quotesGone(fields []jsonField, gone Gone) bool {
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
