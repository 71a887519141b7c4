package funes

import "time"

// Harness names, as written in the funes jsonl "harness" field.
const (
	HarnessChatGPT    = "chatgpt"
	HarnessClaude     = "claude"
	HarnessCodex      = "codex"
	HarnessClaudeCode = "claude_code"
	HarnessGeminiCLI  = "gemini_cli"
	HarnessOpenCode   = "opencode"
	HarnessCursor     = "cursor"
	HarnessCopilotCLI = "copilot_cli"
)

// Harnesses lists every harness name a memory may hold, "funes" (an
// imported funes file that names none) included.
var Harnesses = []string{HarnessChatGPT, HarnessClaude, HarnessCodex, HarnessClaudeCode,
	HarnessGeminiCLI, HarnessOpenCode, HarnessCursor, HarnessCopilotCLI, "funes"}

// Block types, as written in the funes jsonl "block_type" field.
const (
	BlockText       = "text"
	BlockThinking   = "thinking"
	BlockToolUse    = "tool_use"
	BlockToolResult = "tool_result"
)

// Roles a turn may have.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
	RoleTool      = "tool"
)

// Block is one piece of a turn: text, thinking, or a tool call or result.
type Block struct {
	Type     string `json:"block_type"`
	Text     string `json:"text"`
	ToolName string `json:"tool_name,omitempty"`
}

// Turn is one message of a conversation: one line of a funes jsonl file.
type Turn struct {
	TurnUUID string    `json:"turn_uuid"`
	Seq      int       `json:"seq"`
	TS       time.Time `json:"ts"`
	Role     string    `json:"role"`
	Blocks   []Block   `json:"blocks"`
}

// Text joins the turn's blocks, blank-line separated.
func (t Turn) Text() string {
	n := 0
	for _, b := range t.Blocks {
		n += len(b.Text) + 2
	}
	buf := make([]byte, 0, n)
	for i, b := range t.Blocks {
		if i > 0 {
			buf = append(buf, '\n', '\n')
		}
		buf = append(buf, b.Text...)
	}
	return string(buf)
}

// Session is one conversation, verbatim, as one .funes.jsonl file holds it.
type Session struct {
	ID      string // the source's own conversation id
	Harness string // chatgpt, claude, codex, claude_code, …
	Title   string
	Workdir string // the working directory, for coding agents
	Project string // the project derived at import; may be empty
	Turns   []Turn
}

// Started is the time of the first turn with a time, or the zero time.
func (s *Session) Started() time.Time {
	for _, t := range s.Turns {
		if !t.TS.IsZero() {
			return t.TS
		}
	}
	return time.Time{}
}

// Updated is the latest turn time, or the zero time.
func (s *Session) Updated() time.Time {
	var u time.Time
	for _, t := range s.Turns {
		if t.TS.After(u) {
			u = t.TS
		}
	}
	return u
}
