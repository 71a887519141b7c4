package gui

import (
	"fmt"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// Conversations shaped like the ones a person's memory holds, for the tests
// of issue 32 and the review screenshots: a ChatGPT canvas and a Claude
// Code session with secrets stored unscrubbed (as an import with
// --no-scrub leaves them), a Markdown answer with a table, an agent
// session with runs of tool calls, a Japanese and Chinese conversation,
// and a very long session.

// canvasPassword is the password the reported ChatGPT canvas held.
const canvasPassword = "Snoppy23"

// secretSessions hold secrets the scanner finds: the canvas password, an
// AWS key pair and a GitHub token, in titles, text and tool calls.
func secretSessions() []*funes.Session {
	t0 := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	text := func(s string) funes.Block { return funes.Block{Type: funes.BlockText, Text: s} }
	script := "create_local_user\n\n# Create a local user\n$Username = \"LocalAdmin\"\n$PlainPassword = \"" + canvasPassword + "\"\n" +
		"$Password = ConvertTo-SecureString $PlainPassword -AsPlainText -Force\n" +
		"New-LocalUser -Name $Username -Password $Password -FullName \"Local Admin\"\n"
	canvas := &funes.Session{ID: "conv-local-user", Harness: funes.HarnessChatGPT, Title: "Create local user script", Turns: []funes.Turn{
		{TurnUUID: "lu-0", Seq: 0, TS: t0, Role: funes.RoleUser, Blocks: []funes.Block{text("Write a PowerShell script that creates a local admin user with a generated password.")}},
		{TurnUUID: "lu-1", Seq: 1, TS: t0.Add(time.Minute), Role: funes.RoleAssistant, Blocks: []funes.Block{{Type: funes.BlockToolUse, ToolName: "canmore.create_textdoc", Text: script}}},
		{TurnUUID: "lu-2", Seq: 2, TS: t0.Add(2 * time.Minute), Role: funes.RoleAssistant, Blocks: []funes.Block{text(
			"This script creates the user **LocalAdmin** with the generated password \"" + canvasPassword + "\" and adds it to the Administrators group.")}},
	}}
	deploy := &funes.Session{ID: "cc-deploy", Harness: funes.HarnessClaudeCode, Workdir: "/home/ana/site", Project: "site",
		Title: "Deploy script fails. My AWS key is " + fakeAWSKey + " and secret " + fakeAWSSecret, Turns: []funes.Turn{
			{TurnUUID: "dp-0", Seq: 0, TS: t0.Add(time.Hour), Role: funes.RoleUser, Blocks: []funes.Block{text(
				"Deploy script fails. My AWS key is " + fakeAWSKey + " and secret " + fakeAWSSecret + "\n\nThe deploy bot token is " + fakeGitHubToken + ".")}},
			{TurnUUID: "dp-1", Seq: 1, TS: t0.Add(time.Hour + time.Minute), Role: funes.RoleAssistant, Blocks: []funes.Block{
				text("Rotate that key first: it is in this chat now. Then I write the deploy script."),
				{Type: funes.BlockToolUse, ToolName: "Write", Text: `{"file_path":"/home/ana/site/deploy.sh","content":"#!/bin/bash\nexport GITHUB_TOKEN=` + fakeGitHubToken + `\naws s3 sync ./dist s3://staging-site\n"}`},
			}},
			{TurnUUID: "dp-2", Seq: 2, TS: t0.Add(time.Hour + 2*time.Minute), Role: funes.RoleUser, Blocks: []funes.Block{{Type: funes.BlockToolResult, ToolName: "Write", Text: "File created successfully at: /home/ana/site/deploy.sh"}}},
		}}
	return []*funes.Session{canvas, deploy}
}

// markdownSession is an answer with paragraphs, a table and a list.
func markdownSession() *funes.Session {
	t0 := time.Date(2026, 5, 6, 14, 0, 0, 0, time.UTC)
	answer := "Here is how the three databases compare for the catalogue.\n\n" +
		"| Database | Full-text search | One file | Licence |\n|---|---|:---:|---|\n" +
		"| SQLite | FTS5, built in | yes | public domain |\n| PostgreSQL | tsvector | no | PostgreSQL |\n| DuckDB | fts extension | yes | MIT |\n\n" +
		"SQLite is the simplest: one file, no server, and FTS5 ranks with BM25.\n\n" +
		"PostgreSQL needs a server, but its search is richer.\n\n- Start with SQLite.\n- Move when the catalogue outgrows one machine."
	return &funes.Session{ID: "conv-compare", Harness: funes.HarnessChatGPT, Title: "Compare databases for the catalogue", Turns: []funes.Turn{
		{TurnUUID: "cmp-0", Seq: 0, TS: t0, Role: funes.RoleUser, Blocks: []funes.Block{{Type: funes.BlockText, Text: "Compare SQLite, PostgreSQL and DuckDB for the catalogue, in a table."}}},
		{TurnUUID: "cmp-1", Seq: 1, TS: t0.Add(time.Minute), Role: funes.RoleAssistant, Blocks: []funes.Block{{Type: funes.BlockText, Text: answer}}},
	}}
}

// agentSession is a Claude Code session whose assistant runs long strings
// of tool calls between two messages, as agents do.
func agentSession() *funes.Session {
	t0 := time.Date(2026, 5, 8, 10, 0, 0, 0, time.UTC)
	s := &funes.Session{ID: "cc-agent", Harness: funes.HarnessClaudeCode, Title: "Port the importer to the new layout", Workdir: "/home/ana/src/ireneo", Project: "ireneo"}
	add := func(role string, blocks ...funes.Block) {
		seq := len(s.Turns)
		s.Turns = append(s.Turns, funes.Turn{TurnUUID: fmt.Sprintf("ag-%d", seq), Seq: seq, TS: t0.Add(time.Duration(seq) * 20 * time.Second), Role: role, Blocks: blocks})
	}
	add(funes.RoleUser, funes.Block{Type: funes.BlockText, Text: "Port the Codex importer to the new rollout layout and keep the tests green."})
	add(funes.RoleAssistant, funes.Block{Type: funes.BlockText, Text: "I will read the importer and its tests first."})
	files := []string{"importers/codex.go", "importers/codex_test.go", "importers/doc.go", "importers/lines.go", "importers/run.go", "importers/watch.go"}
	for i, f := range files {
		add(funes.RoleAssistant, funes.Block{Type: funes.BlockToolUse, ToolName: "Read", Text: `{"file_path":"/home/ana/src/ireneo/` + f + `"}`})
		add(funes.RoleUser, funes.Block{Type: funes.BlockToolResult, ToolName: "Read", Text: fmt.Sprintf("%d lines of %s", 120+i*37, f)})
	}
	add(funes.RoleAssistant, funes.Block{Type: funes.BlockToolUse, ToolName: "Bash", Text: `{"command":"go test ./importers/...","description":"Run the importer tests"}`})
	add(funes.RoleUser, funes.Block{Type: funes.BlockToolResult, ToolName: "Bash", Text: "ok  \tgithub.com/ireneo-app/ireneo/importers\t2.1s"})
	add(funes.RoleAssistant, funes.Block{Type: funes.BlockText, Text: "The tests pass on the old layout. Now the new one: the rollout envelope moved `payload` under `response_item`."})
	add(funes.RoleAssistant, funes.Block{Type: funes.BlockToolUse, ToolName: "Edit", Text: `{"file_path":"/home/ana/src/ireneo/importers/codex.go","old_string":"payload","new_string":"response_item.payload"}`})
	add(funes.RoleUser, funes.Block{Type: funes.BlockToolResult, ToolName: "Edit", Text: "The file has been updated."})
	add(funes.RoleAssistant, funes.Block{Type: funes.BlockText, Text: "Done: the importer reads both layouts and the tests are green."})
	return s
}

// cjkSession is a conversation in Japanese and Chinese, with bold words.
func cjkSession() *funes.Session {
	t0 := time.Date(2026, 5, 9, 8, 0, 0, 0, time.UTC)
	return &funes.Session{ID: "conv-cjk", Harness: funes.HarnessClaude, Title: "東京の旅行計画", Turns: []funes.Turn{
		{TurnUUID: "cjk-0", Seq: 0, TS: t0, Role: funes.RoleUser, Blocks: []funes.Block{{Type: funes.BlockText, Text: "東京で三日間の旅行計画を立ててください。Tokyo, three days, in spring."}}},
		{TurnUUID: "cjk-1", Seq: 1, TS: t0.Add(time.Minute), Role: funes.RoleAssistant, Blocks: []funes.Block{{Type: funes.BlockText, Text: "**一日目**：浅草と上野を歩きます。\n\n**二日目**：渋谷と原宿。\n\n中文也可以：**第三天**去台场看海。"}}},
	}}
}

// longSession is a coding session of n turns; turn n/2 holds marker.
func longSession(id string, n int, marker string) *funes.Session {
	t0 := time.Date(2026, 4, 20, 9, 0, 0, 0, time.UTC)
	s := &funes.Session{ID: id, Harness: funes.HarnessClaudeCode, Title: fmt.Sprintf("A session of %d turns", n), Workdir: "/src/long", Project: "long"}
	for i := 0; i < n; i++ {
		role := funes.RoleUser
		if i%2 == 1 {
			role = funes.RoleAssistant
		}
		body := fmt.Sprintf("Turn %d: %s", i, strings.Repeat("We move one more function into the parser package and run the tests again. ", 3+i%4))
		if i == n/2 {
			body = "The " + marker + " step is where the parser finally moved."
		}
		blocks := []funes.Block{{Type: funes.BlockText, Text: body}}
		if role == funes.RoleAssistant && i%3 == 0 {
			blocks = append(blocks, funes.Block{Type: funes.BlockToolUse, ToolName: "Bash", Text: `{"command":"go test ./parser/..."}`})
		}
		s.Turns = append(s.Turns, funes.Turn{TurnUUID: fmt.Sprintf("%s-%d", id, i), Seq: i, TS: t0.Add(time.Duration(i) * time.Minute), Role: role, Blocks: blocks})
	}
	return s
}

// reviewSessions are all of the above beside the fixtures.
func reviewSessions() []*funes.Session {
	out := append(fixtureSessions(), toolSession(), markdownSession(), agentSession(), cjkSession(), longSession("cc-long-1000", 1000, "marmoset"))
	return append(out, secretSessions()...)
}
