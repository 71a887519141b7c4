package answer

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ireneo-app/ireneo/spans"
)

// Erasing from the text answers: recall's hits (the MCP text and the CLI's
// context block), a get answer whole, sessions' lines (the MCP text's).

// eraseText erases quotes from an answer's text.
func eraseText(text string, gone Gone, passages []string) (string, int) {
	body := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), Marker))
	switch {
	case strings.HasPrefix(body, getHead+`"`):
		source, sid, ok := readGetHeader(body)
		if !ok {
			return eraseCLI(text, gone, passages) // the CLI's get of a conversation so titled
		}
		if !gone(source, sid) {
			return text, 0
		}
		return Marker + " " + ForgottenText + "\n", 1
	case strings.HasPrefix(body, recallHead+`"`):
		return eraseRecallHits(text, gone, passages)
	case isScanText(body):
		return eraseScan(text, gone)
	case !sessionsHeader.MatchString(body):
		return eraseCLI(text, gone, passages)
	}
	return eraseLines(text, gone, func(line string) (string, string, string, bool) {
		source, sid, ok := readSessionLine(line)
		return source, sid, sessionLineHead + ForgottenText, ok
	})
}

// eraseLines replaces each line of text that names a gone conversation
// (read says which, and what stands in its place) and keeps its line end.
func eraseLines(text string, gone Gone, read func(line string) (source, sid, with string, ok bool)) (string, int) {
	var (
		out strings.Builder
		n   int
	)
	out.Grow(len(text))
	for _, line := range strings.SplitAfter(text, "\n") {
		bare := strings.TrimRight(line, "\n")
		if source, sid, with, ok := read(bare); ok && gone(source, sid) {
			n++
			out.WriteString(with + line[len(bare):])
			continue
		}
		out.WriteString(line)
	}
	if n == 0 {
		return text, 0
	}
	return out.String(), n
}

// readGetHeader reads the conversation get's text answer shows from its
// first two lines: `Conversation "title" (source, …)` and
// `session_id: X · N turns`.
func readGetHeader(body string) (source, sid string, ok bool) {
	first, rest, _ := strings.Cut(body, "\n")
	second, _, _ := strings.Cut(rest, "\n")
	after, ok := strings.CutPrefix(second, getSessionID)
	if !ok {
		return "", "", false
	}
	i := strings.LastIndex(after, sep)
	if i <= 0 {
		return "", "", false
	}
	sid, count := after[:i], after[i+len(sep):]
	n := digits(count)
	if n == 0 || count[n:] != getTurnsTail || sid == "" || strings.ContainsAny(sid, notInID) {
		return "", "", false
	}
	if q, err := strconv.QuotedPrefix(strings.TrimPrefix(first, getHead)); err == nil {
		rest := strings.TrimPrefix(first, getHead+q+" (")
		source, _, _ = strings.Cut(rest, ",")
	}
	return source, sid, true
}

// readSessionLine reads a line of sessions' text answer:
// `- day · source · "title" · projects: … · N turns · session_id X`.
func readSessionLine(line string) (source, sid string, ok bool) {
	if !strings.HasPrefix(line, sessionLineHead) {
		return "", "", false
	}
	i := strings.LastIndex(line, sessionLineID)
	if i < 0 {
		return "", "", false
	}
	sid = line[i+len(sessionLineID):]
	if sid == "" || strings.ContainsAny(sid, notInID) {
		return "", "", false
	}
	return namedSource(line), sid, true
}

// namedSource is the source a hit's header or a sessions line names, its
// second part: "[1] date · source · …", "- date · source · …".
func namedSource(line string) string {
	parts := strings.SplitN(line, sep, 3)
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

// readHitNumber reads the number a hit's header begins with: "[n] ".
func readHitNumber(line string) (int, bool) {
	rest, ok := strings.CutPrefix(line, "[")
	n := digits(rest)
	if !ok || n == 0 || !strings.HasPrefix(rest[n:], "] ") {
		return 0, false
	}
	k, err := strconv.Atoi(rest[:n])
	return k, err == nil && strconv.Itoa(k) == rest[:n]
}

// notInID are the characters no id in a text answer holds: white space
// ends it.
const notInID = " \t\n\f\r"

// readReceipt reads a hit's receipt line: "receipt: session_id=S
// turn_uuid=T", neither holding a space.
func readReceipt(line string) (sid string, ok bool) {
	rest, ok := strings.CutPrefix(line, receiptHead)
	if !ok {
		return "", false
	}
	i := strings.Index(rest, receiptTurn)
	if i < 0 || strings.ContainsAny(rest[:i], notInID) || strings.ContainsAny(rest[i+len(receiptTurn):], notInID) {
		return "", false
	}
	return rest[:i], true
}

// isRecallTrail reports whether para is the MCP text's closing hints: the
// hint to read around a hit, the cut count, or both.
func isRecallTrail(para string) bool {
	p := strings.TrimRight(para, "\n")
	p = strings.TrimPrefix(p, readAroundHint)
	p = strings.TrimPrefix(p, " ")
	if p == "" {
		return true
	}
	n := digits(p)
	rest, ok := strings.CutPrefix(p[n:], cutHintMid)
	if n == 0 || !ok {
		return false
	}
	m := digits(rest)
	return m > 0 && rest[m:] == cutHintEnd
}

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
func eraseRecallHits(text string, gone Gone, passages []string) (string, int) {
	lines := strings.SplitAfter(text, "\n")
	off := make([]int, len(lines)+1)
	for i, l := range lines {
		off[i+1] = off[i] + len(l)
	}
	blank := func(i int) bool { return strings.TrimSpace(lines[i]) == "" }
	trail := trailStart(lines)
	head, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	want, cli, ok := readRecallHeader(head)
	if !ok {
		want = -1
	}
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
	var sure, maybe []spans.Edit
	for k, at := range levels {
		farthest := len(lines)
		if k+1 < len(levels) {
			farthest = levels[k+1][len(levels[k+1])-1]
		} else if trail < len(lines) {
			farthest = trail
		}
		for _, i := range at {
			header := strings.TrimSuffix(lines[i], "\n")
			sid, _ := readReceipt(strings.TrimSuffix(lines[i+1], "\n"))
			if !gone(namedSource(header), sid) {
				continue
			}
			maybe = append(maybe, spans.Edit{Start: off[i], End: off[farthest]})
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
				for end < len(lines) && strings.HasPrefix(lines[end], beforeLabel) {
					end++
				}
				if end < len(lines) && !blank(end) {
					end++ // the hit's text begins on this line
				}
				for end < len(lines) && strings.HasPrefix(lines[end], afterLabel) {
					end++
				}
			}
			n, _ := readHitNumber(header)
			sure = append(sure, spans.Edit{Start: off[i], End: off[end], With: "[" + strconv.Itoa(n) + "] " + ForgottenText + "\n"})
		}
	}
	edits := sure
	if cli && len(maybe) > 0 {
		// The CLI's block is printed safe for a terminal: a passage holding
		// control characters is there as Terminal writes it.
		var escaped []string
		for _, p := range passages {
			if q := Terminal(p); q != p {
				escaped = append(escaped, q)
			}
		}
		passages = append(slices.Clip(passages), escaped...)
	}
	for _, r := range maybe {
		for _, p := range passages {
			if len(p) < MinPassageBytes {
				continue
			}
			for at := r.Start; ; {
				j := strings.Index(text[at:r.End], p)
				if j < 0 {
					break
				}
				edits = append(edits, spans.Edit{Start: at + j, End: at + j + len(p), With: ForgottenText})
				at += j + len(p)
			}
			edits = append(edits, shortenedPassages(text[:r.End], r.Start, p)...)
		}
	}
	if len(edits) == 0 {
		return text, 0
	}
	sort.Slice(edits, func(a, b int) bool { return edits[a].Start < edits[b].Start })
	// Overlapping edits become one: the hits' replacements in it, or the
	// mark of a passage. The quotes counted are the hits, or the passages
	// when no hit was sure.
	var (
		merged []spans.Edit
		hits   []int
	)
	for _, e := range edits {
		isHit := e.With != ForgottenText
		if l := len(merged) - 1; l >= 0 && e.Start < merged[l].End {
			merged[l].End = max(merged[l].End, e.End)
			if isHit {
				if hits[l] == 0 {
					merged[l].With = ""
				}
				merged[l].With += e.With
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
	return spans.Replace(text, merged), n
}

// shortenMark ends a passage Shorten cut.
const shortenMark = " …"

// shortenedPassages finds in text[from:] the passage p as a hit shortened
// to fit a budget holds it: a beginning of p of MinPassageBytes or more,
// then Shorten's mark. The last hit of the CLI's block has nothing after
// it to say where it ends, so by its receipt only its first line goes: a
// shortened passage of many lines was left there.
func shortenedPassages(text string, from int, p string) []spans.Edit {
	var out []spans.Edit
	needle := p[:MinPassageBytes]
	for at := from; ; {
		j := strings.Index(text[at:], needle)
		if j < 0 {
			return out
		}
		start := at + j
		n := MinPassageBytes
		for n < len(p) && start+n < len(text) && text[start+n] == p[n] {
			n++
		}
		if n < len(p) && strings.HasPrefix(text[start+n:], shortenMark) {
			out = append(out, spans.Edit{Start: start, End: start + n + len(shortenMark), With: ForgottenText})
		} else if n < len(p) && n > MinPassageBytes && strings.HasPrefix(p[n-1:], " ") && strings.HasPrefix(text[start+n-1:], shortenMark) {
			// Shorten cut at a space, which its mark begins with.
			out = append(out, spans.Edit{Start: start, End: start + n - 1 + len(shortenMark), With: ForgottenText})
		}
		at = start + n
	}
}

// startsHit reports whether lines[i] is the header of hit number want,
// with its receipt on the next line.
func startsHit(lines []string, i, want int) bool {
	n, ok := readHitNumber(strings.TrimSuffix(lines[i], "\n"))
	if !ok || n != want || i+1 >= len(lines) {
		return false
	}
	_, ok = readReceipt(strings.TrimSuffix(lines[i+1], "\n"))
	return ok
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
	if para := strings.Join(lines[start:end], ""); strings.TrimSpace(para) != "" && isRecallTrail(para) {
		return start
	}
	return len(lines)
}
