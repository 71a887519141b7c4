package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	ans "github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/o200k"
	"github.com/ireneo-app/ireneo/plumbing"
)

// ToolScan is the exact, unranked search: every place a string or a
// regular expression occurs, in one conversation or a scope.
const ToolScan = "scan"

const scanDescription = `Find every place an exact string — or an RE2 regular expression, with regexp: true — occurs in the person's past conversations, in order, with the line it is on and a receipt (session_id, turn_uuid) for each. Unranked and complete: it reads every conversation in scope, oldest first, and pages with cursor until it says it is complete.

When to use it instead of recall: to confirm a passage word for word before quoting it; to find every occurrence of an identifier, an error code, a file name or a phrase ("every place I wrote ERR_CONN_RESET", "each time we mentioned MT-4471"); to count occurrences; or to search within one conversation (session_id). recall ranks passages by meaning and returns the best few; scan returns all literal matches and nothing else.

Narrow it with session_id, project, source, since and until: a scope of many conversations takes several pages. Matches are in what the person and the assistants said, tool results included; Ireneo's own earlier answers are left out. To read around a match, call get with its session_id and turn_uuid.`

// Scan's bounds.
const (
	maxScanPattern    = 500
	defaultScanLimit  = 50
	maxScanLimit      = 200
	scanLineRunes     = 240 // the most of a match's line shown, around the match
	scanListPage      = 200 // conversations listed at a time
	scanTimeShare     = 2   // a page stops after CallTimeout / scanTimeShare
	scanDefaultBudget = 2000
)

// ScanArgs are scan's arguments.
type ScanArgs struct {
	Pattern     string `json:"pattern" jsonschema:"the exact text to find (case matters unless ignore_case), or an RE2 regular expression with regexp: true (at most 500 characters)"`
	Regexp      bool   `json:"regexp,omitempty" jsonschema:"true: pattern is an RE2 regular expression (Go syntax; no backreferences or lookaround)"`
	IgnoreCase  bool   `json:"ignore_case,omitempty" jsonschema:"true: match regardless of letter case"`
	SessionID   string `json:"session_id,omitempty" jsonschema:"only this conversation (from a recall hit or sessions)"`
	Project     string `json:"project,omitempty" jsonschema:"only this project's conversations, plus untagged ones (see list_projects)"`
	Source      string `json:"source,omitempty" jsonschema:"only one assistant: chatgpt, claude, codex, claude_code, gemini_cli, opencode, cursor or copilot_cli"`
	Since       string `json:"since,omitempty" jsonschema:"only conversations active on or after this date: YYYY-MM-DD or RFC 3339"`
	Until       string `json:"until,omitempty" jsonschema:"only conversations started on or before this date: YYYY-MM-DD or RFC 3339"`
	Limit       intArg `json:"limit,omitempty" jsonschema:"how many matches a page holds at most (default 50, at most 200)"`
	Cursor      string `json:"cursor,omitempty" jsonschema:"from the previous page's answer, to go on where it stopped; keep the pattern and filters the same"`
	TokenBudget intArg `json:"token_budget,omitempty" jsonschema:"how many tokens the whole answer may take (default 2000, at least 300, at most 16000); what does not fit is the next page's"`
}

// ScanOutput is scan's structured answer (package answer's).
type ScanOutput = ans.ScanOutput

func (s *Server) addScanTool() {
	addTool[ScanArgs, ScanOutput](s, ToolScan, "Scan past conversations for exact text", scanDescription, s.scan)
}

// scanPos is where a scan stands: the conversation's place in the scope's
// list (oldest first) and its id, and the turn, block and byte in it.
type scanPos struct {
	conv      int
	sessionID string // source:id of that conversation, to check the list did not shift
	turn      int
	block     int
	at        int
}

func (p scanPos) String() string {
	return fmt.Sprintf("%d/%s/%d/%d/%d", p.conv, p.sessionID, p.turn, p.block, p.at)
}

func parseScanPos(c string) (scanPos, error) {
	parts := strings.Split(c, "/")
	if len(parts) != 5 {
		return scanPos{}, argErrorf("cursor %q is not one scan gave: pass the cursor of the previous page as it was", c)
	}
	var p scanPos
	nums := []*int{&p.conv, nil, &p.turn, &p.block, &p.at}
	for i, n := range nums {
		if n == nil {
			continue
		}
		v, err := strconv.Atoi(parts[i])
		if err != nil || v < 0 {
			return scanPos{}, argErrorf("cursor %q is not one scan gave: pass the cursor of the previous page as it was", c)
		}
		*n = v
	}
	p.sessionID = parts[1]
	return p, nil
}

// scanMatcher finds the pattern's matches in a text.
type scanMatcher func(text string) [][2]int

func newScanMatcher(a ScanArgs) (scanMatcher, error) {
	pat := a.Pattern
	if a.Regexp {
		if a.IgnoreCase {
			pat = "(?i)" + pat
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, argErrorf("pattern is not a valid RE2 regular expression: %v (for exact text, leave regexp out)", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		return func(text string) [][2]int {
			var out [][2]int
			for _, m := range re.FindAllStringIndex(text, -1) {
				if m[1] > m[0] { // an empty match marks no place
					out = append(out, [2]int{m[0], m[1]})
				}
			}
			return out
		}, nil
	}
	if a.IgnoreCase {
		re := regexp.MustCompile("(?i)" + regexp.QuoteMeta(pat))
		return func(text string) [][2]int {
			var out [][2]int
			for _, m := range re.FindAllStringIndex(text, -1) {
				out = append(out, [2]int{m[0], m[1]})
			}
			return out
		}, nil
	}
	return func(text string) [][2]int {
		var out [][2]int
		for from := 0; from <= len(text); {
			i := strings.Index(text[from:], pat)
			if i < 0 {
				break
			}
			out = append(out, [2]int{from + i, from + i + len(pat)})
			from += i + len(pat)
		}
		return out
	}, nil
}

func (s *Server) scan(ctx context.Context, c Caller, a ScanArgs) (answer, error) {
	if a.Pattern == "" {
		return answer{}, argErrorf("pattern is empty: give the exact text to find, or a regular expression with regexp: true")
	}
	if n := utf8.RuneCountInString(a.Pattern); n > maxScanPattern {
		return answer{}, argErrorf("pattern is %d characters; the limit is %d", n, maxScanPattern)
	}
	match, err := newScanMatcher(a)
	if err != nil {
		return answer{}, err
	}
	source, err := sourceArg(a.Source)
	if err != nil {
		return answer{}, err
	}
	since, until, err := dateRange(a.Since, a.Until)
	if err != nil {
		return answer{}, err
	}
	if a.Limit < 0 || a.TokenBudget < 0 {
		return answer{}, argErrorf("limit and token_budget must not be negative")
	}
	budget, err := budgetArg(a.TokenBudget, scanDefaultBudget)
	if err != nil {
		return answer{}, err
	}
	limit := int(a.Limit)
	if limit == 0 {
		limit = defaultScanLimit
	}
	limit = min(limit, maxScanLimit)
	var pos scanPos
	if a.Cursor != "" {
		if pos, err = parseScanPos(a.Cursor); err != nil {
			return answer{}, err
		}
	}
	// The conversations in scope, oldest first: new ones come at the end,
	// so a cursor's place stays where it was.
	sid := strings.TrimSpace(a.SessionID)
	var list func(offset, n int) ([]ans.Conversation, int, error)
	if sid != "" {
		tr, err := s.mem.Get(ctx, conversations.GetOptions{SessionID: sid, Window: 1, Scope: c.Scope})
		if errors.Is(err, memory.ErrNotFound) {
			return answer{result: mcp.NewToolResultError(fmt.Sprintf("not found: there is no conversation %q in memory", sid)), outcome: auditlog.NotFound}, nil
		}
		if errors.Is(err, memory.ErrAmbiguousSession) {
			return answer{}, &argError{err.Error()}
		}
		if err != nil {
			return answer{}, err
		}
		one := []ans.Conversation{tr.Session}
		list = func(offset, n int) ([]ans.Conversation, int, error) {
			if offset > 0 {
				return nil, 1, nil
			}
			return one, 1, nil
		}
	} else {
		q := conversations.Query{Project: strings.TrimSpace(a.Project), Source: source, Since: since, Until: until, Scope: c.Scope, Sort: "started", Asc: true}
		list = func(offset, n int) ([]ans.Conversation, int, error) {
			q.Offset, q.Limit = offset, n
			return s.mem.Sessions(ctx, q)
		}
	}
	stopAt := time.Now().Add(s.opts.CallTimeout / scanTimeShare)
	page := ans.ScanPage{Pattern: a.Pattern, Regexp: a.Regexp, IgnoreCase: a.IgnoreCase}
	// The conversation a cursor names may have moved in the list (one
	// before it forgotten): find it near its old place.
	batch, total, err := list(max(0, pos.conv-scanListPage/2), scanListPage)
	if err != nil {
		return answer{}, err
	}
	page.InScope = total
	if pos.sessionID != "" {
		found := false
		for i, si := range batch {
			if qualified(si) == pos.sessionID {
				pos.conv = max(0, pos.conv-scanListPage/2) + i
				found = true
				break
			}
		}
		if !found {
			return answer{}, argErrorf("cursor %q names a conversation no longer in scope: start the scan again without cursor", a.Cursor)
		}
	}
	page.Scanned = pos.conv
	base := -1
	for conv := pos.conv; conv < total; conv++ {
		if base < 0 || conv-base >= len(batch) {
			if batch, _, err = list(conv, scanListPage); err != nil {
				return answer{}, err
			}
			base = conv
			if len(batch) == 0 {
				break
			}
		}
		if len(page.Matches) >= limit+1 || time.Now().After(stopAt) {
			page.End = scanPos{conv: conv, sessionID: qualified(batch[conv-base])}.String()
			break
		}
		si := batch[conv-base]
		tr, err := s.mem.Get(ctx, conversations.GetOptions{SessionID: qualified(si), Scope: c.Scope})
		if errors.Is(err, memory.ErrNotFound) {
			page.Scanned++ // forgotten since it was listed
			continue
		}
		if err != nil {
			return answer{}, err
		}
		start := scanPos{}
		if conv == pos.conv {
			start = pos
		}
		full := scanConversation(tr, si, start, match, limit+1-len(page.Matches), &page)
		if !full {
			// The page filled inside this conversation: it resumes there.
			break
		}
		page.Scanned++
		if err := ctx.Err(); err != nil {
			return answer{}, err
		}
	}
	// One match more than the page holds was looked for: its place is the
	// page's end, and it is not shown.
	if len(page.Matches) > limit {
		page.End = page.Matches[limit].At
		page.Matches = page.Matches[:limit]
	}
	out, text := ans.MCPScan(page, c.Scope, budget, o200k.Count)
	res := answer{result: mcp.NewToolResultStructured(out, text), hits: len(out.Matches)}
	if len(out.Matches) == 0 && out.Complete {
		res.outcome = auditlog.NoMatch
	}
	return res, nil
}

// qualified is a conversation's id with its source, as get takes it.
func qualified(si ans.Conversation) string { return si.Source + ":" + si.SessionID }

// scanConversation adds the matches of one conversation from start on,
// at most room of them; it reports whether it read the conversation to
// its end. Only what someone said is searched (the index's words):
// Ireneo's own answers and harness plumbing are passed over.
func scanConversation(tr *conversations.Transcript, si ans.Conversation, start scanPos, match scanMatcher, room int, page *ans.ScanPage) bool {
	id := qualified(si)
	for ti := start.turn; ti < len(tr.Turns); ti++ {
		t := tr.Turns[ti]
		b0 := 0
		if ti == start.turn {
			b0 = start.block
		}
		for bi := b0; bi < len(t.Blocks); bi++ {
			bl := t.Blocks[bi]
			from := 0
			if ti == start.turn && bi == start.block {
				from = start.at
			}
			for _, sp := range plumbing.Classify(t.Role, bl.Type, bl.ToolName, bl.Text) {
				if sp.Kind != plumbing.Said || sp.End <= from {
					continue
				}
				// The whole span is matched, so anchors and the places of
				// overlapping patterns are what they were on the page before.
				for _, m := range match(bl.Text[sp.Start:sp.End]) {
					at, end := sp.Start+m[0], sp.Start+m[1]
					if at < from {
						continue
					}
					if room == 0 {
						return false
					}
					page.Matches = append(page.Matches, ans.ScanMatch{
						SessionID: si.SessionID, TurnUUID: t.TurnUUID, Date: minuteOf(t.TS), Source: si.Source, Title: si.Title,
						Projects: si.Projects, Role: t.Role, Match: bl.Text[at:end], Line: matchLine(bl.Text, at, end),
						At: scanPos{conv: page.Scanned, sessionID: id, turn: ti, block: bi, at: at}.String(),
					})
					room--
				}
			}
		}
	}
	return true
}

// matchLine is the line of text a match is on, cut around the match to
// scanLineRunes when long (marked with …).
func matchLine(text string, at, end int) string {
	ls := strings.LastIndexByte(text[:at], '\n') + 1
	le := len(text)
	if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
		le = end + i
	}
	line := text[ls:le]
	if utf8.RuneCountInString(line) <= scanLineRunes {
		return strings.TrimRight(line, "\r")
	}
	// Keep the match and what is around it, on rune boundaries.
	pre, post := text[ls:at], text[end:le]
	keep := max(0, scanLineRunes-utf8.RuneCountInString(text[at:end]))
	pr := []rune(pre)
	if n := keep / 2; len(pr) > n {
		pre = "…" + string(pr[len(pr)-n:])
	}
	po := []rune(post)
	if n := keep - min(keep/2, len(pr)); len(po) > n {
		post = string(po[:n]) + "…"
	}
	return pre + text[at:end] + post
}

// minuteOf is a turn's time as the answers show it.
func minuteOf(t time.Time) string {
	if t.IsZero() {
		return ans.Undated
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
