package insights

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/ireneo-app/ireneo/indexdoc"
	"github.com/ireneo-app/ireneo/memory"
)

// What insights reads of a memory for its charts, in one memory.ReadTx:
// counts over the catalog and the audit log (tables memory/schema.go
// documents), each one query over one small table (sessions, or audit
// through its time index), so a chart of 10,000 conversations costs a few
// milliseconds.

// totals counts the whole memory.
type totals struct {
	Conversations, Turns, Tokens int
	Oldest, Newest               time.Time // the first start and the last update; zero in an empty memory
	SizeBytes                    int64     // the conversation files, as indexed, and the database files
	Redacted                     int       // secrets redacted, every scrub's count added up
	Forgotten                    int       // conversations forgotten (their tombstones)
}

// readTotals is one query over the catalog and index. The size on disk
// adds the conversation files' sizes, as indexed, to the database files'
// (memory.DatabaseBytes), so it needs no walk over thousands of files.
func readTotals(ctx context.Context, q memory.Querier, databaseBytes int64) (totals, error) {
	var h totals
	var oldest, newest, srcBytes int64
	err := q.QueryRowContext(ctx, `SELECT count(*), COALESCE(sum(turns),0), COALESCE(sum(tokens),0),
			COALESCE(min(NULLIF(started,0)),0), COALESCE(max(updated),0), COALESCE(sum(bytes),0),
			(SELECT count(*) FROM tombstones),
			(SELECT COALESCE(sum(j.value),0) FROM scrub_history h, json_each(h.counts) j WHERE json_valid(h.counts))
		FROM sessions`).Scan(&h.Conversations, &h.Turns, &h.Tokens, &oldest, &newest, &srcBytes, &h.Forgotten, &h.Redacted)
	if err != nil {
		return h, fmt.Errorf("insights: %w", err)
	}
	h.Oldest, h.Newest = indexdoc.Time(oldest), indexdoc.Time(newest)
	h.SizeBytes = srcBytes + databaseBytes
	return h, nil
}

// countBy says what startCounts groups conversations by.
type countBy int

const (
	bySource  countBy = iota // the source (harness) a conversation came from
	byProject                // each of its project tags
)

// The weekly charts scan the sessions table once, in table order: with
// only a few hundred groups that beats walking an index and looking each
// row up. Undated conversations (started 0) are left out; totals still
// counts them.
const startCountsBySourceSQL = `SELECT harness, (started + ?1) / ?2 AS week, count(*), COALESCE(sum(turns),0)
	FROM sessions NOT INDEXED WHERE started >= max(?3, 1) GROUP BY harness, week`

// startCountsByProjectSQL counts every project per bucket in one pass; a
// chart's top projects are picked from its few hundred rows.
const startCountsByProjectSQL = `SELECT p.project, (s.started + ?1) / ?2 AS week, count(*), COALESCE(sum(s.turns),0)
	FROM sessions s NOT INDEXED CROSS JOIN session_projects p ON p.harness=s.harness AND p.session_id=s.session_id
	WHERE s.started >= max(?3, 1)
	GROUP BY p.project, week`

// startCount is how many conversations, with their turns, one source or
// project started in one bucket of time.
type startCount struct {
	Name          string // the source or the project
	Bucket        int64  // (started + offset) / width, started in Unix seconds
	Conversations int
	Turns         int
}

// startCounts counts the conversations started at or after from (Unix
// seconds; 0 for all), with their turns, per source or project and per
// bucket of width seconds, shifted by offset. Undated conversations are
// left out.
func startCounts(ctx context.Context, q memory.Querier, by countBy, from, offset, width int64) ([]startCount, error) {
	query := startCountsBySourceSQL
	if by == byProject {
		query = startCountsByProjectSQL
	}
	var out []startCount
	return out, memory.EachRow(ctx, q, query, []any{offset, width, from}, func(rows *sql.Rows) error {
		var c startCount
		err := rows.Scan(&c.Name, &c.Bucket, &c.Conversations, &c.Turns)
		out = append(out, c)
		return err
	})
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

// agentCallCount is how many calls one client made on one day that ended
// in one outcome.
type agentCallCount struct {
	Day     int64 // Unix days (UTC)
	Client  string
	Outcome string // an Audit* outcome, or mcpserver's
	Count   int
}

// agentCalls counts agents' recall and get calls in the audit log, and
// refused requests of any kind, per UTC day, client and outcome, from since
// on (the zero time: the whole log).
func agentCalls(ctx context.Context, q memory.Querier, since time.Time) ([]agentCallCount, error) {
	query, args := agentCallsAllSQL, []any{}
	if !since.IsZero() {
		query, args = agentCallsSQL, []any{since.UnixMilli()}
	}
	var out []agentCallCount
	return out, memory.EachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var c agentCallCount
		err := rows.Scan(&c.Day, &c.Client, &c.Outcome, &c.Count)
		out = append(out, c)
		return err
	})
}
