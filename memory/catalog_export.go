package memory

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Catalog is the person's own choices as a backup carries them: project
// tags, stars, the conversations already seen (so a derived project the
// person removed is not put back), tombstones, the scrub allow-list with
// the key its ids are made with, and the scrub history. It holds no
// conversation text, no token and no audit log.
type Catalog struct {
	Tags         []CatalogTag       `json:"tags"`
	Stars        []CatalogRef       `json:"stars"`
	Known        []CatalogKnown     `json:"known_sessions"`
	Tombstones   []CatalogTombstone `json:"tombstones"`
	ScrubKey     string             `json:"scrub_key,omitempty"`
	ScrubAllow   []CatalogAllow     `json:"scrub_allow"`
	ScrubHistory []CatalogScrub     `json:"scrub_history"`
}

// CatalogRef names a conversation.
type CatalogRef struct {
	Source    string `json:"source"`
	SessionID string `json:"session_id"`
}

// CatalogTag is one project on one conversation.
type CatalogTag struct {
	CatalogRef
	Project string `json:"project"`
}

// CatalogKnown is a conversation Ireneo has seen, and when it first did.
type CatalogKnown struct {
	CatalogRef
	FirstSeen int64 `json:"first_seen"`
}

// CatalogTombstone is a forgotten conversation: a hash, never its id.
type CatalogTombstone struct {
	Hash      string `json:"hash"`
	Forgotten int64  `json:"forgotten"`
}

// CatalogAllow is a remembered scrub false positive.
type CatalogAllow struct {
	Hash  string `json:"hash"`
	Rule  string `json:"rule"`
	Added int64  `json:"added"`
}

// CatalogScrub is one scrub history row: when, and counts per rule.
type CatalogScrub struct {
	TS     int64           `json:"ts"`
	Counts json.RawMessage `json:"counts"`
}

// ExportCatalog reads the catalog in one read transaction, so its parts
// agree with each other.
func (m *Memory) ExportCatalog(ctx context.Context) (Catalog, error) {
	c := Catalog{Tags: []CatalogTag{}, Stars: []CatalogRef{}, Known: []CatalogKnown{}, Tombstones: []CatalogTombstone{},
		ScrubAllow: []CatalogAllow{}, ScrubHistory: []CatalogScrub{}}
	tx, err := m.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return c, fmt.Errorf("export catalog: %w", err)
	}
	defer tx.Rollback()
	each := func(q string, scan func(*sql.Rows) error) error {
		if err != nil {
			return err
		}
		return EachRow(ctx, tx, q, nil, scan)
	}
	err = each(`SELECT harness, session_id, project FROM session_projects ORDER BY 1,2,3`, func(r *sql.Rows) error {
		var t CatalogTag
		err := r.Scan(&t.Source, &t.SessionID, &t.Project)
		c.Tags = append(c.Tags, t)
		return err
	})
	err = each(`SELECT harness, session_id FROM stars WHERE starred ORDER BY 1,2`, func(r *sql.Rows) error {
		var s CatalogRef
		err := r.Scan(&s.Source, &s.SessionID)
		c.Stars = append(c.Stars, s)
		return err
	})
	err = each(`SELECT harness, session_id, first_seen FROM known_sessions ORDER BY 1,2`, func(r *sql.Rows) error {
		var k CatalogKnown
		err := r.Scan(&k.Source, &k.SessionID, &k.FirstSeen)
		c.Known = append(c.Known, k)
		return err
	})
	err = each(`SELECT hash, forgotten FROM tombstones ORDER BY 1`, func(r *sql.Rows) error {
		var t CatalogTombstone
		err := r.Scan(&t.Hash, &t.Forgotten)
		c.Tombstones = append(c.Tombstones, t)
		return err
	})
	err = each(`SELECT hash, rule, added FROM scrub_allow ORDER BY 1`, func(r *sql.Rows) error {
		var a CatalogAllow
		err := r.Scan(&a.Hash, &a.Rule, &a.Added)
		c.ScrubAllow = append(c.ScrubAllow, a)
		return err
	})
	err = each(`SELECT ts, counts FROM scrub_history ORDER BY ts, id`, func(r *sql.Rows) error {
		var h CatalogScrub
		var counts string
		err := r.Scan(&h.TS, &counts)
		h.Counts = json.RawMessage(counts)
		c.ScrubHistory = append(c.ScrubHistory, h)
		return err
	})
	err = each(`SELECT value FROM meta WHERE key='scrub_key'`, func(r *sql.Rows) error { return r.Scan(&c.ScrubKey) })
	if err != nil {
		return c, fmt.Errorf("export catalog: %w", err)
	}
	return c, nil
}

// Validate checks a catalog read from outside (a backup) before anything
// of it is stored.
func (c Catalog) Validate() error {
	ref := func(what string, r CatalogRef) error {
		if strings.TrimSpace(r.Source) == "" || strings.TrimSpace(r.SessionID) == "" {
			return fmt.Errorf("%s: a conversation without a source or an id", what)
		}
		return nil
	}
	for _, t := range c.Tags {
		if err := ref("tags", t.CatalogRef); err != nil {
			return err
		}
		if _, err := cleanProject(t.Project); err != nil || t.Project != strings.TrimSpace(t.Project) {
			return fmt.Errorf("tags: project %q of %s: not a project name", t.Project, t.SessionID)
		}
	}
	for _, s := range c.Stars {
		if err := ref("stars", s); err != nil {
			return err
		}
	}
	for _, k := range c.Known {
		if err := ref("known_sessions", k.CatalogRef); err != nil {
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

// CatalogImport says what ImportCatalog added.
type CatalogImport struct {
	Tags       int `json:"tags"`
	Stars      int `json:"stars"`
	Tombstones int `json:"tombstones"`
	ScrubAllow int `json:"scrub_allow"`
	// ScrubAllowSkipped counts allow-list entries left out because this
	// memory already has an allow-list made with another key.
	ScrubAllowSkipped int `json:"scrub_allow_skipped"`
	ScrubHistory      int `json:"scrub_history"`
}

// ImportCatalog adds a catalog to this memory's, in one transaction; it
// only adds, never removes. With onlyStored (a merge into a memory that
// has conversations) tags and stars are added only to conversations it
// holds, and a tombstone is not added for a conversation it holds, so a
// merge forgets nothing. Without it (a restore into an empty memory,
// before the index is rebuilt) everything is added.
func (m *Memory) ImportCatalog(ctx context.Context, c Catalog, onlyStored bool) (CatalogImport, error) {
	var rep CatalogImport
	if err := c.Validate(); err != nil {
		return rep, err
	}
	err := m.withTx(ctx, func(tx *sql.Tx) error {
		stored := map[string]bool{}   // harness\x00id of stored conversations
		storedTS := map[string]bool{} // their tombstone hashes
		if onlyStored {
			err := EachRow(ctx, tx, `SELECT harness, session_id FROM sessions`, nil, func(rows *sql.Rows) error {
				var h, id string
				err := rows.Scan(&h, &id)
				stored[h+"\x00"+id] = true
				storedTS[tombstoneHash(h, id)] = true
				return err
			})
			if err != nil {
				return err
			}
		}
		keep := func(r CatalogRef) bool { return !onlyStored || stored[r.Source+"\x00"+r.SessionID] }
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
			if keep(t.CatalogRef) {
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
		var key string
		var allowed int
		tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='scrub_key'`).Scan(&key)
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM scrub_allow`).Scan(&allowed); err != nil {
			return err
		}
		switch {
		case c.ScrubKey == "" || c.ScrubKey == key:
		case allowed == 0:
			if err := m.metaSet(ctx, tx, "scrub_key", c.ScrubKey); err != nil {
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

// IsForgotten says whether a conversation has a tombstone.
func (m *Memory) IsForgotten(ctx context.Context, harness, sessionID string) (bool, error) {
	return m.isTombstoned(ctx, harness, sessionID)
}
