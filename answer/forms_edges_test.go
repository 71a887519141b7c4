package answer

import (
	"fmt"
	"strings"
	"time"
)

// The answers' other shapes: a page with more after it, a budget that cuts
// or shortens, an empty answer, a window in the middle of a conversation,
// folds, and the envelopes Gemini CLI and Codex put around a tool's
// result. Each is a form of its own in TestGoldenForms.

// budgetFor is the smallest budget (1 to 8000) at which ok holds, so a
// form's shape does not rest on a hand-tuned number; it panics when none
// does, as the form would then not be the one named.
func budgetFor(what string, ok func(budget int) bool) int {
	for b := 1; b <= 8000; b++ {
		if ok(b) {
			return b
		}
	}
	panic("no budget gives " + what)
}

// longWindow is the forgotten conversation of five turns, asked at its
// third, with the turns either side: get's earlier and later hints.
func longWindow() *Window {
	s := goneConversation()
	s.Turns = 5
	w := &Window{Session: s, Focus: 2}
	for seq := 1; seq <= 3; seq++ {
		role := "user"
		if seq%2 == 1 {
			role = "assistant"
		}
		w.Turns = append(w.Turns, Turn{TurnUUID: fmt.Sprintf("gone-1-t%d", seq), Seq: seq, TS: t0.Add(time.Duration(seq) * time.Minute), Role: role,
			Blocks: []Block{{Type: BlockText, Text: fmt.Sprintf("Turn %d: %s", seq, goneSaid)}}})
	}
	return w
}

// bigWindow is longWindow with the turn asked for too long for a small
// budget.
func bigWindow() *Window {
	w := longWindow()
	w.Turns[1].Blocks[0].Text = strings.Repeat(goneSaid+" ", 60)
	return w
}

// longHit is the forgotten conversation's hit with a passage of many
// lines, too long for a small budget.
func longHit() Hit {
	h := formHits()[0]
	h.Text = strings.TrimSpace(strings.Repeat(goneSaid+"\n", 40))
	h.Neighbors = nil
	return h
}

// foldedWindow holds, in its assistant's tool result, an earlier answer of
// Ireneo's (folded by get) and a harness's plumbing line.
func foldedWindow() *Window {
	w := goneWindow()
	earlier := Marker + " No past conversation matches \"pump\". " + nothingFound + "; try other words, a key identifier, or say you don't know.\n"
	text := "before " + goneToken + "\n" + earlier + "after\n"
	start := strings.Index(text, Marker)
	w.Turns[1].Blocks = append(w.Turns[1].Blocks, Block{Type: BlockToolResult, ToolName: "recall", Text: text,
		Folds: []Fold{{Start: start, End: start + len(earlier), Label: "Ireneo's answer"}}})
	return w
}

// geminiShell is a command's output as Gemini CLI 0.61's run_shell_command
// result holds it (importers/testdata/gemini-cli/0.61); geminiMCP an MCP
// tool's result; geminiOldShell the 0.4x one before Output: was its own.
func geminiShell(out string) string {
	return "<untrusted_context>\nOutput: " + out + "Process Group PGID: 26720\n</untrusted_context>"
}

func geminiMCP(text string) string { return "<untrusted_context>\n" + text + "\n</untrusted_context>" }

func geminiOldShell(cmd, out string) string {
	return "Command: " + cmd + "\nDirectory: (root)\nStdout: " + out + "Stderr: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 26720"
}

// codexTruncated is a command's output Codex cut in the middle, as its
// exec_command result holds it.
func codexTruncated(out string) string {
	return fmt.Sprintf("Chunk ID: 7be1c0\nWall time: 0.0513 seconds\nProcess exited with code 0\nOriginal token count: %d\nOutput:\nWarning: truncated output (original token count: %d)\nTotal output lines: %d\n\n%s",
		len(out)/2, len(out)/2, strings.Count(out, "\n")*2, out)
}

// edgeForms are the forms beyond forms()'s first of each answer.
func edgeForms() []form {
	hits := formHits()
	convs := []Conversation{keptConversation(), goneConversation()}

	// recall: one hit fits and one is cut; one alone, shortened.
	cliCutB := budgetFor("a CLI block of one hit and one cut", func(b int) bool {
		r := FitRecall(query, formHits(), b, countTokens)
		return len(r.Hits) == 1 && r.Cut == 1 && !r.Hits[0].Truncated
	})
	cliCut := FitRecall(query, hits, cliCutB, countTokens)
	full := FitRecall(query, hits, 4000, countTokens)
	mcpCutB := budgetFor("an MCP recall of one hit and one cut", func(b int) bool {
		o, _ := MCPRecall(query, full, nil, b, countTokens)
		return len(o.Hits) == 1 && o.Cut == 1 && !o.Hits[0].Truncated
	})
	mcpCut, mcpCutText := MCPRecall(query, full, nil, mcpCutB, countTokens)
	long := []Hit{longHit()}
	cliShortB := budgetFor("a CLI block of one hit shortened to many lines", func(b int) bool {
		r := FitRecall(query, []Hit{longHit()}, b, countTokens)
		return len(r.Hits) == 1 && r.Hits[0].Truncated && strings.Count(r.Hits[0].Text, "\n") >= 3
	})
	cliShort := FitRecall(query, long, cliShortB, countTokens)
	longFull := FitRecall(query, long, 8000, countTokens)
	mcpShortB := budgetFor("an MCP recall of one shortened hit", func(b int) bool {
		o, _ := MCPRecall(query, longFull, nil, b, countTokens)
		return len(o.Hits) == 1 && o.Hits[0].Truncated && strings.Count(o.Hits[0].Text, "\n") >= 3
	})
	mcpShort, mcpShortText := MCPRecall(query, longFull, nil, mcpShortB, countTokens)
	noMatch := FitRecall("flamingo rollout", nil, 4000, countTokens)
	mcpNone, _ := MCPRecall("flamingo rollout", noMatch, nil, 4000, countTokens)
	over := FitRecall(query, hits, 20, countTokens)
	mcpOver, _ := MCPRecall(query, full, nil, 30, countTokens)
	// A scoped token sees only its projects: the kept hit's "plant" goes.
	mcpScoped, mcpScopedText := MCPRecall(query, full, []string{"other"}, 4000, countTokens)

	// get: a window with turns either side; the turn asked for shortened;
	// folds; no turns.
	mcpWin, mcpWinText := MCPGet(longWindow(), nil, 4000, countTokens)
	big := bigWindow()
	bigB := budgetFor("a get of one shortened turn", func(b int) bool {
		o, _ := MCPGet(big, nil, b, countTokens)
		return len(o.Turns) == 1 && o.Turns[0].Truncated && len(o.Turns[0].Text) >= 200
	})
	mcpShortGet, mcpShortGetText := MCPGet(big, nil, bigB, countTokens)
	_, mcpFoldText := MCPGet(foldedWindow(), nil, 4000, countTokens)
	mcpNoTurns, _ := MCPGet(&Window{Session: goneConversation(), Focus: -1}, nil, 4000, countTokens)
	noTurns := &Window{Session: goneConversation(), Focus: -1, Turns: []Turn{}}

	// sessions: a page with more after it; past the end; none.
	mcpPage, mcpPageText := MCPSessions([]Conversation{goneConversation(), keptConversation()}, 5, 0, nil, 4000, countTokens)
	pageB := budgetFor("a sessions page cut by its budget", func(b int) bool {
		o, _ := MCPSessions([]Conversation{goneConversation(), keptConversation()}, 2, 0, nil, b, countTokens)
		return len(o.Sessions) == 1
	})
	_, mcpPageCutText := MCPSessions([]Conversation{goneConversation(), keptConversation()}, 2, 0, nil, pageB, countTokens)
	_, mcpPastEnd := MCPSessions(nil, 2, 10, nil, 4000, countTokens)
	mcpSessNone, _ := MCPSessions(nil, 0, 0, nil, 4000, countTokens)
	mcpProjNone, _ := MCPProjects(nil, 3)

	// scan: a page the budget cut (a cursor to the rest), a regular
	// expression in any case, nothing yet (more to read), none at all.
	page := ScanPage{Pattern: "valve", Matches: []ScanMatch{
		{SessionID: "gone-1", TurnUUID: "gone-1-t0", Date: "2026-03-01 09:00 UTC", Source: "chatgpt", Title: "Valve " + goneToken, Role: "user", Match: "valve", Line: goneSaid, At: "1/chatgpt:gone-1/0/0/4"},
		{SessionID: "kept-1", TurnUUID: "kept-1-t0", Date: "2026-03-02 09:00 UTC", Source: "chatgpt", Title: "Pump", Role: "user", Match: "valve", Line: "The valve beside the " + keptToken + " pump.", At: "2/chatgpt:kept-1/0/0/4"},
	}, Scanned: 2, InScope: 3}
	scanB := budgetFor("a scan page of one match", func(b int) bool {
		o, _ := MCPScan(page, nil, b, countTokens)
		return len(o.Matches) == 1 && o.Matches[0].Line == page.Matches[0].Line
	})
	mcpScanCut, mcpScanCutText := MCPScan(page, nil, scanB, countTokens)
	rx := page
	rx.Pattern, rx.Regexp, rx.IgnoreCase = `VALVE\s+leaks?`, true, true
	rx.Matches = append([]ScanMatch{}, page.Matches...)
	rx.Matches[0].Match = "valve leaks"
	rx.Matches = rx.Matches[:1]
	_, mcpScanRxText := MCPScan(rx, nil, 4000, countTokens)
	_, mcpScanYet := MCPScan(ScanPage{Pattern: "valve", Scanned: 1, InScope: 3, End: "1/chatgpt:a-1/9/0/0"}, nil, 4000, countTokens)
	mcpScanNone, _ := MCPScan(ScanPage{Pattern: "ERR_(", Regexp: true, Scanned: 3, InScope: 3}, nil, 4000, countTokens)

	// insights: cut by the budget (projects, then periods), empty.
	ins := InsightsOutput{Period: "week", Periods: []string{"2026-02-09", "2026-02-16", "2026-02-23", "2026-03-02"}, Totals: InsightsTotals{Conversations: 6, Turns: 9, Tokens: 120}}
	for i, name := range []string{"chatgpt", "claude_code"} {
		ins.BySource = append(ins.BySource, InsightsSeries{Name: name, Conversations: []int{i, 1, 0, 2}, Turns: []int{i, 2, 0, 3}, Tokens: []int{i * 5, 20, 0, 40}, Total: InsightsTotals{Conversations: 3, Turns: 5, Tokens: 60}})
	}
	for i, name := range []string{"plant", "garden", "attic"} {
		ins.ByProject = append(ins.ByProject, InsightsSeries{Name: name, Conversations: []int{0, 1, 0, 3 - i}, Turns: []int{0, 1, 0, 3 - i}, Tokens: []int{0, 9, 0, 30 - i}, Total: InsightsTotals{Conversations: 4 - i, Turns: 4 - i, Tokens: 39 - i}})
	}
	ins.Agents = []InsightsAccess{{Client: "claude-code", Answered: []int{0, 1, 2, 4}, NoMatch: []int{0, 0, 1, 1}, Refused: []int{0, 0, 0, 1}, Failed: []int{0, 0, 0, 0}, Total: 10}}
	fullIns, _ := MCPInsights(ins, 8000, countTokens)
	insB := budgetFor("insights cut to fewer periods", func(b int) bool {
		o, _ := MCPInsights(ins, b, countTokens)
		return len(o.ByProject) == 0 && len(o.Periods) == 2
	})
	if len(fullIns.ByProject) != 3 {
		panic("the insights form does not fit whole at 8000")
	}
	mcpInsCut, mcpInsCutText := MCPInsights(ins, insB, countTokens)
	mcpInsNone, mcpInsNoneText := MCPInsights(InsightsOutput{Period: "month", Note: "No conversations in this range."}, 4000, countTokens)
	oldest, newest := t0, t0.AddDate(0, 0, 1)
	since := t0.AddDate(0, 0, -7)
	cliIns := &Insights{Range: "7d", Since: &since, Headline: InsightsHeadline{Conversations: 2, Turns: 3, Tokens: 52, Oldest: &oldest, Newest: &newest, SizeBytes: 1_200_000, Redacted: 1, Forgotten: 1},
		Weeks: []time.Time{t0.AddDate(0, 0, -7), t0},
		BySource: []WeekSeries{{Name: "chatgpt", Conversations: []int{1, 1}, Turns: []int{1, 2}, TotalConvs: 2, TotalTurns: 3},
			{Name: "a-source-name-longer-than-its-column-of-28", Conversations: []int{0, 1}, Turns: []int{0, 1}, TotalConvs: 1, TotalTurns: 1}},
		ByProject: []WeekSeries{{Name: "plant", Conversations: []int{0, 1}, Turns: []int{0, 2}, TotalConvs: 1, TotalTurns: 2}},
		Days:      []time.Time{t0, t0.AddDate(0, 0, 1)},
		Agents:    []AgentSeries{{Client: "claude-code", Answered: []int{3, 1}, NoMatch: []int{1, 0}, Refused: []int{0, 1}, Failed: []int{0, 0}, Total: 6}}}
	cliInsNone := &Insights{Range: "all"}

	// The CLI's other answers.
	report := &ForgetReport{Sessions: []ForgottenSession{
		{SessionID: "gone-1", Source: "chatgpt", Title: "Valve " + goneToken, Turns: 2, Bytes: 900, File: "src/chatgpt/gone-1.funes.jsonl"},
		{SessionID: "other-9", Source: "claude_code", Title: "Attic", Turns: 4, Bytes: 1200, File: "src/claude_code/other-9.funes.jsonl"},
	}, Files: 2, Quoting: 2, Quotes: 3, Vacuumed: true}

	mcpText := func(_ any, text string) string { return text }
	cliGet := CLIGet(goneWindow())
	return []form{
		// MCP recall.
		{name: "mcp-recall-cut.txt", text: mcpCutText, quotes: 1},
		{name: "mcp-recall-cut.json", text: mustJSON(mcpCut), quotes: 1},
		{name: "mcp-recall-shortened.txt", text: mcpShortText, quotes: 1},
		{name: "mcp-recall-shortened.json", text: mustJSON(mcpShort), quotes: 1},
		{name: "mcp-recall-scoped.txt", text: mcpScopedText, quotes: 1, keeps: true},
		{name: "mcp-recall-scoped.json", text: mustJSON(mcpScoped), quotes: 1, keeps: true},
		{name: "mcp-recall-nomatch.json", text: mustJSON(mcpNone)},
		{name: "mcp-recall-overbudget.json", text: mustJSON(mcpOver)},
		// MCP get.
		{name: "mcp-get-window.txt", text: mcpWinText, quotes: 1},
		{name: "mcp-get-window.json", text: mustJSON(mcpWin), quotes: 1},
		{name: "mcp-get-shortened.txt", text: mcpShortGetText, quotes: 1},
		{name: "mcp-get-shortened.json", text: mustJSON(mcpShortGet), quotes: 1},
		{name: "mcp-get-folds.txt", text: mcpFoldText, quotes: 1},
		{name: "mcp-get-noturns.json", text: mustJSON(mcpNoTurns), quotes: 1},
		// MCP sessions and list_projects.
		{name: "mcp-sessions-paged.txt", text: mcpPageText, quotes: 1, keeps: true},
		{name: "mcp-sessions-paged.json", text: mustJSON(mcpPage), quotes: 1, keeps: true},
		{name: "mcp-sessions-overbudget.txt", text: mcpPageCutText, quotes: 1},
		{name: "mcp-sessions-past-end.txt", text: mcpPastEnd},
		{name: "mcp-sessions-none.json", text: mustJSON(mcpSessNone)},
		{name: "mcp-projects-none.json", text: mustJSON(mcpProjNone)},
		{name: "mcp-projects-untagged.txt", text: mcpText(MCPProjects([]ProjectCount{{"plant", 2}, {"attic", 1}}, 3))},
		// MCP scan and insights.
		{name: "mcp-scan-cut.txt", text: mcpScanCutText, quotes: 1},
		{name: "mcp-scan-cut.json", text: mustJSON(mcpScanCut), quotes: 1},
		{name: "mcp-scan-regexp.txt", text: mcpScanRxText, quotes: 1},
		{name: "mcp-scan-nomatch-yet.txt", text: mcpScanYet},
		{name: "mcp-scan-nomatch.json", text: mustJSON(mcpScanNone)},
		{name: "mcp-insights-cut.txt", text: mcpInsCutText},
		{name: "mcp-insights-cut.json", text: mustJSON(mcpInsCut)},
		{name: "mcp-insights-none.txt", text: mcpInsNoneText},
		{name: "mcp-insights-none.json", text: mustJSON(mcpInsNone)},
		// The CLI's.
		{name: "cli-recall-cut.txt", text: CLIRecall(cliCut), quotes: 1},
		{name: "cli-recall-cut.json", text: cliJSON(cliCut), quotes: 2},
		{name: "cli-recall-shortened.txt", text: CLIRecall(cliShort), quotes: 1},
		{name: "cli-recall-overbudget.json", text: cliJSON(over)},
		{name: "cli-get-window.txt", text: CLIGet(longWindow()), quotes: 1},
		{name: "cli-get-noturns.txt", text: CLIGet(noTurns), quotes: 1},
		{name: "cli-get-noturns.json", text: cliJSON(CLIGetJSON(noTurns)), quotes: 1},
		{name: "cli-sessions-none.txt", text: CLISessions(nil, 0)},
		{name: "cli-sessions-none.json", text: cliJSON(CLISessionsJSON(nil, 0))},
		{name: "cli-sessions-page.txt", text: CLISessions(convs, 9), quotes: 1, keeps: true},
		{name: "cli-projects-none.txt", text: CLIProjects(nil, 0)},
		{name: "cli-projects-none.json", text: cliJSON(CLIProjectsJSON([]ProjectCount{}, 0))},
		{name: "cli-audit-none.txt", text: CLIAudit(nil)},
		// The one answer without the marker: audit --json of no calls is
		// the empty array it always was (its shape is the entries' array),
		// and holds no word to index.
		{name: "cli-audit-none.json", text: cliJSON(CLIAuditJSON(nil)), none: true},
		{name: "cli-insights-range.txt", text: CLIInsights(cliIns)},
		{name: "cli-insights-range.json", text: cliJSON(CLIInsightsJSON(cliIns))},
		{name: "cli-insights-none.txt", text: CLIInsights(cliInsNone)},
		{name: "cli-insights-none.json", text: cliJSON(CLIInsightsJSON(cliInsNone))},
		{name: "cli-forget-two.txt", text: CLIForget(report), quotes: 1},
		{name: "cli-forget-two.json", text: cliJSON(CLIForgetJSON(report)), quotes: 1},
		// Behind Gemini CLI's envelopes and Codex's cut.
		{name: "gemini-mcp-recall.txt", text: geminiMCP(mcpCutText), quotes: 1},
		{name: "gemini-mcp-sessions.txt", text: geminiMCP(mcpPageText), quotes: 1, keeps: true},
		{name: "gemini-shell-recall.txt", text: geminiShell(CLIRecall(full)), quotes: 1, keeps: true},
		{name: "gemini-shell-get.txt", text: geminiShell(cliGet), quotes: 1},
		{name: "gemini-shell-nomatch.txt", text: geminiShell(CLIRecall(noMatch))},
		// (The command, as Gemini echoed it, is the agent's: it stays.)
		{name: "gemini-old-shell-get.txt", text: geminiOldShell(`ireneo get "$ID"`, cliGet), quotes: 1},
		{name: "codex-exec-truncated-recall.txt", text: codexTruncated(CLIRecall(full)), quotes: 1, keeps: true},
		// Earlier builds: get's window and a no-turns conversation as the
		// first server wrote them.
		{name: "first-mcp-get-window.txt", text: firstGetText(longWindow()), quotes: 1},
	}
}
