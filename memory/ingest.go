package memory

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ireneo-app/ireneo/funes"
)

// Outcomes of ingesting one session.
const (
	OutcomeNew       = "new"
	OutcomeUpdated   = "updated"
	OutcomeUnchanged = "unchanged"
	OutcomeForgotten = "forgotten"
	// OutcomeOlder is a copy that holds less than the stored one (a strict
	// prefix of its turns, or an older last turn); the stored one stays.
	OutcomeOlder = "older"
)

// ErrPathTaken is returned for a conversation whose file name is already
// another conversation's: it is refused rather than written over the other.
var ErrPathTaken = errors.New("file name already holds another conversation")

// IngestOptions tunes an ingest.
type IngestOptions struct {
	// IncludeForgotten brings back sessions that were forgotten before the
	// import started; a forget during the import still wins.
	IncludeForgotten bool
	// Redact, if set, edits each session in place before it is written or
	// indexed and returns its redactions per rule id.
	Redact func(*funes.Session) map[string]int
}

// IngestReport says what an ingest did.
type IngestReport struct {
	New       int              `json:"new"`
	Updated   int              `json:"updated"`
	Unchanged int              `json:"unchanged"`
	Forgotten int              `json:"forgotten"`
	Older     int              `json:"older"` // older copies skipped: the stored one holds more
	Redacted  map[string]int   `json:"redacted,omitempty"`
	Sessions  []SessionOutcome `json:"sessions,omitempty"`
}

// SessionOutcome is what happened to one session.
type SessionOutcome struct {
	Harness   string `json:"harness"`
	SessionID string `json:"session_id"`
	Title     string `json:"title"`
	Outcome   string `json:"outcome"`
}

func (r *IngestReport) add(o SessionOutcome) {
	switch o.Outcome {
	case OutcomeNew:
		r.New++
	case OutcomeUpdated:
		r.Updated++
	case OutcomeUnchanged:
		r.Unchanged++
	case OutcomeForgotten:
		r.Forgotten++
	case OutcomeOlder:
		r.Older++
	}
	r.Sessions = append(r.Sessions, o)
}

// Merge adds another report's counts to r.
func (r *IngestReport) Merge(o IngestReport) {
	r.New += o.New
	r.Updated += o.Updated
	r.Unchanged += o.Unchanged
	r.Forgotten += o.Forgotten
	r.Older += o.Older
	for k, v := range o.Redacted {
		if r.Redacted == nil {
			r.Redacted = map[string]int{}
		}
		r.Redacted[k] += v
	}
	r.Sessions = append(r.Sessions, o.Sessions...)
}

// Ingest stages and commits sessions in one call.
func (m *Memory) Ingest(ctx context.Context, sessions []*funes.Session, opts IngestOptions) (IngestReport, error) {
	b, err := m.NewBatch(opts)
	if err != nil {
		return IngestReport{}, err
	}
	for _, s := range sessions {
		if err := b.Add(ctx, s); err != nil {
			b.Discard()
			return IngestReport{}, err
		}
	}
	return b.Commit(ctx, nil)
}

func validate(s *funes.Session) error {
	switch {
	case s == nil:
		return errors.New("nil session")
	case strings.TrimSpace(s.ID) == "":
		return errors.New("session without an id")
	case strings.TrimSpace(s.Harness) == "":
		return fmt.Errorf("session %s: no harness", s.ID)
	case len(s.Turns) == 0:
		return fmt.Errorf("session %s: no turns", s.ID)
	}
	return nil
}

var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// srcPath is where a new session's file goes, relative to the memory
// directory. A stored session keeps the path it was given (sessions.path).
func srcPath(harness, id string) string {
	return filepath.Join(SrcDir, fileName(harness, "h-"), fileName(id, "id-")+".funes.jsonl")
}

// fileName keeps a plain name as it is and hashes anything else behind
// prefix, so no name can escape src/. A name that starts with the prefix
// (in any case) is hashed too: a plain name can never equal a hashed one,
// which keeps the mapping one to one.
func fileName(name, prefix string) string {
	if safeName.MatchString(name) && !strings.Contains(name, "..") && !strings.HasPrefix(strings.ToLower(name), prefix) {
		return name
	}
	return prefix + shortHash(name)
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}

// tombstoneHash identifies a forgotten session without keeping its text.
func tombstoneHash(harness, id string) string {
	sum := sha256.Sum256([]byte(harness + "\x00" + id))
	return hex.EncodeToString(sum[:])
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (m *Memory) isTombstoned(ctx context.Context, harness, id string) (bool, error) {
	when, err := tombstoneTime(ctx, m.db, harness, id)
	return when != 0, err
}
