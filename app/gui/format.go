package gui

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/redact"
)

// timeNow is the clock the date filters use.
var timeNow = time.Now

// sources are the harnesses a person can filter by, with their display names.
var sources = []struct{ id, name string }{
	{funes.HarnessChatGPT, "ChatGPT"},
	{funes.HarnessClaude, "Claude"},
	{funes.HarnessCodex, "Codex"},
	{funes.HarnessClaudeCode, "Claude Code"},
	{funes.HarnessGeminiCLI, "Gemini CLI"},
	{funes.HarnessCursor, "Cursor"},
	{funes.HarnessCopilotCLI, "Copilot CLI"},
	{funes.HarnessOpenCode, "opencode"},
}

const anySource = "All sources"

// sourceName is a harness's display name.
func sourceName(h string) string {
	for _, s := range sources {
		if s.id == h {
			return s.name
		}
	}
	return h
}

// sourcesInWords names every source in a sentence: "ChatGPT, …, and opencode".
func sourcesInWords() string {
	var names []string
	for _, s := range sources {
		names = append(names, s.name)
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// agentsInWords names the sources that are agents (all but the two chat
// exports), as the Import screen lists them: "Codex, …, or opencode".
func agentsInWords() string {
	var names []string
	for _, s := range sources {
		if s.id != funes.HarnessChatGPT && s.id != funes.HarnessClaude {
			names = append(names, s.name)
		}
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// sourceOptions are the options of a source filter.
func sourceOptions() []string {
	out := []string{anySource}
	for _, s := range sources {
		out = append(out, s.name)
	}
	return out
}

// sourceID maps a source filter option back to a harness ("" for any).
func sourceID(option string) string {
	for _, s := range sources {
		if s.name == option {
			return s.id
		}
	}
	return ""
}

// Date range presets for filters.
const (
	anyTime   = "Any time"
	pastWeek  = "Past week"
	pastMonth = "Past month"
	pastYear  = "Past year"
)

var dateOptions = []string{anyTime, pastWeek, pastMonth, pastYear}

// since turns a date preset into the start of its range.
func since(option string, now time.Time) time.Time {
	switch option {
	case pastWeek:
		return now.AddDate(0, 0, -7)
	case pastMonth:
		return now.AddDate(0, -1, 0)
	case pastYear:
		return now.AddDate(-1, 0, 0)
	}
	return time.Time{}
}

// The window's one date format, in local time: 2026-03-01, 2026-03-01
// 09:30, and to the second where calls follow each other (Activity).
const (
	dayFormat    = "2006-01-02"
	minuteFormat = "2006-01-02 15:04"
	secondFormat = "2006-01-02 15:04:05"
)

// stamp formats a time as a local date and minute.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format(minuteFormat)
}

// day formats a time as its local date ("undated" for none).
func day(t time.Time) string {
	if t.IsZero() {
		return memory.Undated
	}
	return t.Local().Format(dayFormat)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func bytesize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// projectsText lists a conversation's projects, or says it has none.
func projectsText(ps []string) string {
	if len(ps) == 0 {
		return "no project"
	}
	return strings.Join(ps, ", ")
}

// queryTerms are the words of a query worth highlighting, longest first so
// a longer term wins where two overlap.
func queryTerms(q string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range strings.FieldsFunc(q, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(`"'()[]{},;!?*`, r)
	}) {
		f = strings.Trim(strings.ToLower(f), ".:")
		seg := engine.SegmentWord(f) // a run of Han, Kana, Hangul or Thai: its bigrams, as the engine finds it
		if len([]rune(f)) < 2 && seg == nil || seen[f] || stopword(f) {
			continue
		}
		seen[f] = true
		out = append(out, f)
		for _, b := range seg {
			if !seen[b] {
				seen[b] = true
				out = append(out, b)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

func stopword(w string) bool {
	switch w {
	case "the", "an", "and", "or", "of", "to", "in", "on", "for", "is", "it", "we", "what", "did", "how", "was", "with", "that", "this", "about":
		return true
	}
	return false
}

// highlight splits text into rich text segments with the query terms
// emphasised, matching case-insensitively.
func highlight(text string, terms []string, style widget.RichTextStyle) []widget.RichTextSegment {
	// Segments flow on one line; a block style would put each on its own.
	style.Inline = true
	lower := strings.ToLower(text)
	// lower may differ in length from text for some scripts; fall back to
	// plain text rather than cut a rune in two.
	if len(lower) != len(text) || len(terms) == 0 {
		return []widget.RichTextSegment{&widget.TextSegment{Text: text, Style: style}}
	}
	hot := highlightStyle(style)
	var segs []widget.RichTextSegment
	last := 0
	tm := newTermMatcher(terms)
	for i := 0; i < len(text); {
		n := tm.at(lower, i)
		if n == 0 {
			i++
			continue
		}
		if i > last {
			segs = append(segs, &widget.TextSegment{Text: text[last:i], Style: style})
		}
		segs = append(segs, &widget.TextSegment{Text: text[i : i+n], Style: hot})
		i += n
		last = i
	}
	if last < len(text) {
		segs = append(segs, &widget.TextSegment{Text: text[last:], Style: style})
	}
	return segs
}

// wordStart says whether term may light up at position i: where a word
// starts, so "cat" does not light up inside "locate"; anywhere in a script
// written without spaces (engine.Segmented), as the engine finds it there.
func wordStart(s string, i int, term string) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	first, _ := utf8.DecodeRuneInString(term)
	return !(unicode.IsLetter(r) || unicode.IsDigit(r)) || engine.Segmented(r) || engine.Segmented(first)
}

// termMatcher finds the query's words in a text, as every screen lights
// them (results, previews, the transcript).
type termMatcher struct {
	terms []string
	stems map[string]bool // of the terms that are plain words
}

func newTermMatcher(terms []string) termMatcher {
	tm := termMatcher{terms: terms, stems: map[string]bool{}}
	for _, t := range terms {
		if plainWord(t) {
			tm.stems[engine.Stem(t)] = true
		}
	}
	return tm
}

// at is the length of the query word lit at byte i of lower (a text in
// lower case), or 0. A word lights up whole when it is a query word or
// shares its stem (deploy: deployed, deploying), not when it only begins
// with one (user: not Username); identifiers and segmented runs match as
// typed.
func (tm termMatcher) at(lower string, i int) int {
	if len(tm.stems) > 0 && wordStart(lower, i, "a") {
		if w := lower[i:wordEnd(lower, i)]; w != "" && tm.stems[engine.Stem(w)] {
			return len(w)
		}
	}
	for _, t := range tm.terms {
		if !plainWord(t) && strings.HasPrefix(lower[i:], t) && wordStart(lower, i, t) {
			return len(t)
		}
	}
	return 0
}

// plainWord says a query term is one word of letters and digits, in a
// script written with spaces: it matches by stem. Identifiers (MT-4471,
// deploy.sh) and segmented runs match as typed.
func plainWord(t string) bool {
	for _, r := range t {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) || engine.Segmented(r) {
			return false
		}
	}
	return t != ""
}

// wordEnd is where the word of letters and digits starting at i ends.
func wordEnd(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) || engine.Segmented(r) {
			break
		}
		i += size
	}
	return i
}

func highlightStyle(s widget.RichTextStyle) widget.RichTextStyle {
	s.TextStyle.Bold = true
	s.ColorName = theme.ColorNamePrimary
	return s
}

// inlineStyle is a text style for segments that flow on one line.
func inlineStyle() widget.RichTextStyle {
	s := widget.RichTextStyleInline
	return s
}

// oneLine flattens whitespace so a passage fits a list row.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// clip shortens s to n runes, with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// newSelect makes a select with an option chosen, without calling
// onChanged for that first choice (the screen is not built yet).
func newSelect(options []string, selected string, onChanged func(string)) *widget.Select {
	s := widget.NewSelect(options, nil)
	s.SetSelected(selected)
	s.OnChanged = onChanged
	return s
}

// newMuted is secondary text (dates, paths, notes): dimmer than a label,
// yet readable in both themes, which a low-importance label is not.
func newMuted(text string) *widget.RichText {
	style := widget.RichTextStyleParagraph
	style.ColorName = theme.ColorNamePlaceHolder
	return widget.NewRichText(&widget.TextSegment{Text: text, Style: style})
}

// setMuted changes the text of a newMuted.
func setMuted(rt *widget.RichText, text string) {
	if ts, ok := rt.Segments[0].(*widget.TextSegment); ok && ts.Text != text {
		ts.Text = text
		rt.Refresh()
	}
}

// maskSecrets replaces every secret in text with its masked preview (first
// and last two characters), for titles and messages the Scrub screen,
// dialogs and logs show. It masks what the finder finds and, since a
// display can afford to be wrong the safe way, any key-shaped word the
// finder's rules miss (a long run of letters, digits and +/=_- mixing
// upper case, lower case and digits, like an AWS secret access key).
func maskSecrets(f redact.SecretFinder, text string) string {
	type span struct{ start, end int }
	var spans []span
	if f != nil {
		f.FindSecrets(text, func(_ string, start, end int) {
			if 0 <= start && start < end && end <= len(text) {
				spans = append(spans, span{start, end})
			}
		})
	}
	for _, loc := range keyShaped.FindAllStringIndex(text, -1) {
		w := text[loc[0]:loc[1]]
		if v := keyValue(w); keyLike(v) {
			spans = append(spans, span{loc[1] - len(v), loc[1]}) // a NAME= before it stays
		}
	}
	if len(spans) == 0 {
		return text
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	// Overlapping spans are one secret, masked once.
	merged := spans[:1]
	for _, s := range spans[1:] {
		if last := &merged[len(merged)-1]; s.start < last.end {
			last.end = max(last.end, s.end)
		} else {
			merged = append(merged, s)
		}
	}
	var b strings.Builder
	last := 0
	for _, s := range merged {
		b.WriteString(text[last:s.start])
		b.WriteString(redact.MaskSecret(text[s.start:s.end]))
		last = s.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// keyShaped finds candidate key-shaped words; keyLike keeps those that
// mix character classes and look random as generated keys do (so
// "TestScrubApplyRemoves", a lower-case commit hash or a path such as
// /home/Ana/Projects2/app stay readable).
var keyShaped = regexp.MustCompile(`[A-Za-z0-9+/=_\-]{20,}`)

func keyLike(w string) bool {
	var upper, lower, digit int
	counts := map[rune]int{}
	for _, r := range w {
		counts[r]++
		switch {
		case 'A' <= r && r <= 'Z':
			upper++
		case 'a' <= r && r <= 'z':
			lower++
		case '0' <= r && r <= '9':
			digit++
		}
	}
	if upper < 2 || lower < 2 || digit < 2 {
		return false
	}
	// Shannon entropy in bits a character: random base64 of 20 or more
	// characters is above 4, words and paths below.
	h, n := 0.0, float64(len(w))
	for _, c := range counts {
		p := float64(c) / n
		h -= p * math.Log2(p)
	}
	return h >= 4
}

// firstStep is what an empty memory's screens say to do first, including
// how to get the exports people most often start with.
const firstStep = "Start on the Import screen: it finds Codex and Claude Code sessions on this computer and export zips in Downloads. " +
	"To get a ChatGPT export, open ChatGPT › Settings › Data controls › Export data; for Claude, claude.ai › Settings › Privacy › Export data. " +
	"Each arrives as a link by email; download the .zip and import it as it is."
