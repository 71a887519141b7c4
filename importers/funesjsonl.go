package importers

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ireneo-app/ireneo/funes"
)

// ParseFunesJSONL reads a funes jsonl file, as written by Ireneo or by
// funes itself. Bad lines are skipped by funes.ReadSessions and reported
// as one skip naming the first.
func ParseFunesJSONL(ctx context.Context, r io.Reader, name string, h Handler) error {
	cr := &countReader{ctx: ctx, r: r, progress: h.Progress}
	sessions, st, err := funes.ReadSessions(cr)
	if errors.Is(err, funes.ErrNoTurns) {
		if st.Bad > 0 {
			return fmt.Errorf("no usable funes jsonl line (%d bad; %s)", st.Bad, st.FirstBad)
		}
		return errNoConversation
	}
	if err != nil {
		return err
	}
	reportUnreadable(h, st.Bad, st.FirstBad)
	for _, s := range sessions {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !tidyFunes(s) {
			h.skip("conversation "+s.ID, "no turn with any text")
			continue
		}
		if err := h.Session(s); err != nil {
			return err
		}
	}
	return nil
}

// tidyFunes brings a conversation read from funes jsonl to what every
// parser yields: no blank block, no turn without blocks, turns numbered in
// order with unique ids, UTC times, a title. Ireneo's own files are so
// already; a hand-edited or foreign one may not be. It reports false when
// no turn is left.
func tidyFunes(s *funes.Session) bool {
	kept := s.Turns[:0]
	for _, t := range s.Turns {
		blocks := t.Blocks[:0]
		for _, b := range t.Blocks {
			if !blank(b.Text) {
				blocks = append(blocks, b)
			}
		}
		if len(blocks) == 0 {
			continue
		}
		t.Blocks = blocks
		if !t.TS.IsZero() {
			t.TS = t.TS.UTC()
		}
		kept = append(kept, t)
	}
	s.Turns = kept
	if len(s.Turns) == 0 {
		return false
	}
	dedupeTurnIDs(s)
	number(s)
	if blank(s.Title) {
		s.Title = titleFrom(s.Turns)
	}
	return true
}
