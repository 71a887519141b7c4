package plumbing

// Kind says whose words a span of a block holds.
type Kind uint8

const (
	Said         Kind = iota // a person's or an assistant's own words: searched
	RecallCall               // an agent's call to one of Ireneo's tools
	RecallResult             // what Ireneo returned to it
	Harness                  // harness plumbing: reminders, caveats, command envelopes, preambles, hook output, interruptions
)

// Searched reports whether the index searches spans of this kind: only a
// person's or an assistant's own words.
func (k Kind) Searched() bool { return k == Said }

// Label is the short words for a collapsed line of this kind.
func (k Kind) Label() string {
	switch k {
	case RecallCall:
		return "recall call"
	case RecallResult:
		return "recall result"
	case Harness:
		return "harness note"
	}
	return "said"
}

// String is the Label, for messages and tests.
func (k Kind) String() string { return k.Label() }

// Span is a byte range of a block's text, text[Start:End], and whose words
// it holds.
type Span struct {
	Start, End int
	Kind       Kind
}
