package importers

import (
	"context"
	"io"

	"github.com/ireneo-app/ireneo/funes"
)

// Handler receives what a parser finds in one input.
type Handler struct {
	// Session is called with each conversation, in input order. An error
	// stops the parse and is returned by it.
	Session func(*funes.Session) error
	// Skip, if set, is told about a conversation that could not be read while
	// the rest of the input can: what names it, reason says why.
	Skip func(what, reason string)
	// Unreadable, if set, is told how many lines of the input could not be
	// read (and left out) while the rest could, and why the first could not.
	Unreadable func(lines int, first string)
	// Progress, if set, is told how many bytes of the input have been read.
	Progress func(read int64)
	// Lookup, if set, answers what the memory already holds, so a parser
	// can keep a turn once and give a sub-agent its parent's project.
	Lookup Lookup
	// Pending, if set, reports whether the conversation id is in an input
	// of this run that is still to be imported. A parser that copies turns
	// from such a conversation returns errDeferred, to be read again once
	// the original is stored.
	Pending func(id string) bool
	// Path is the plain file being read, "" for an archive's entry. Only
	// sources that keep one conversation in several files use it: a
	// database (opened by path), opencode's storage tree, the small files
	// Gemini CLI and Copilot CLI keep beside a session.
	Path string
}

// Lookup is what a parser may ask of the memory it imports into.
// *memory.Memory implements it.
type Lookup interface {
	// StoredTurns returns, of turnIDs, those stored in a conversation of
	// harness other than except, each with the ids of the conversations
	// holding it.
	StoredTurns(ctx context.Context, harness, except string, turnIDs []string) (map[string][]string, error)
	// StoredSession loads a stored conversation, and whether it is stored.
	StoredSession(ctx context.Context, harness, id string) (*funes.Session, bool, error)
	// Project returns a stored conversation's derived project.
	Project(ctx context.Context, harness, id string) (project string, ok bool, err error)
}

func (h Handler) skip(what, reason string) {
	if h.Skip != nil {
		h.Skip(what, reason)
	}
}

// parseFunc is the shape every parser has. name is the input's path as the
// person would recognise it; parsers use it for fallbacks (a session id from
// a file name) and never open it.
type parseFunc func(ctx context.Context, r io.Reader, name string, h Handler) error
