package plumbing

import "testing"

// The plumbing of the harnesses added with issue 31, in the shapes their
// real transcripts hold (importers/testdata has the files).

func TestHarnessOfNewSources(t *testing.T) {
	for _, c := range []struct {
		name, role, typ, text, want string
	}{
		{"gemini cli session preamble", "user", "text",
			"<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n- **Workspace Directories:**\n  - /tmp/gh/proj\n</session_context>",
			"harness note:<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n- **Workspace Directories:**\n  - /tmp/gh/proj\n</session_context>"},
		{"gemini cli hook context before a prompt", "user", "text",
			"<hook_context>branch: main</hook_context>\nWhy does MT-4471 fail?",
			"harness note:<hook_context>branch: main</hook_context>\n|said:Why does MT-4471 fail?"},
		{"a person quoting session_context", "user", "text",
			"What does <session_context> hold in Gemini CLI?",
			"said:What does <session_context> hold in Gemini CLI?"},
		{"cursor user query", "user", "text",
			"<user_query>\nWhy does MT-4471 fail?\n</user_query>",
			"harness note:<user_query>|said:\nWhy does MT-4471 fail?\n|harness note:</user_query>"},
		{"cursor commands before the query", "user", "text",
			"<cursor_commands>\n/review: review the diff\n</cursor_commands>\n<user_query>\n/review MT-4471\n</user_query>",
			"harness note:<cursor_commands>\n/review: review the diff\n</cursor_commands>\n<user_query>|said:\n/review MT-4471\n|harness note:</user_query>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Classify(c.role, c.typ, "", c.text)
			checkCover(t, c.text, got)
			if k := kinds(c.text, got); k != c.want {
				t.Fatalf("Classify(%s %s %q)\n got %q\nwant %q", c.role, c.typ, c.text, k, c.want)
			}
		})
	}
}

// Each harness names an MCP server's tools its own way.
func TestIreneoToolOfNewSources(t *testing.T) {
	for name, want := range map[string]string{
		"mcp_ireneo_recall":        "recall",        // Gemini CLI 0.4x on
		"ireneo__recall":           "recall",        // Gemini CLI before
		"mcp_memory_list_projects": "list_projects", // not "projects"
		"ireneo_get":               "get",           // opencode
		"ireneo-sessions":          "sessions",      // Copilot CLI
		"my-memory-list_projects":  "list_projects",
		"web_search":               "",
		"forget_recall_all":        "",
		"xrecall":                  "",
	} {
		if got := IreneoTool(name); got != want {
			t.Errorf("IreneoTool(%q) = %q, want %q", name, got, want)
		}
	}
	// The argument shape still decides: another server's "get".
	for _, c := range []struct {
		tool, input string
		want        Kind
	}{
		{"mcp_ireneo_recall", `{"query":"K-2 compressor"}`, RecallCall},
		{"ireneo_get", `{"session_id":"ses_1","turn_uuid":"t1"}`, RecallCall},
		{"ireneo-list_projects", `{}`, RecallCall},
		{"github_get", `{"owner":"x","repo":"y"}`, Said},
		{"run_shell_command", `{"command":"ireneo recall 'K-2 compressor'","description":"Search memory"}`, RecallCall},
	} {
		got := Classify("assistant", "tool_use", c.tool, c.input)
		if len(got) != 1 || got[0].Kind != c.want {
			t.Errorf("Classify(tool_use %s %s) = %s, want %v", c.tool, c.input, kinds(c.input, got), c.want)
		}
	}
}

// Gemini CLI's shell tool puts its own envelope before a command's output:
// the CLI's answer behind it is still Ireneo's.
func TestGeminiShellEnvelope(t *testing.T) {
	answer := ResultMarker + " Past conversations matching \"K-2\" (1 of 1):\n\n[1] 2026-10-12 · codex · Plant\nreceipt: session_id=s1 turn_uuid=t1\n"
	for _, text := range []string{
		"<untrusted_context>\nOutput: " + answer + "Process Group PGID: 26720\n</untrusted_context>",
		"Output: " + answer,
		"Command: ireneo recall K-2\nDirectory: (root)\nStdout: " + answer + "Stderr: (empty)\nError: (none)\nExit Code: 0",
		// Gemini CLI 0.61 wraps an MCP tool's result too (the shape its real
		// session held in TestHarnessGeminiCLI).
		"<untrusted_context>\n" + answer + "\n</untrusted_context>",
	} {
		got := Classify("tool", "tool_result", "run_shell_command", text)
		checkCover(t, text, got)
		if len(got) != 1 || got[0].Kind != RecallResult {
			t.Errorf("Classify(%q) = %s, want one recall result", text, kinds(text, got))
		}
	}
	// Other output in the same envelope stays the shell's.
	plain := "<untrusted_context>\nOutput: ireneo-stand-in\nProcess Group PGID: 26720\n</untrusted_context>"
	if got := Classify("tool", "tool_result", "run_shell_command", plain); len(got) != 1 || got[0].Kind != Said {
		t.Errorf("plain shell output: %s", kinds(plain, got))
	}
}
