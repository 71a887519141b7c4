package answer

import "time"

// What get and sessions show of the memory, as package conversations reads
// it (conversations.List answers in Conversation itself; a Transcript turns
// into a Window): the JSON of each is the CLI's --json answer, so it is
// written here, field for field.

// Conversation is one conversation as the catalog describes it.
type Conversation struct {
	SessionID string    `json:"session_id"`
	Source    string    `json:"source"`
	Title     string    `json:"title"`
	Workdir   string    `json:"workdir,omitempty"`
	Projects  []string  `json:"projects"`
	Started   time.Time `json:"started"`
	Updated   time.Time `json:"updated"`
	Turns     int       `json:"turns"`
	Tokens    int       `json:"tokens"`
	Bytes     int64     `json:"bytes"`
	Starred   bool      `json:"starred"`
}

// Window is a conversation, or the turns of it around one turn, verbatim.
type Window struct {
	Session Conversation `json:"session"`
	Focus   int          `json:"focus"` // seq of the turn asked for, or -1
	Turns   []Turn       `json:"turns"`
}

// Turn is one message of a conversation, as a funes jsonl line holds it.
type Turn struct {
	TurnUUID string    `json:"turn_uuid"`
	Seq      int       `json:"seq"`
	TS       time.Time `json:"ts"`
	Role     string    `json:"role"`
	Blocks   []Block   `json:"blocks"`
}

// Block is one piece of a turn: text, thinking, or a tool call or result.
type Block struct {
	Type     string `json:"block_type"`
	Text     string `json:"text"`
	ToolName string `json:"tool_name,omitempty"`

	// Folds are the parts of Text that are no one's words (Ireneo's own
	// answers, harness plumbing; package plumbing tells them): the MCP get
	// shows each as one line, as the transcript screen shows them folded.
	Folds []Fold `json:"-"`
}

// Block types as the funes jsonl writes them.
const (
	BlockText       = "text"
	BlockThinking   = "thinking"
	BlockToolUse    = "tool_use"
	BlockToolResult = "tool_result"
)

// Fold is Text[Start:End] of a block, shown as "[Label, not shown]".
type Fold struct {
	Start, End int
	Label      string
}

// Undated is how a day or a minute shows the zero time.
const Undated = "undated"

// day is a date as every answer shows it, in UTC (as memory.Day).
func day(t time.Time) string {
	if t.IsZero() {
		return Undated
	}
	return t.UTC().Format(time.DateOnly)
}
