package memscrub

// FieldAudit marks a finding in the audit log: the arguments an agent's
// call was recorded with.
const FieldAudit = "audit"

// Finding is one secret found in a stored conversation or in the audit
// log. It never holds the secret: only where it is, the rule, and a masked
// preview.
type Finding struct {
	// ID names the finding for --allow: a keyed hash of rule, conversation and
	// secret, so the same secret twice in one conversation shares an id (and
	// the same secret anywhere in the audit log).
	ID        string `json:"id"`
	Source    string `json:"source"`
	SessionID string `json:"session_id"`
	TurnUUID  string `json:"turn_uuid,omitempty"`
	Seq       int    `json:"seq"`   // the turn's seq; -1 for the session's own fields and the audit log
	Block     int    `json:"block"` // the block's index in the turn; -1 likewise
	// Field says which text holds the secret: one of package redact's
	// Field names (FieldTitle, FieldWorkdir, FieldProject, FieldToolName,
	// FieldProjectTag, empty for a block's text) or FieldAudit.
	Field   string `json:"field,omitempty"`
	AuditID int64  `json:"audit_id,omitempty"` // the audit row, for FieldAudit
	Rule    string `json:"rule"`
	Start   int    `json:"start"` // byte offsets of the secret in that text
	End     int    `json:"end"`
	Preview string `json:"preview"` // first and last two characters
	// TextLen is the byte length of the text the secret was found in,
	// before any redaction: another machine finds the secret by it.
	TextLen int `json:"-"`

	// Hash is the finding's full keyed hash, which the allow-list keeps;
	// ID is its first FindingIDLen hex digits.
	Hash string `json:"-"`
}

// FindingIDLen is how many hex digits of a finding's hash its id shows.
const FindingIDLen = 12
