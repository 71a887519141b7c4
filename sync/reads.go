package sync

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/ireneo-app/ireneo/memory"
)

// What a pass reads of the memory, in one read transaction (memory.ReadTx)
// over the tables memory/schema.go documents: every stored conversation
// with its tags and star, and every tombstone.

// storedConversation is one stored conversation as sync compares it.
type storedConversation struct {
	Harness, SessionID string
	Hash               string // of its funes jsonl file, as stored
	Path               string // its file, relative to the memory directory
	Turns              int
	Updated            int64 // Unix seconds of its latest turn; 0 if undated
	Bytes              int64
	DerivedProject     string // the project its file carries, trimmed
	Projects           []string
	Starred            bool
}

// storedSnapshot is the whole memory as sync compares it: every stored
// conversation with its tags and star, and every tombstone's hash.
type storedSnapshot struct {
	Conversations []storedConversation
	Tombstones    map[string]int64 // hash → when forgotten (Unix seconds)
}

// readStored reads every conversation, tag, star and tombstone of m in one
// read transaction.
func readStored(ctx context.Context, m *memory.Memory) (storedSnapshot, error) {
	snap := storedSnapshot{Tombstones: map[string]int64{}}
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return snap, fmt.Errorf("read the memory for sync: %w", err)
	}
	defer rt.Close()
	at := map[string]int{}
	err = memory.EachRow(ctx, rt, `SELECT harness, session_id, hash, path, turns, updated, bytes, derived_project FROM sessions ORDER BY harness, session_id`, nil, func(r *sql.Rows) error {
		var c storedConversation
		if err := r.Scan(&c.Harness, &c.SessionID, &c.Hash, &c.Path, &c.Turns, &c.Updated, &c.Bytes, &c.DerivedProject); err != nil {
			return err
		}
		c.DerivedProject = strings.TrimSpace(c.DerivedProject)
		at[c.Harness+"\x00"+c.SessionID] = len(snap.Conversations)
		snap.Conversations = append(snap.Conversations, c)
		return nil
	})
	if err == nil {
		err = memory.EachRow(ctx, rt, `SELECT harness, session_id, project FROM session_projects ORDER BY 1,2,3`, nil, func(r *sql.Rows) error {
			var h, id, p string
			if err := r.Scan(&h, &id, &p); err != nil {
				return err
			}
			if i, ok := at[h+"\x00"+id]; ok {
				snap.Conversations[i].Projects = append(snap.Conversations[i].Projects, p)
			}
			return nil
		})
	}
	if err == nil {
		err = memory.EachRow(ctx, rt, `SELECT harness, session_id FROM stars WHERE starred`, nil, func(r *sql.Rows) error {
			var h, id string
			if err := r.Scan(&h, &id); err != nil {
				return err
			}
			if i, ok := at[h+"\x00"+id]; ok {
				snap.Conversations[i].Starred = true
			}
			return nil
		})
	}
	if err == nil {
		err = memory.EachRow(ctx, rt, `SELECT hash, forgotten FROM tombstones`, nil, func(r *sql.Rows) error {
			var h string
			var when int64
			err := r.Scan(&h, &when)
			snap.Tombstones[h] = when
			return err
		})
	}
	if err != nil {
		return snap, fmt.Errorf("read the memory for sync: %w", err)
	}
	return snap, nil
}
