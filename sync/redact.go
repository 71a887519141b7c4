package sync

import (
	"sort"
	"strings"

	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/scrub"
)

// A redaction travels as the place of each secret (a redact entry's
// spans), never the secret. A machine that holds a copy of the
// conversation reads the secret out of its own copy at that place — when
// the text there is as long as the text was — and redacts it wherever that
// copy holds it, with memory's own redaction (RedactSession, ScrubApply),
// through a finder that finds just those secrets.

// minSecret is the shortest secret redacted by its literal text: shorter
// ones would match ordinary words elsewhere in the conversation.
const minSecret = 4

// textAt is the text at a span's place in s, and whether the place exists.
func textAt(s *funes.Session, sp Span) (string, bool) {
	if sp.Turn == "" {
		switch sp.Field {
		case redact.FieldTitle:
			return s.Title, true
		case redact.FieldWorkdir:
			return s.Workdir, true
		case redact.FieldProject:
			return s.Project, true
		}
		return "", false
	}
	for _, t := range s.Turns {
		if t.TurnUUID != sp.Turn {
			continue
		}
		if sp.Block < 0 || sp.Block >= len(t.Blocks) {
			return "", false
		}
		b := t.Blocks[sp.Block]
		switch sp.Field {
		case redact.FieldText:
			return b.Text, true
		case redact.FieldToolName:
			return b.ToolName, true
		}
		return "", false
	}
	return "", false
}

// secretsIn reads the secrets the spans name out of s: rule by secret. A
// place whose text is not as long as it was (another version of the text)
// is searched with the person's finder, for that rule, when it has it;
// else it gives nothing, as a text redacted already does.
func secretsIn(s *funes.Session, spans []Span, finder redact.SecretFinder) map[string]string {
	out := map[string]string{}
	add := func(sec, rule string) {
		if len(sec) >= minSecret && !strings.Contains(sec, "[REDACTED:") {
			out[sec] = rule
		}
	}
	for _, sp := range spans {
		text, ok := textAt(s, sp)
		switch {
		case !ok:
		case len(text) == sp.Len:
			add(text[sp.Start:sp.End], sp.Rule)
		case finder != nil && finder.HasRule(sp.Rule):
			finder.FindSecrets(text, func(rule string, start, end int) {
				if rule == sp.Rule && 0 <= start && start < end && end <= len(text) {
					add(text[start:end], rule)
				}
			})
		}
	}
	return out
}

// redactEntries applies redact entries, in their order, to s in place, and
// returns every secret they named in it (rule by secret) and the counts
// per rule. Each entry's places are read in s as the entries before it
// left it, as they were on the machine that made it; finder (the
// person's, may be nil) looks in a place whose text differs.
func redactEntries(s *funes.Session, entries []Entry, finder redact.SecretFinder) (map[string]string, map[string]int) {
	all := map[string]string{}
	var counts map[string]int
	for _, e := range entries {
		secs := secretsIn(s, e.Spans, finder)
		if len(secs) == 0 {
			continue
		}
		for k, v := range secs {
			all[k] = v
		}
		for rule, n := range redact.RedactSession(literalFinder(secs), s) {
			if counts == nil {
				counts = map[string]int{}
			}
			counts[rule] += n
		}
	}
	return all, counts
}

// literalFinder is a redact.SecretFinder that finds given secrets (rule by
// secret) wherever they are, longest first where two overlap.
type literalFinder map[string]string

func (f literalFinder) FindSecrets(text string, found func(rule string, start, end int)) {
	type match struct {
		start, end int
		rule       string
	}
	var ms []match
	for sec, rule := range f {
		for off := 0; ; {
			i := strings.Index(text[off:], sec)
			if i < 0 {
				break
			}
			ms = append(ms, match{off + i, off + i + len(sec), rule})
			off += i + len(sec)
		}
	}
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].start != ms[j].start {
			return ms[i].start < ms[j].start
		}
		return ms[i].end > ms[j].end
	})
	last := 0
	for _, m := range ms {
		if m.start < last {
			continue
		}
		found(m.rule, m.start, m.end)
		last = m.end
	}
}

func (f literalFinder) HasRule(rule string) bool {
	for _, r := range f {
		if r == rule {
			return true
		}
	}
	return false
}

func (f literalFinder) RedactedText(rule string) string { return scrub.RedactedText(rule) }

// spansOf turns what a scrub redacted in one conversation into a redact
// entry's spans, each with the length its text had before. It reads
// nothing from the memory: by the time the observer hears of a scrub, a
// sync pass may have replaced the conversation (with a copy from the
// folder), and lengths read from that copy would match no copy anywhere.
// Project tags and the audit log stay on this machine.
func spansOf(findings []memory.Redaction) []Span {
	var out []Span
	for _, f := range findings {
		if f.Field == redact.FieldProjectTag || f.Len <= 0 {
			continue
		}
		sp := Span{Turn: f.TurnUUID, Block: f.Block, Field: f.Field, Seq: f.Seq,
			Rule: f.Rule, Start: f.Start, End: f.End, Len: f.Len}
		if sp.Turn == "" {
			sp.Block, sp.Seq = -1, -1
		}
		if sp.check() == nil {
			out = append(out, sp)
		}
	}
	return out
}
