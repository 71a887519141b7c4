package memory

import (
	"context"
	"strings"
)

// The person's choices — tags, stars, project renames, forget and scrub
// redactions — are reported, once committed, to the memory's
// ChoiceObserver, whichever front end made them: package sync journals
// them so they reach the person's other machines. Memory knows nothing of
// sync; it only calls the observer it was given.

// ChoiceKind names one kind of choice.
type ChoiceKind string

// The choices reported.
const (
	ChoiceTag    ChoiceKind = "tag"
	ChoiceUntag  ChoiceKind = "untag"
	ChoiceStar   ChoiceKind = "star"
	ChoiceUnstar ChoiceKind = "unstar"
	ChoiceRename ChoiceKind = "rename"
	ChoiceForget ChoiceKind = "forget"
	ChoiceRedact ChoiceKind = "redact"
)

// Choice is one committed choice.
type Choice struct {
	Kind ChoiceKind
	// Harness and SessionID name the conversation (every kind but rename).
	Harness, SessionID string
	// Projects are the projects tagged or untagged, trimmed.
	Projects []string
	// From and To are a rename's old and new project names.
	From, To string
	// Redactions are what a scrub redacted in the conversation.
	Redactions []Redaction
}

// Redaction is one secret a scrub redacted in a conversation: its place
// and rule, never the secret.
type Redaction struct {
	TurnUUID string
	Seq      int // the turn's seq; -1 for the conversation's own fields
	Block    int // the block's index in the turn; -1 likewise
	// Field says which text held it: one of package redact's Field names,
	// empty for a block's text.
	Field      string
	Rule       string
	Start, End int // byte offsets of the secret in the text it was in
	// Len is that text's byte length before the scrub. The observer reads
	// the place from it rather than from the memory, which a sync pass may
	// have changed again by the time it hears of the scrub.
	Len int
}

// ChoiceObserver hears of each committed choice. Chose is called on the
// goroutine that made the choice, after its transaction committed (a
// scrub's redactions: just before, see Rewrite.Commit); it must
// not call back into the memory's writers, and it cannot fail the choice.
type ChoiceObserver interface {
	Chose(ctx context.Context, c Choice)
}

// ObserveChoices sets the observer (nil: none).
func (m *Memory) ObserveChoices(o ChoiceObserver) {
	if o == nil {
		m.observer.Store(nil)
		return
	}
	m.observer.Store(&o)
}

type unobservedKey struct{}

// Unobserved marks ctx so that the choices made with it are not reported:
// package sync applies choices made on other machines with it, which are
// journaled already.
func Unobserved(ctx context.Context) context.Context {
	return context.WithValue(ctx, unobservedKey{}, true)
}

// reported tells the observer of c when err is nil, and returns err.
func (m *Memory) reported(ctx context.Context, c Choice, err error) error {
	if err != nil {
		return err
	}
	p := m.observer.Load()
	if p == nil || ctx.Value(unobservedKey{}) != nil {
		return nil
	}
	if c.Harness == "" && c.SessionID != "" {
		ref, ferr := findSession(ctx, m.db, c.SessionID, nil)
		if ferr != nil {
			return nil // gone meanwhile (a forget): nothing left to report
		}
		c.Harness, c.SessionID = ref.harness, ref.sid
	}
	projects := make([]string, len(c.Projects))
	for i, pr := range c.Projects {
		projects[i] = strings.TrimSpace(pr)
	}
	c.Projects = projects
	c.To = strings.TrimSpace(c.To)
	(*p).Chose(ctx, c)
	return nil
}

func starKind(on bool) ChoiceKind {
	if on {
		return ChoiceStar
	}
	return ChoiceUnstar
}
