// Package funestest makes small conversations for tests: the one shape
// the tests of memory, recall, insights and redact all build their
// memories from. It imports only funes, so any package's tests (memory's
// own included) may use it.
package funestest

import (
	"fmt"
	"time"

	"github.com/ireneo-app/ireneo/funes"
)

// Day0 is a date tests start their conversations on.
var Day0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// Conv makes a conversation whose turns alternate user and assistant, a
// minute apart from start, one text block each. Turn i's uuid is
// "<id>-t<i>".
func Conv(id, harness, title, project string, start time.Time, texts ...string) *funes.Session {
	s := &funes.Session{ID: id, Harness: harness, Title: title, Project: project}
	for i, tx := range texts {
		role := funes.RoleUser
		if i%2 == 1 {
			role = funes.RoleAssistant
		}
		s.Turns = append(s.Turns, funes.Turn{
			TurnUUID: fmt.Sprintf("%s-t%d", id, i), Seq: i, TS: start.Add(time.Duration(i) * time.Minute), Role: role,
			Blocks: []funes.Block{{Type: funes.BlockText, Text: tx}},
		})
	}
	return s
}
