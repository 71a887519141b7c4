package importers

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ireneo-app/ireneo/memory"
)

// ParseFunesJSONL reads a funes jsonl file, as written by Ireneo or by
// funes itself. Bad lines are skipped by memory.ReadSessions and reported
// as one skip naming the first.
func ParseFunesJSONL(ctx context.Context, r io.Reader, name string, h Handler) error {
	cr := &countReader{ctx: ctx, r: r, progress: h.Progress}
	sessions, st, err := memory.ReadSessions(cr)
	if errors.Is(err, memory.ErrNoTurns) {
		if st.Bad > 0 {
			return fmt.Errorf("no usable funes jsonl line (%d bad; %s)", st.Bad, st.FirstBad)
		}
		return errNoConversation
	}
	if err != nil {
		return err
	}
	if st.Bad > 0 {
		h.skip(fmt.Sprintf("%d bad lines", st.Bad), st.FirstBad)
	}
	for _, s := range sessions {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := h.Session(s); err != nil {
			return err
		}
	}
	return nil
}
