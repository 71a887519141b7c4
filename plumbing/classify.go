package plumbing

import (
	"strings"

	"github.com/ireneo-app/ireneo/answer"
)

// Roles and block types as the funes jsonl writes them (memory's constants;
// repeated here so the package stays a leaf).
const (
	roleAssistant = "assistant"
	blockText     = "text"
	blockToolUse  = "tool_use"
	blockResult   = "tool_result"
)

// Classify cuts one funes block into spans that cover text in order: a
// single Said span when nothing in it is plumbing. toolName is the block's
// tool_name as stored (importers give a result the name of the call it
// answers). Spans never split a UTF-8 sequence: every cut is at an ASCII
// byte.
func Classify(role, blockType, toolName, text string) []Span {
	switch blockType {
	case blockToolUse:
		if isCall(toolName, text) {
			return []Span{{0, len(text), RecallCall}}
		}
		return []Span{{0, len(text), Said}}
	case blockResult:
		if answer.Is(text) {
			return []Span{{0, len(text), RecallResult}}
		}
		if at := answer.Within(text); at > 0 {
			// A shell's output with the CLI's answer after the output of
			// commands before it (`git pull && ireneo get …`): the answer
			// runs from its marker to the end, as no line of the output
			// says where the shell's next command began.
			return append(tidy(harnessSpans(text[:at], false), text[:at]), Span{at, len(text), RecallResult})
		}
		return tidy(harnessSpans(text, false), text)
	case blockText:
		if role == roleAssistant {
			return []Span{{0, len(text), Said}}
		}
		return tidy(harnessSpans(text, true), text)
	}
	// thinking, and types this build does not know: the model's own words.
	return []Span{{0, len(text), Said}}
}

// tidy gives white space between or around plumbing to the plumbing, and
// merges neighbours of one kind, so a block reads as few spans as it can.
func tidy(spans []Span, text string) []Span {
	if len(spans) == 0 {
		return []Span{{0, len(text), Said}}
	}
	for i := range spans {
		s := &spans[i]
		if s.Kind != Said || strings.TrimSpace(text[s.Start:s.End]) != "" {
			continue
		}
		switch {
		case i > 0 && spans[i-1].Kind != Said:
			s.Kind = spans[i-1].Kind
		case i+1 < len(spans) && spans[i+1].Kind != Said:
			s.Kind = spans[i+1].Kind
		}
	}
	out := spans[:0:0]
	for _, s := range spans {
		if s.Start == s.End {
			continue
		}
		if len(out) > 0 && out[len(out)-1].Kind == s.Kind {
			out[len(out)-1].End = s.End
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return []Span{{0, len(text), Said}}
	}
	return out
}

// SaidText returns the text of a block's Said spans, joined by a blank line:
// what the index searches, and what a title or preview is made from.
func SaidText(role, blockType, toolName, text string) string {
	spans := Classify(role, blockType, toolName, text)
	if len(spans) == 1 && spans[0].Kind == Said {
		return text
	}
	var parts []string
	for _, s := range spans {
		if s.Kind == Said {
			if p := strings.TrimSpace(text[s.Start:s.End]); p != "" {
				parts = append(parts, p)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// Plumbing reports whether any of a block is plumbing.
func Plumbing(role, blockType, toolName, text string) bool {
	for _, s := range Classify(role, blockType, toolName, text) {
		if !s.Kind.Searched() {
			return true
		}
	}
	return false
}
