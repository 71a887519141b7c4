// Package catalog is the snapshot of a memory's catalog, the person's own
// choices, as they leave one memory and come into another: Export reads
// it, Validate checks one read from outside, Import adds one to a memory.
// Package backup carries it in an archive (catalog.json) and restores it;
// package sync adds through it the tombstones of conversations forgotten
// on another machine. It reads in one memory.ReadTx and writes in one
// memory.WriteCatalog transaction over the tables memory/schema.go keeps
// (the schema and its migrations stay memory's); the conversations, the
// index, tokens and the audit log are never in it.
package catalog

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ireneo-app/ireneo/memory"
)

// scrubKeyMeta is the meta row the scrub key is kept in: the key the
// allow-list's ids are made with (memory makes it on a first scrub).
const scrubKeyMeta = "scrub_key"

// Snapshot is the person's own choices as a backup carries them: project
// tags, stars, the conversations already seen (so a derived project the
// person removed is not put back), tombstones, the scrub allow-list with
// the key its ids are made with, and the scrub history. It holds no
// conversation text, no token and no audit log.
type Snapshot struct {
	Tags         []Tag       `json:"tags"`
	Stars        []Ref       `json:"stars"`
	Known        []Known     `json:"known_sessions"`
	Tombstones   []Tombstone `json:"tombstones"`
	ScrubKey     string      `json:"scrub_key,omitempty"`
	ScrubAllow   []Allowed   `json:"scrub_allow"`
	ScrubHistory []ScrubRun  `json:"scrub_history"`
}

// Ref names a conversation.
type Ref struct {
	Source    string `json:"source"`
	SessionID string `json:"session_id"`
}

// Tag is one project on one conversation.
type Tag struct {
	Ref
	Project string `json:"project"`
}

// Known is a conversation Ireneo has seen, and when it first did.
type Known struct {
	Ref
	FirstSeen int64 `json:"first_seen"`
}

// Tombstone is a forgotten conversation: a hash (memory.ConversationHash),
// never its id.
type Tombstone struct {
	Hash      string `json:"hash"`
	Forgotten int64  `json:"forgotten"`
}

// Allowed is a remembered scrub false positive.
type Allowed struct {
	Hash  string `json:"hash"`
	Rule  string `json:"rule"`
	Added int64  `json:"added"`
}

// ScrubRun is one scrub history row: when, and counts per rule.
type ScrubRun struct {
	TS     int64           `json:"ts"`
	Counts json.RawMessage `json:"counts"`
}

// Export reads m's catalog in one read transaction, so its parts agree
// with each other.
func Export(ctx context.Context, m *memory.Memory) (Snapshot, error) {
	c := Snapshot{Tags: []Tag{}, Stars: []Ref{}, Known: []Known{}, Tombstones: []Tombstone{},
		ScrubAllow: []Allowed{}, ScrubHistory: []ScrubRun{}}
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return c, fmt.Errorf("export catalog: %w", err)
	}
	defer rt.Close()
	each := func(q string, scan func(*sql.Rows) error) error {
		if err != nil {
			return err
		}
		return memory.EachRow(ctx, rt, q, nil, scan)
	}
	err = each(`SELECT harness, session_id, project FROM session_projects ORDER BY 1,2,3`, func(r *sql.Rows) error {
		var t Tag
		err := r.Scan(&t.Source, &t.SessionID, &t.Project)
		c.Tags = append(c.Tags, t)
		return err
	})
	err = each(`SELECT harness, session_id FROM stars WHERE starred ORDER BY 1,2`, func(r *sql.Rows) error {
		var s Ref
		err := r.Scan(&s.Source, &s.SessionID)
		c.Stars = append(c.Stars, s)
		return err
	})
	err = each(`SELECT harness, session_id, first_seen FROM known_sessions ORDER BY 1,2`, func(r *sql.Rows) error {
		var k Known
		err := r.Scan(&k.Source, &k.SessionID, &k.FirstSeen)
		c.Known = append(c.Known, k)
		return err
	})
	err = each(`SELECT hash, forgotten FROM tombstones ORDER BY 1`, func(r *sql.Rows) error {
		var t Tombstone
		err := r.Scan(&t.Hash, &t.Forgotten)
		c.Tombstones = append(c.Tombstones, t)
		return err
	})
	err = each(`SELECT hash, rule, added FROM scrub_allow ORDER BY 1`, func(r *sql.Rows) error {
		var a Allowed
		err := r.Scan(&a.Hash, &a.Rule, &a.Added)
		c.ScrubAllow = append(c.ScrubAllow, a)
		return err
	})
	err = each(`SELECT ts, counts FROM scrub_history ORDER BY ts, id`, func(r *sql.Rows) error {
		var h ScrubRun
		var counts string
		err := r.Scan(&h.TS, &counts)
		h.Counts = json.RawMessage(counts)
		c.ScrubHistory = append(c.ScrubHistory, h)
		return err
	})
	err = each(`SELECT value FROM meta WHERE key='`+scrubKeyMeta+`'`, func(r *sql.Rows) error { return r.Scan(&c.ScrubKey) })
	if err != nil {
		return c, fmt.Errorf("export catalog: %w", err)
	}
	return c, nil
}

// Validate checks a snapshot read from outside (a backup) before anything
// of it is stored.
func (c Snapshot) Validate() error {
	ref := func(what string, r Ref) error {
		if strings.TrimSpace(r.Source) == "" || strings.TrimSpace(r.SessionID) == "" {
			return fmt.Errorf("%s: a conversation without a source or an id", what)
		}
		return nil
	}
	for _, t := range c.Tags {
		if err := ref("tags", t.Ref); err != nil {
			return err
		}
		if _, err := memory.CleanProject(t.Project); err != nil || t.Project != strings.TrimSpace(t.Project) {
			return fmt.Errorf("tags: project %q of %s: not a project name", t.Project, t.SessionID)
		}
	}
	for _, s := range c.Stars {
		if err := ref("stars", s); err != nil {
			return err
		}
	}
	for _, k := range c.Known {
		if err := ref("known_sessions", k.Ref); err != nil {
			return err
		}
	}
	for _, t := range c.Tombstones {
		if !isHexHash(t.Hash) {
			return fmt.Errorf("tombstones: %q is not a sha256 hash", t.Hash)
		}
	}
	for _, a := range c.ScrubAllow {
		if !isHexHash(a.Hash) || a.Rule == "" {
			return fmt.Errorf("scrub_allow: entry %q for rule %q is not valid", a.Hash, a.Rule)
		}
	}
	for _, h := range c.ScrubHistory {
		var counts map[string]int
		if json.Unmarshal(h.Counts, &counts) != nil {
			return fmt.Errorf("scrub_history: a row's counts are not counts per rule")
		}
	}
	if c.ScrubKey != "" {
		if k, err := hex.DecodeString(c.ScrubKey); err != nil || len(k) != 32 {
			return errors.New("scrub_key: not a 32-byte hex key")
		}
	}
	return nil
}

func isHexHash(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 32 && strings.ToLower(s) == s
}

// Added says what Import added.
type Added struct {
	Tags       int `json:"tags"`
	Stars      int `json:"stars"`
	Tombstones int `json:"tombstones"`
	ScrubAllow int `json:"scrub_allow"`
	// ScrubAllowSkipped counts allow-list entries left out because this
	// memory already has an allow-list made with another key.
	ScrubAllowSkipped int `json:"scrub_allow_skipped"`
	ScrubHistory      int `json:"scrub_history"`
}

// Import adds a snapshot to m's catalog, in one transaction; it only
// adds, never removes. With onlyStored (a merge into a memory that has
// conversations) tags and stars are added only to conversations it holds,
// and a tombstone is not added for a conversation it holds, so a merge
// forgets nothing. Without it (a restore into an empty memory, before the
// index is rebuilt) everything is added.
func Import(ctx context.Context, m *memory.Memory, c Snapshot, onlyStored bool) (Added, error) {
	var rep Added
	if err := c.Validate(); err != nil {
		return rep, err
	}
	err := m.WriteCatalog(ctx, func(tx *memory.CatalogTx) error {
		stored := map[Ref]bool{}      // stored conversations
		storedTS := map[string]bool{} // their tombstone hashes
		if onlyStored {
			err := memory.EachRow(ctx, tx, `SELECT harness, session_id FROM sessions`, nil, func(rows *sql.Rows) error {
				var r Ref
				err := rows.Scan(&r.Source, &r.SessionID)
				stored[r] = true
				storedTS[memory.ConversationHash(r.Source, r.SessionID)] = true
				return err
			})
			if err != nil {
				return err
			}
		}
		keep := func(r Ref) bool { return !onlyStored || stored[r] }
		added := func(res sql.Result, err error, n *int) error {
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k > 0 {
				*n += int(k)
			}
			return nil
		}
		var ignored int
		for _, k := range c.Known {
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO known_sessions(harness,session_id,first_seen) VALUES(?,?,?)`, k.Source, k.SessionID, k.FirstSeen)
			if err := added(res, err, &ignored); err != nil {
				return err
			}
		}
		for _, t := range c.Tags {
			if keep(t.Ref) {
				res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO session_projects(harness,session_id,project) VALUES(?,?,?)`, t.Source, t.SessionID, t.Project)
				if err := added(res, err, &rep.Tags); err != nil {
					return err
				}
			}
		}
		for _, s := range c.Stars {
			if keep(s) {
				res, err := tx.ExecContext(ctx, `INSERT INTO stars(harness,session_id,starred) VALUES(?,?,1) ON CONFLICT DO UPDATE SET starred=1 WHERE starred=0`, s.Source, s.SessionID)
				if err := added(res, err, &rep.Stars); err != nil {
					return err
				}
			}
		}
		for _, t := range c.Tombstones {
			if !storedTS[t.Hash] {
				res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO tombstones(hash, forgotten) VALUES(?,?)`, t.Hash, t.Forgotten)
				if err := added(res, err, &rep.Tombstones); err != nil {
					return err
				}
			}
		}
		// Allow-list ids are keyed hashes: they carry over only with their key.
		key, err := tx.Meta(ctx, scrubKeyMeta)
		if err != nil {
			return err
		}
		var allowed int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM scrub_allow`).Scan(&allowed); err != nil {
			return err
		}
		switch {
		case c.ScrubKey == "" || c.ScrubKey == key:
		case allowed == 0:
			if err := tx.SetMeta(ctx, scrubKeyMeta, c.ScrubKey); err != nil {
				return err
			}
			key = c.ScrubKey
		}
		for _, a := range c.ScrubAllow {
			if c.ScrubKey != key {
				rep.ScrubAllowSkipped++
				continue
			}
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO scrub_allow(hash, rule, added) VALUES(?,?,?)`, a.Hash, a.Rule, a.Added)
			if err := added(res, err, &rep.ScrubAllow); err != nil {
				return err
			}
		}
		for _, h := range c.ScrubHistory {
			res, err := tx.ExecContext(ctx, `INSERT INTO scrub_history(ts, counts) SELECT ?1, ?2
				WHERE NOT EXISTS(SELECT 1 FROM scrub_history WHERE ts=?1 AND counts=?2)`, h.TS, string(h.Counts))
			if err := added(res, err, &rep.ScrubHistory); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("import catalog: %w", err)
	}
	return rep, nil
}
