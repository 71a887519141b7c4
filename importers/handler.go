package importers

import (
	"context"
	"io"

	"github.com/ireneo-app/ireneo/memory"
)

// Handler receives what a parser finds in one input.
type Handler struct {
	// Session is called with each conversation, in input order. An error
	// stops the parse and is returned by it.
	Session func(*memory.Session) error
	// Skip, if set, is told about a conversation that could not be read while
	// the rest of the input can: what names it, reason says why.
	Skip func(what, reason string)
	// Progress, if set, is told how many bytes of the input have been read.
	Progress func(read int64)
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
