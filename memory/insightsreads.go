package memory

import (
	"context"
	"fmt"
	"os"
	"time"
)

// What package insights reads of a memory for its charts: counts over the
// catalog and the audit log, each one query over one small table (sessions,
// or audit through its time index), so a chart of 10,000 conversations
// costs a few milliseconds.

// Totals counts the whole memory.
type Totals struct {
	Conversations, Turns, Tokens int
	Oldest, Newest               time.Time // the first start and the last update; zero in an empty memory
	SizeBytes                    int64     // the conversation files, as indexed, and the database files
	Redacted                     int       // secrets redacted, every scrub's count added up
	Forgotten                    int       // conversations forgotten (their tombstones)
}

// Totals is one query over the catalog and index. The size on disk adds
// the conversation files' sizes, as indexed, to the database files', so it
// needs no walk over thousands of files.
func (m *Memory) Totals(ctx context.Context) (Totals, error) {
	var h Totals
	var oldest, newest, srcBytes int64
	err := m.db.QueryRowContext(ctx, `SELECT count(*), COALESCE(sum(turns),0), COALESCE(sum(tokens),0),
			COALESCE(min(NULLIF(started,0)),0), COALESCE(max(updated),0), COALESCE(sum(bytes),0),
			(SELECT count(*) FROM tombstones),
			(SELECT COALESCE(sum(j.value),0) FROM scrub_history h, json_each(h.counts) j WHERE json_valid(h.counts))
		FROM sessions`).Scan(&h.Conversations, &h.Turns, &h.Tokens, &oldest, &newest, &srcBytes, &h.Forgotten, &h.Redacted)
	if err != nil {
		return h, fmt.Errorf("insights: %w", err)
	}
	h.Oldest, h.Newest = fromUnix(oldest), fromUnix(newest)
	h.SizeBytes = srcBytes + m.topLevelBytes()
	return h, nil
}

// topLevelBytes adds up the files directly in the memory folder: the
// database and its write-ahead log.
func (m *Memory) topLevelBytes() int64 {
	var n int64
	ents, _ := os.ReadDir(m.dir)
	for _, e := range ents {
		if e.Type().IsRegular() {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
	}
	return n
}

// CountBy says what StartCounts groups conversations by.
type CountBy int

const (
	CountBySource  CountBy = iota // the source (harness) a conversation came from
	CountByProject                // each of its project tags
)

// The weekly charts scan the sessions table once, in table order: with
// only a few hundred groups that beats walking an index and looking each
// row up. Undated conversations (started 0) are left out; Totals still
// counts them.
const startCountsBySourceSQL = `SELECT harness, (started + ?1) / ?2 AS week, count(*), COALESCE(sum(turns),0)
	FROM sessions NOT INDEXED WHERE started >= max(?3, 1) GROUP BY harness, week`

// startCountsByProjectSQL counts every project per bucket in one pass; a
// chart's top projects are picked from its few hundred rows.
const startCountsByProjectSQL = `SELECT p.project, (s.started + ?1) / ?2 AS week, count(*), COALESCE(sum(s.turns),0)
	FROM sessions s NOT INDEXED CROSS JOIN session_projects p ON p.harness=s.harness AND p.session_id=s.session_id
	WHERE s.started >= max(?3, 1)
	GROUP BY p.project, week`

// StartCount is how many conversations, with their turns, one source or
// project started in one bucket of time.
type StartCount struct {
	Name          string // the source or the project
	Bucket        int64  // (started + offset) / width, started in Unix seconds
	Conversations int
	Turns         int
}

// StartCounts counts the conversations started at or after from (Unix
// seconds; 0 for all), with their turns, per source or project and per
// bucket of width seconds, shifted by offset. Undated conversations are
// left out.
func (m *Memory) StartCounts(ctx context.Context, by CountBy, from, offset, width int64) ([]StartCount, error) {
	query := startCountsBySourceSQL
	if by == CountByProject {
		query = startCountsByProjectSQL
	}
	rows, err := m.db.QueryContext(ctx, query, offset, width, from)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StartCount
	for rows.Next() {
		var c StartCount
		if err := rows.Scan(&c.Name, &c.Bucket, &c.Conversations, &c.Turns); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// agentCallsSQL counts recall and get calls, and refused requests of any
// kind (a refusal may come before a tool is known), per day, client and
// outcome. Filtering first keeps the groups few.
const agentCallsSQL = `SELECT ts / 86400000 AS day, client, outcome, count(*) FROM audit
	WHERE ts >= ? AND ` + agentCallsFilter + ` GROUP BY 1, 2, 3`

// agentCallsAllSQL is the same over the whole log: a plain scan, since
// the index would only add a lookup per row.
const agentCallsAllSQL = `SELECT ts / 86400000 AS day, client, outcome, count(*) FROM audit
	WHERE ` + agentCallsFilter + ` GROUP BY 1, 2, 3`

// too_large is mcpserver's outcome of an oversized request.
const agentCallsFilter = `(tool IN ('recall','get') OR outcome IN ('busy','unauthorized','forbidden','too_large') OR outcome LIKE 'refused%')`

// AgentCallCount is how many calls one client made on one day that ended
// in one outcome.
type AgentCallCount struct {
	Day     int64 // Unix days (UTC)
	Client  string
	Outcome string // an Audit* outcome, or mcpserver's
	Count   int
}

// AgentCalls counts agents' recall and get calls in the audit log, and
// refused requests of any kind, per UTC day, client and outcome, from since
// on (the zero time: the whole log).
func (m *Memory) AgentCalls(ctx context.Context, since time.Time) ([]AgentCallCount, error) {
	query, args := agentCallsAllSQL, []any{}
	if !since.IsZero() {
		query, args = agentCallsSQL, []any{since.UnixMilli()}
	}
	rows, err := m.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AgentCallCount
	for rows.Next() {
		var c AgentCallCount
		if err := rows.Scan(&c.Day, &c.Client, &c.Outcome, &c.Count); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
