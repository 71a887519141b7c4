package memscrub

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ireneo-app/ireneo/memory"
)

// What a scrub reads of the memory, through one memory.ReadTx each, over
// the tables memory/schema.go documents: the conversations it scans (their
// text it loads with memory's LoadSession), the allow-list, the project
// tags, the audit log's recorded arguments, the key for finding hashes
// (catalog.go), and the history of past scrubs.

// conversation names one stored conversation a scrub scans.
type conversation struct{ harness, sid string }

// toScan lists the conversations a scrub scans: the named ones
// (id, or harness:id; each once), or all, in the order they were stored.
func toScan(ctx context.Context, rt *memory.ReadTx, ids []string) ([]conversation, error) {
	if len(ids) == 0 {
		return storedConversations(ctx, rt, `SELECT harness, session_id FROM sessions ORDER BY id`)
	}
	var out []conversation
	seen := map[conversation]bool{}
	for _, id := range ids {
		var c conversation
		var err error
		if c.harness, c.sid, err = memory.FindConversation(ctx, rt, id); err != nil {
			return nil, err
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// storedConversations runs a query of conversations' harness and id.
func storedConversations(ctx context.Context, rt *memory.ReadTx, query string, args ...any) ([]conversation, error) {
	var out []conversation
	err := memory.EachRow(ctx, rt, query, args, func(rows *sql.Rows) error {
		var c conversation
		err := rows.Scan(&c.harness, &c.sid)
		out = append(out, c)
		return err
	})
	return out, err
}

// allowedHashes lists the allow-list's finding hashes.
func allowedHashes(ctx context.Context, rt *memory.ReadTx) (map[string]bool, error) {
	out := map[string]bool{}
	err := memory.EachRow(ctx, rt, `SELECT hash FROM scrub_allow`, nil, func(rows *sql.Rows) error {
		var h string
		err := rows.Scan(&h)
		out[h] = true
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("scrub: read the allow-list: %w", err)
	}
	return out, nil
}

// projectTags lists every conversation's project tags, by harness and
// session id.
func projectTags(ctx context.Context, rt *memory.ReadTx) (map[[2]string][]string, error) {
	tags := map[[2]string][]string{}
	err := memory.EachRow(ctx, rt, `SELECT harness, session_id, project FROM session_projects`, nil, func(rows *sql.Rows) error {
		var h, sid, p string
		if err := rows.Scan(&h, &sid, &p); err != nil {
			return err
		}
		tags[[2]string{h, sid}] = append(tags[[2]string{h, sid}], p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scrub: read project tags: %w", err)
	}
	return tags, nil
}

// eachAuditArgs calls fn with every audit row's id and recorded arguments
// (an agent's query), oldest first; an error from fn stops and is returned.
func eachAuditArgs(ctx context.Context, m *memory.Memory, fn func(id int64, args string) error) error {
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return fmt.Errorf("scrub the audit log: %w", err)
	}
	defer rt.Close()
	var fnErr error
	err = memory.EachRow(ctx, rt, `SELECT id, args FROM audit ORDER BY id`, nil, func(rows *sql.Rows) error {
		var id int64
		var args string
		if err := rows.Scan(&id, &args); err != nil {
			return err
		}
		fnErr = fn(id, args)
		return fnErr
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("scrub the audit log: %w", err)
	}
	return nil
}

// AllowEntry is one remembered false positive.
type AllowEntry struct {
	ID    string    `json:"id"`
	Rule  string    `json:"rule"`
	Added time.Time `json:"added"`
}

// AllowList lists the remembered false positives of m, newest first.
func AllowList(ctx context.Context, m *memory.Memory) ([]AllowEntry, error) {
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("scrub: read the allow-list: %w", err)
	}
	defer rt.Close()
	var out []AllowEntry
	err = memory.EachRow(ctx, rt, `SELECT hash, rule, added FROM scrub_allow ORDER BY added DESC, hash`, nil, func(rows *sql.Rows) error {
		var h, rule string
		var added int64
		err := rows.Scan(&h, &rule, &added)
		out = append(out, AllowEntry{ID: h[:min(len(h), FindingIDLen)], Rule: rule, Added: time.Unix(added, 0).UTC()})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("scrub: read the allow-list: %w", err)
	}
	return out, nil
}

// HistoryEntry is one scrub: when, and how many redactions per rule.
type HistoryEntry struct {
	TS     time.Time      `json:"ts"`
	Counts map[string]int `json:"counts"`
}

// History lists m's past scrubs, newest first; limit ≤ 0 means all.
func History(ctx context.Context, m *memory.Memory, limit int) ([]HistoryEntry, error) {
	if limit <= 0 {
		limit = -1
	}
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("scrub history: %w", err)
	}
	defer rt.Close()
	var out []HistoryEntry
	err = memory.EachRow(ctx, rt, `SELECT ts, counts FROM scrub_history ORDER BY ts DESC, id DESC LIMIT ?`, []any{limit}, func(rows *sql.Rows) error {
		var ts int64
		var js string
		if err := rows.Scan(&ts, &js); err != nil {
			return err
		}
		e := HistoryEntry{TS: time.Unix(ts, 0).UTC(), Counts: map[string]int{}}
		if err := json.Unmarshal([]byte(js), &e.Counts); err != nil {
			return errors.New("a row is not valid JSON")
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scrub history: %w", err)
	}
	return out, nil
}
