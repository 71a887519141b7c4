package importers

import (
	"errors"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/funes"
)

const (
	gemini061     = "gemini-cli/0.61/tmp/proj/chats"
	gemini061Main = gemini061 + "/session-2026-12-01T19-54-7e832400.jsonl"
	gemini061Sub  = gemini061 + "/7e832400-ac0f-47d2-b7e7-fc08e8a714ea/5b04723a-c4a3-4a9d-9b1d-4b30be5cbe92.jsonl"
	gemini020     = "gemini-cli/0.20/tmp/a40556ed819b4daa4fcf4c2363dce6953d18e0c0166f6b00e85cc83527e2b6fc/chats/session-2026-12-01T20-02-603e277c.json"
)

// roleSeq is a session's turns as "role:block,block …", to count and order
// what a sample holds.
func roleSeq(s *funes.Session) string {
	var parts []string
	for _, t := range s.Turns {
		var bs []string
		for _, b := range t.Blocks {
			bs = append(bs, b.Type)
		}
		parts = append(parts, t.Role+":"+strings.Join(bs, ","))
	}
	return strings.Join(parts, " ")
}

// The real files Gemini CLI 0.61 wrote against the stand-in model
// (testdata/README.md): every prompt, reply, thought, call and result is
// there, in order, each result once although the file records it twice.
func TestGeminiCLIReal061(t *testing.T) {
	p := parseFile(t, ParseGeminiCLI, testdata(gemini061Main))
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	// The session_context preamble, the prompt; two rounds of a thought, a
	// word and a call, each with its result; the answer.
	if got, want := roleSeq(s), "user:text user:text assistant:thinking,text,tool_use tool:tool_result assistant:thinking,text,tool_use tool:tool_result assistant:text"; got != want {
		t.Fatalf("turns\n got %s\nwant %s", got, want)
	}
	if s.ID != "7e832400-ac0f-47d2-b7e7-fc08e8a714ea" || s.Harness != funes.HarnessGeminiCLI {
		t.Errorf("id %s harness %s", s.ID, s.Harness)
	}
	if s.Workdir != "/tmp/gh/proj" || s.Project != "proj" {
		t.Errorf("workdir %q project %q", s.Workdir, s.Project)
	}
	if s.Title != "Run echo ireneo-stand-in, then ask an agent where it comes from" {
		t.Errorf("title %q (the preamble is no title)", s.Title)
	}
	if b := s.Turns[3].Blocks[0]; b.Text != "<untrusted_context>\nOutput: ireneo-stand-in\nProcess Group PGID: 26720\n</untrusted_context>" || b.ToolName != "run_shell_command" {
		t.Errorf("shell result %+v", b)
	}
	if b := s.Turns[5].Blocks[0]; !strings.HasPrefix(b.Text, "Subagent 'codebase_investigator' finished.\nTermination Reason: GOAL") {
		t.Errorf("invoke_agent result %q", b.Text)
	}

	sub := parseFile(t, ParseGeminiCLI, testdata(gemini061Sub))
	if sub.err != nil || len(sub.sessions) != 1 {
		t.Fatalf("sub-agent: err %v, %d sessions", sub.err, len(sub.sessions))
	}
	a := sub.sessions[0]
	if got, want := roleSeq(a), "user:text assistant:thinking,text,tool_use tool:tool_result assistant:thinking,text,tool_use tool:tool_result"; got != want {
		t.Fatalf("sub-agent turns\n got %s\nwant %s", got, want)
	}
	if a.ID != "5b04723a-c4a3-4a9d-9b1d-4b30be5cbe92" || !strings.HasPrefix(a.Title, "Sub-agent: Your task is to do a deep investigation") || a.Project != "proj" {
		t.Errorf("sub-agent id %s title %q project %q", a.ID, a.Title, a.Project)
	}
}

// Gemini CLI 0.20 wrote one JSON document per session, content as a string.
func TestGeminiCLIReal020(t *testing.T) {
	p := parseFile(t, ParseGeminiCLI, testdata(gemini020))
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	checkTurns(t, s, []want{
		{"f9b7b24f-fe25-4fea-8b95-415f7ce40a5b", "2026-12-01T20:02:23.257Z", "user", []funes.Block{txt("Run echo ireneo-stand-in, then ask an agent where it comes from")}},
		{"52fafb25-9f1d-4497-8107-f19d608011b2", "2026-12-01T20:02:23.395Z", "assistant", []funes.Block{
			think("**Planning the check** I will call run_shell_command."), txt("Calling run_shell_command."),
			use("run_shell_command", `{"command":"echo ireneo-stand-in","description":"Print the word"}`)}},
		{"52fafb25-9f1d-4497-8107-f19d608011b2-result-0", "2026-12-01T20:02:23.907Z", "tool", []funes.Block{
			result("run_shell_command", "Error: Command rejected because it could not be parsed safely")}},
		{"cff08f8c-bf47-4c64-84b1-f0b383d313a6", "2026-12-01T20:02:23.981Z", "assistant", []funes.Block{txt("The command printed ireneo-stand-in. Done.")}},
	})
	// 0.20 records no folder; the project folder is named by a hash.
	if s.Workdir != "" || s.Project != "" {
		t.Errorf("workdir %q project %q", s.Workdir, s.Project)
	}
}

// The record semantics of the CLI's own loader: an update in place, a
// rewind (which drops the message rewound to: the person types it anew), a $set of all messages, metadata, info and error messages,
// attachments, and records this build does not know.
func TestGeminiCLIRecords(t *testing.T) {
	const file = `{"sessionId":"g-1","projectHash":"ab","startTime":"2026-10-01T10:00:00Z","kind":"main"}
{"id":"m1","timestamp":"2026-10-01T10:00:01Z","type":"user","content":[{"text":"first try"}]}
{"id":"m2","timestamp":"2026-10-01T10:00:02Z","type":"gemini","content":"an answer the person rewound"}
{"$rewindTo":"m1"}
{"id":"m3","timestamp":"2026-10-01T10:01:00Z","type":"user","content":[{"text":"What is in the K-2 log?"},{"inlineData":{"mimeType":"image/png","data":"iVBOR"}},{"fileData":{"mimeType":"text/plain","fileUri":"file:///home/a/k2.log"}}]}
{"id":"m4","timestamp":"2026-10-01T10:01:02Z","type":"gemini","content":"Reading it.","thoughts":[{"subject":"Reading","description":"I'll open the log.","timestamp":"2026-10-01T10:01:01Z"}]}
{"$set":{"lastUpdated":"2026-10-01T10:01:02Z"}}
{"id":"m4","timestamp":"2026-10-01T10:01:02Z","type":"gemini","content":"Reading it.","thoughts":[{"subject":"Reading","description":"I'll open the log.","timestamp":"2026-10-01T10:01:01Z"}],"toolCalls":[{"id":"c1","name":"read_file","args":{"file_path":"k2.log"},"result":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"pressure 4.1 bar"}}}],"status":"success","timestamp":"2026-10-01T10:01:03Z"},{"id":"c2","name":"mcp_ireneo_recall","args":{"query":"K-2 pressure"},"result":[{"functionResponse":{"id":"c2","name":"mcp_ireneo_recall","response":{"content":[{"type":"text","text":"[ireneo-result] Past conversations matching \"K-2 pressure\""}]}}}],"status":"success"},{"id":"c3","name":"run_shell_command","args":{"command":"rm -rf build"},"status":"cancelled"}]}
{"id":"m5","timestamp":"2026-10-01T10:01:04Z","type":"user","content":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"pressure 4.1 bar"}}},{"functionResponse":{"id":"c9","name":"glob","response":{"output":"k2.log"}}}]}
{"id":"m6","timestamp":"2026-10-01T10:01:05Z","type":"info","content":"Request cancelled."}
{"id":"m7","timestamp":"2026-10-01T10:01:06Z","type":"error","content":"[API Error: quota exceeded]"}
{"$futureRecord":{"x":1}}
{"$set":{"summary":"K-2 log pressure"}}
`
	p := parseString(t, ParseGeminiCLI, "/home/a/.gemini/tmp/plant/chats/session-2026-10-01T10-00-g-1.jsonl", file)
	if p.err != nil || len(p.sessions) != 1 {
		t.Fatalf("err %v, %d sessions", p.err, len(p.sessions))
	}
	s := p.sessions[0]
	checkTurns(t, s, []want{
		{"m3", "2026-10-01T10:01:00Z", "user", []funes.Block{txt("What is in the K-2 log?"), txt("[image]"), txt("[file: file:///home/a/k2.log]")}},
		{"m4", "2026-10-01T10:01:02Z", "assistant", []funes.Block{think("**Reading** I'll open the log."), txt("Reading it."),
			use("read_file", `{"file_path":"k2.log"}`), use("mcp_ireneo_recall", `{"query":"K-2 pressure"}`), use("run_shell_command", `{"command":"rm -rf build"}`)}},
		{"m4-result-0", "2026-10-01T10:01:03Z", "tool", []funes.Block{result("read_file", "pressure 4.1 bar")}},
		{"m4-result-1", "2026-10-01T10:01:02Z", "tool", []funes.Block{result("mcp_ireneo_recall", `[ireneo-result] Past conversations matching "K-2 pressure"`)}},
		{"m4-result-2", "2026-10-01T10:01:02Z", "tool", []funes.Block{result("run_shell_command", "(cancelled)")}},
		{"m5", "2026-10-01T10:01:04Z", "tool", []funes.Block{result("glob", "k2.log")}},
		{"m6", "2026-10-01T10:01:05Z", "system", []funes.Block{txt("Request cancelled.")}},
		{"m7", "2026-10-01T10:01:06Z", "system", []funes.Block{txt("[API Error: quota exceeded]")}},
	})
	if s.Title != "K-2 log pressure" {
		t.Errorf("title %q, want the session's summary", s.Title)
	}

	// $set with messages replaces them all; a rewind to an unknown id
	// clears them.
	p = parseString(t, ParseGeminiCLI, "s.jsonl", `{"sessionId":"g-2","projectHash":"ab"}
{"id":"a","type":"user","content":"gone"}
{"$set":{"messages":[{"id":"b","type":"user","content":"kept"},{"id":"c","type":"gemini","content":"yes"}]}}
`)
	if p.err != nil || len(p.sessions) != 1 || roleSeq(p.sessions[0]) != "user:text assistant:text" || p.sessions[0].Turns[0].Blocks[0].Text != "kept" {
		t.Fatalf("$set messages: err %v %v", p.err, p.sessions)
	}
	p = parseString(t, ParseGeminiCLI, "s.jsonl", `{"sessionId":"g-3","projectHash":"ab"}
{"id":"a","type":"user","content":"gone"}
{"$rewindTo":"nowhere"}
`)
	if !errors.Is(p.err, errNoConversation) || len(p.sessions) != 0 {
		t.Fatalf("rewind to an unknown id: err %v, %d sessions", p.err, len(p.sessions))
	}
}

// A session cut short mid-write keeps what was written; a file of nothing
// readable is an error naming the line.
func TestGeminiCLIBadInput(t *testing.T) {
	p := parseString(t, ParseGeminiCLI, "s.jsonl", `{"sessionId":"g-4","projectHash":"ab"}
{"id":"a","type":"user","content":"the question"}
{"id":"b","type":"gemini","content":"the ans`)
	if p.err != nil || len(p.sessions) != 1 || roleSeq(p.sessions[0]) != "user:text" {
		t.Fatalf("truncated: err %v %v", p.err, p.sessions)
	}
	p = parseString(t, ParseGeminiCLI, "s.jsonl", "[1,2]\n\xff\xfe garbage\n{\"sessionId\n")
	if p.err == nil || !strings.Contains(p.err.Error(), "no readable line (line 1: not a JSON object)") {
		t.Fatalf("garbage: err %v", p.err)
	}
	// A whole document that is not UTF-8 is refused, naming the offset.
	p = parseString(t, ParseGeminiCLI, "s.json", "{\n  \"sessionId\": \"g-6\",\n  \"projectHash\": \"ab\",\n  \"messages\": [{\"id\":\"a\",\"type\":\"user\",\"content\":\"caf\xe9\"}]\n}\n")
	if p.err == nil || !strings.Contains(p.err.Error(), "not UTF-8") {
		t.Fatalf("not UTF-8: err %v", p.err)
	}
}
