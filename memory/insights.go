package memory

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// Insights ranges: how far back the charts go.
const (
	Range3Months = "3m"
	RangeYear    = "year"
	RangeAll     = "all"
)

// InsightsRanges lists the ranges in the order a selector shows them.
var InsightsRanges = []string{Range3Months, RangeYear, RangeAll}

// InsightsQuery picks the charts' range. Now is the end of the range; the
// zero time means time.Now().
type InsightsQuery struct {
	Range string // Range3Months, RangeYear or RangeAll ("" means all)
	Now   time.Time
}

// Insights is what the Insights screen and `ireneo insights` show: headline
// numbers over the whole memory, and charts over the range. Series are
// aligned with Weeks (or Days): Values[i] belongs to Weeks[i].
type Insights struct {
	Range    string           `json:"range"`
	Since    *time.Time       `json:"since,omitempty"` // nil for all
	Headline InsightsHeadline `json:"headline"`
	// Weeks are the Mondays (UTC) the weekly charts cover, oldest first.
	// A conversation counts, with all its turns, in the week it started.
	Weeks     []time.Time  `json:"weeks"`
	BySource  []WeekSeries `json:"by_source"`
	ByProject []WeekSeries `json:"by_project"` // the top 10 projects in the range
	// Days are the days (UTC) of the agent access chart, oldest first.
	Days   []time.Time   `json:"days"`
	Agents []AgentSeries `json:"agents"`
}

// InsightsHeadline counts the whole memory, whatever the range.
type InsightsHeadline struct {
	Conversations int        `json:"conversations"`
	Turns         int        `json:"turns"`
	Tokens        int        `json:"tokens"`
	Oldest        *time.Time `json:"oldest"`
	Newest        *time.Time `json:"newest"`
	SizeBytes     int64      `json:"size_bytes"`
	Redacted      int        `json:"secrets_redacted"`
	Forgotten     int        `json:"conversations_forgotten"`
}

// WeekSeries is one stack of a weekly chart: a source or a project.
type WeekSeries struct {
	Name          string `json:"name"`
	Conversations []int  `json:"conversations"`
	Turns         []int  `json:"turns"`
	TotalConvs    int    `json:"total_conversations"`
	TotalTurns    int    `json:"total_turns"`
}

// AgentSeries is one client's recall and get calls per day. Answered calls
// found something; no-match calls found nothing; refused calls were turned
// away (busy, too large, not allowed); failed calls broke on the way.
type AgentSeries struct {
	Client   string `json:"client"`
	Answered []int  `json:"answered"`
	NoMatch  []int  `json:"no_match"`
	Refused  []int  `json:"refused"`
	Failed   []int  `json:"failed"`
	Total    int    `json:"total"`
}

const (
	daySecs  = 86400
	weekSecs = 7 * daySecs
	// mondayOffset shifts Unix time so weeks start on Monday: 1970-01-01
	// was a Thursday, three days after Monday 1969-12-29.
	mondayOffset = 3 * daySecs
)

// weekOf is the index of the Monday-based UTC week holding unix second s.
func weekOf(s int64) int64 { return floorDiv(s+mondayOffset, weekSecs) }

func weekStart(w int64) time.Time { return time.Unix(w*weekSecs-mondayOffset, 0).UTC() }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// InsightsSince is where a range starts, or the zero time for all.
func InsightsSince(rng string, now time.Time) (time.Time, error) {
	switch rng {
	case Range3Months:
		return now.AddDate(0, -3, 0), nil
	case RangeYear:
		return now.AddDate(-1, 0, 0), nil
	case RangeAll, "":
		return time.Time{}, nil
	}
	return time.Time{}, fmt.Errorf("insights: range %q: want 3m, year or all", rng)
}

// Insights aggregates the memory for the charts: one query per chart, each
// a scan of one small table (sessions, or audit through its time index).
func (m *Memory) Insights(ctx context.Context, q InsightsQuery) (Insights, error) {
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	now = now.UTC()
	since, err := InsightsSince(q.Range, now)
	if err != nil {
		return Insights{}, err
	}
	in := Insights{Range: q.Range, BySource: []WeekSeries{}, ByProject: []WeekSeries{}, Agents: []AgentSeries{}}
	if in.Range == "" {
		in.Range = RangeAll
	}
	if !since.IsZero() {
		in.Since = &since
	}
	if in.Headline, err = m.insightsHeadline(ctx); err != nil {
		return in, err
	}
	from := unix(since)
	bySource, err := m.weekCounts(ctx, insightsBySourceSQL, from)
	if err != nil {
		return in, fmt.Errorf("insights by source: %w", err)
	}
	byProject, err := m.weekCounts(ctx, insightsByProjectSQL, from)
	if err != nil {
		return in, fmt.Errorf("insights by project: %w", err)
	}

	// The weeks run from the range's start (or the oldest conversation) to now.
	first, last := weekOf(now.Unix()), weekOf(now.Unix())
	if from > 0 {
		first = weekOf(from)
	}
	for _, rows := range [][]weekCount{bySource, byProject} {
		for _, r := range rows {
			first, last = min(first, r.week), max(last, r.week)
		}
	}
	for w := first; w <= last; w++ {
		in.Weeks = append(in.Weeks, weekStart(w))
	}
	in.BySource = weekSeries(bySource, first, len(in.Weeks))
	in.ByProject = weekSeries(byProject, first, len(in.Weeks))
	if len(in.ByProject) > topProjects {
		in.ByProject = in.ByProject[:topProjects]
	}

	if in.Days, in.Agents, err = m.agentAccess(ctx, since, now); err != nil {
		return in, fmt.Errorf("insights agent access: %w", err)
	}
	return in, nil
}

// insightsHeadline is one query over the catalog and index. The size on
// disk adds the conversation files' sizes, as indexed, to the database
// files', so it needs no walk over thousands of files.
func (m *Memory) insightsHeadline(ctx context.Context) (InsightsHeadline, error) {
	var h InsightsHeadline
	var oldest, newest, srcBytes int64
	err := m.db.QueryRowContext(ctx, `SELECT count(*), COALESCE(sum(turns),0), COALESCE(sum(tokens),0),
			COALESCE(min(NULLIF(started,0)),0), COALESCE(max(updated),0), COALESCE(sum(bytes),0),
			(SELECT count(*) FROM tombstones),
			(SELECT COALESCE(sum(j.value),0) FROM scrub_history h, json_each(h.counts) j WHERE json_valid(h.counts))
		FROM sessions`).Scan(&h.Conversations, &h.Turns, &h.Tokens, &oldest, &newest, &srcBytes, &h.Forgotten, &h.Redacted)
	if err != nil {
		return h, fmt.Errorf("insights: %w", err)
	}
	if oldest != 0 {
		t := fromUnix(oldest)
		h.Oldest = &t
	}
	if newest != 0 {
		t := fromUnix(newest)
		h.Newest = &t
	}
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

// The weekly charts scan the sessions table once, in table order: with
// only a few hundred groups that beats walking an index and looking each
// row up. Undated conversations (started 0) are left out; the headline
// still counts them.
const insightsBySourceSQL = `SELECT harness, (started + ?1) / ?2 AS week, count(*), COALESCE(sum(turns),0)
	FROM sessions NOT INDEXED WHERE started >= max(?3, 1) GROUP BY harness, week`

// insightsByProjectSQL counts every project per week in one pass; the top
// ten are picked from its few hundred rows.
const insightsByProjectSQL = `SELECT p.project, (s.started + ?1) / ?2 AS week, count(*), COALESCE(sum(s.turns),0)
	FROM sessions s NOT INDEXED CROSS JOIN session_projects p ON p.harness=s.harness AND p.session_id=s.session_id
	WHERE s.started >= max(?3, 1)
	GROUP BY p.project, week`

// topProjects is how many projects the by-project chart shows.
const topProjects = 10

type weekCount struct {
	name         string
	week         int64
	convs, turns int
}

func (m *Memory) weekCounts(ctx context.Context, query string, from int64) ([]weekCount, error) {
	rows, err := m.db.QueryContext(ctx, query, mondayOffset, weekSecs, from)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []weekCount
	for rows.Next() {
		var c weekCount
		if err := rows.Scan(&c.name, &c.week, &c.convs, &c.turns); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// weekSeries lays counts out on the week axis, biggest series first.
func weekSeries(rows []weekCount, first int64, n int) []WeekSeries {
	idx := map[string]int{}
	out := []WeekSeries{}
	for _, r := range rows {
		i, ok := idx[r.name]
		if !ok {
			i = len(out)
			idx[r.name] = i
			out = append(out, WeekSeries{Name: r.name, Conversations: make([]int, n), Turns: make([]int, n)})
		}
		s := &out[i]
		k := int(r.week - first)
		if k < 0 || k >= n {
			continue
		}
		s.Conversations[k] += r.convs
		s.Turns[k] += r.turns
		s.TotalConvs += r.convs
		s.TotalTurns += r.turns
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].TotalConvs != out[b].TotalConvs {
			return out[a].TotalConvs > out[b].TotalConvs
		}
		return out[a].Name < out[b].Name
	})
	return out
}

// Outcome classes of the agent access chart.
const (
	accessAnswered = iota
	accessNoMatch
	accessRefused
	accessFailed
)

// agentAccessSQL counts recall and get calls, and refused requests of
// any kind (a refusal may come before a tool is known), per day, client
// and outcome. Filtering first keeps the groups few.
const agentAccessSQL = `SELECT ts / 86400000 AS day, client, outcome, count(*) FROM audit
	WHERE ts >= ? AND ` + agentAccessFilter + ` GROUP BY 1, 2, 3`

// agentAccessAllSQL is the same over the whole log: a plain scan, since
// the index would only add a lookup per row.
const agentAccessAllSQL = `SELECT ts / 86400000 AS day, client, outcome, count(*) FROM audit
	WHERE ` + agentAccessFilter + ` GROUP BY 1, 2, 3`

const agentAccessFilter = `(tool IN ('recall','get') OR outcome IN ('busy','unauthorized','forbidden','too_large') OR outcome LIKE 'refused%')`

// accessClass sorts an audit outcome into the chart's classes.
func accessClass(outcome string) int {
	switch {
	case outcome == AuditOK:
		return accessAnswered
	case outcome == AuditNoMatch || outcome == AuditNotFound:
		return accessNoMatch
	case outcome == AuditBusy || outcome == AuditUnauthorized || outcome == AuditForbidden ||
		outcome == "too_large" || strings.HasPrefix(outcome, "refused"): // too_large: mcpserver's oversized request
		return accessRefused
	}
	return accessFailed
}

// agentAccess is the daily calls per client from the audit log. The days
// run from the range's start (or the first call) to today.
func (m *Memory) agentAccess(ctx context.Context, since, now time.Time) ([]time.Time, []AgentSeries, error) {
	query, args := agentAccessAllSQL, []any{}
	if !since.IsZero() {
		query, args = agentAccessSQL, []any{since.UnixMilli()}
	}
	rows, err := m.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	type cell struct {
		day          int64
		client       string
		class, count int
	}
	var cells []cell
	lastDay := now.Unix() / daySecs
	firstDay := lastDay
	if !since.IsZero() {
		firstDay = since.Unix() / daySecs
	}
	for rows.Next() {
		var (
			c       cell
			outcome string
		)
		if err := rows.Scan(&c.day, &c.client, &outcome, &c.count); err != nil {
			return nil, nil, err
		}
		c.class = accessClass(outcome)
		cells = append(cells, c)
		firstDay, lastDay = min(firstDay, c.day), max(lastDay, c.day)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	n := int(lastDay - firstDay + 1)
	days := make([]time.Time, n)
	for i := range days {
		days[i] = time.Unix((firstDay+int64(i))*daySecs, 0).UTC()
	}
	idx := map[string]int{}
	out := []AgentSeries{}
	for _, c := range cells {
		i, ok := idx[c.client]
		if !ok {
			i = len(out)
			idx[c.client] = i
			out = append(out, AgentSeries{Client: c.client, Answered: make([]int, n), NoMatch: make([]int, n), Refused: make([]int, n), Failed: make([]int, n)})
		}
		s := &out[i]
		k := int(c.day - firstDay)
		switch c.class {
		case accessAnswered:
			s.Answered[k] += c.count
		case accessNoMatch:
			s.NoMatch[k] += c.count
		case accessRefused:
			s.Refused[k] += c.count
		default:
			s.Failed[k] += c.count
		}
		s.Total += c.count
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Total != out[b].Total {
			return out[a].Total > out[b].Total
		}
		return out[a].Client < out[b].Client
	})
	return days, out, nil
}
