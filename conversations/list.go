package conversations

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/indexdoc"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/querywords"
)

// Query filters and pages the conversation list.
type Query struct {
	Query   string // words that must appear (any turn) or in the title
	Project string // that project plus untagged; "" means all
	// ProjectOnly drops the untagged conversations from Project.
	ProjectOnly bool
	// Untagged lists only conversations with no project.
	Untagged bool
	Source   string
	Since    time.Time
	Until    time.Time
	Starred  bool
	Limit    int // default 100
	Offset   int
	Scope    []string
	// Sort: "updated" (default, newest first), "started", "title", "turns", "source".
	Sort string
	Asc  bool
}

// listColumns are a conversation's columns as a list shows it, over the
// sessions alias s; scanInfo reads them.
const listColumns = `s.session_id, s.harness, s.title, s.workdir, s.started, s.updated, s.turns, s.tokens, s.bytes,
	COALESCE((SELECT starred FROM stars st WHERE st.harness=s.harness AND st.session_id=s.session_id), 0)`

// List lists conversations and the total that match, before paging, read
// in one snapshot of m.
func List(ctx context.Context, m *memory.Memory, q Query) ([]answer.Conversation, int, error) {
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("sessions: %w", err)
	}
	defer rt.Close()
	where := []string{"1"}
	var args []any
	if q.Source != "" {
		where = append(where, "s.harness = ?")
		args = append(args, q.Source)
	}
	if !q.Since.IsZero() {
		where = append(where, "s.updated >= ?")
		args = append(args, q.Since.Unix())
	}
	if !q.Until.IsZero() {
		where = append(where, "s.started < ?")
		args = append(args, q.Until.Unix())
	}
	if q.Starred {
		where = append(where, "EXISTS(SELECT 1 FROM stars st WHERE st.harness=s.harness AND st.session_id=s.session_id AND st.starred)")
	}
	w, a := memory.ProjectFilter("s", q.Project, q.ProjectOnly, q.Untagged, q.Scope)
	where = append(where, w...)
	args = append(args, a...)
	if strings.TrimSpace(q.Query) != "" {
		terms := querywords.SearchTerms(q.Query).WithoutIDParts(q.Query)
		if len(terms.Words)+len(terms.IDs) > 0 {
			ids, err := matching(ctx, rt, terms)
			if err != nil {
				return nil, 0, fmt.Errorf("sessions: %w", err)
			}
			where = append(where, "s.id IN ("+strings.Join(ids, ",")+")")
		}
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := rt.QueryRowContext(ctx, `SELECT count(*) FROM sessions s WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("sessions: %w", err)
	}
	order := map[string]string{"updated": "s.updated", "started": "s.started", "title": "s.title COLLATE NOCASE", "turns": "s.turns", "source": "s.harness"}[q.Sort]
	if order == "" {
		order = "s.updated"
	}
	dir := " DESC"
	if q.Asc {
		dir = " ASC"
	}
	if q.Limit <= 0 {
		q.Limit = 100
	}
	var out []answer.Conversation
	err = memory.EachRow(ctx, rt, `SELECT `+listColumns+` FROM sessions s WHERE `+cond+` ORDER BY `+order+dir+`, s.id LIMIT ? OFFSET ?`,
		append(args, q.Limit, max(q.Offset, 0)), func(rows *sql.Rows) error {
			c, err := scanInfo(rows)
			out = append(out, c)
			return err
		})
	if err != nil {
		return nil, 0, fmt.Errorf("sessions: %w", err)
	}
	for i := range out {
		if out[i].Projects, err = projectsOf(ctx, rt, out[i].Source, out[i].SessionID); err != nil {
			return nil, 0, fmt.Errorf("sessions: %w", err)
		}
	}
	return out, total, nil
}

// scanInfo reads listColumns.
func scanInfo(row interface{ Scan(...any) error }) (answer.Conversation, error) {
	var c answer.Conversation
	var started, updated int64
	var star int
	err := row.Scan(&c.SessionID, &c.Source, &c.Title, &c.Workdir, &started, &updated, &c.Turns, &c.Tokens, &c.Bytes, &star)
	c.Started, c.Updated, c.Starred = indexdoc.Time(started), indexdoc.Time(updated), star != 0
	return c, err
}

// projectsOf is a conversation's projects, by name.
func projectsOf(ctx context.Context, q memory.Querier, harness, sid string) ([]string, error) {
	out := []string{}
	err := memory.EachRow(ctx, q, `SELECT project FROM session_projects WHERE harness=? AND session_id=? ORDER BY project`, []any{harness, sid}, func(rows *sql.Rows) error {
		var p string
		err := rows.Scan(&p)
		out = append(out, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// matching lists the row ids of the conversations that hold every one of
// the words (in a turn's text or the title) and identifiers, each in a
// turn of its own or the same: a list filtered by "oaxaca train" holds the
// conversations about the train to Oaxaca, not every one with a train.
func matching(ctx context.Context, q *memory.ReadTx, terms querywords.Terms) ([]string, error) {
	var have map[int64]bool // the conversations holding every term so far
	collect := func(term string, fields engine.FieldMask) error {
		next := map[int64]bool{}
		err := engine.Docs(ctx, q, term, fields, func(doc uint64) bool {
			if s := indexdoc.DocSession(doc); have == nil || have[s] {
				next[s] = true
			}
			return true
		})
		have = next
		return err
	}
	for _, w := range terms.Words {
		if err := collect(engine.Term(w), 1<<engine.Body|1<<engine.Title); err != nil {
			return nil, err
		}
	}
	for _, id := range terms.IDs {
		if err := collect(engine.Term(id), 1<<engine.IDs); err != nil {
			return nil, err
		}
	}
	out := make([]string, 0, len(have))
	for s := range have {
		out = append(out, strconv.FormatInt(s, 10))
	}
	return out, nil
}
