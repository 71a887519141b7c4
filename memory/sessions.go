package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
)

// SessionInfo describes one conversation in lists.
type SessionInfo struct {
	SessionID string    `json:"session_id"`
	Source    string    `json:"source"`
	Title     string    `json:"title"`
	Workdir   string    `json:"workdir,omitempty"`
	Projects  []string  `json:"projects"`
	Started   time.Time `json:"started"`
	Updated   time.Time `json:"updated"`
	Turns     int       `json:"turns"`
	Tokens    int       `json:"tokens"`
	Bytes     int64     `json:"bytes"`
	Starred   bool      `json:"starred"`
	path      string
}

// SessionQuery filters and pages the conversation list.
type SessionQuery struct {
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

// Sessions lists conversations and the total that match, before paging.
func (m *Memory) Sessions(ctx context.Context, q SessionQuery) ([]SessionInfo, int, error) {
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
	w, a := ProjectFilter("s", q.Project, q.ProjectOnly, q.Untagged, q.Scope)
	where = append(where, w...)
	args = append(args, a...)
	if strings.TrimSpace(q.Query) != "" {
		plan := querySearchTerms(q.Query).withoutIDParts(q.Query)
		if len(plan.words)+len(plan.ids) > 0 {
			ids, err := m.sessionsMatching(ctx, plan)
			if err != nil {
				return nil, 0, fmt.Errorf("sessions: %w", err)
			}
			where = append(where, "s.id IN ("+strings.Join(ids, ",")+")")
		}
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := m.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions s WHERE `+cond, args...).Scan(&total); err != nil {
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
	var out []SessionInfo
	err := EachRow(ctx, m.db, `SELECT s.session_id, s.harness, s.title, s.workdir, s.started, s.updated, s.turns, s.tokens, s.bytes, s.path,
			COALESCE((SELECT starred FROM stars st WHERE st.harness=s.harness AND st.session_id=s.session_id), 0)
		FROM sessions s WHERE `+cond+` ORDER BY `+order+dir+`, s.id LIMIT ? OFFSET ?`, append(args, q.Limit, max(q.Offset, 0)), func(rows *sql.Rows) error {
		var si SessionInfo
		var started, updated int64
		var star int
		if err := rows.Scan(&si.SessionID, &si.Source, &si.Title, &si.Workdir, &started, &updated, &si.Turns, &si.Tokens, &si.Bytes, &si.path, &star); err != nil {
			return err
		}
		si.Started, si.Updated, si.Starred = fromUnix(started), fromUnix(updated), star != 0
		out = append(out, si)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("sessions: %w", err)
	}
	for i := range out {
		p, err := m.sessionProjects(ctx, m.db, out[i].Source, out[i].SessionID)
		if err != nil {
			return nil, 0, err
		}
		out[i].Projects = p
	}
	return out, total, nil
}

// sessionRef is a stored conversation's identity.
type sessionRef struct {
	id      int64
	harness string
	sid     string
	path    string
}

// FindConversation resolves a conversation id (the source's own, or
// "harness:id", which picks one when two sources share an id) read through
// q to its source and id: ErrNotFound when no conversation has it, an
// *AmbiguousSessionError when a bare id names two.
func FindConversation(ctx context.Context, q Querier, id string) (harness, sid string, err error) {
	r, err := findSession(ctx, q, id, nil)
	return r.harness, r.sid, err
}

// findSession resolves a session id (the source's own) to its row. A
// "harness:id" form picks one when two sources share an id.
func findSession(ctx context.Context, q Querier, sessionID string, scope []string) (sessionRef, error) {
	harness := ""
	if h, id, ok := strings.Cut(sessionID, ":"); ok && isHarness(h) {
		harness, sessionID = h, id
	}
	where := []string{"s.session_id = ?"}
	args := []any{sessionID}
	if harness != "" {
		where = append(where, "s.harness = ?")
		args = append(args, harness)
	}
	w, a := ProjectFilter("s", "", false, false, scope)
	where = append(where, w...)
	args = append(args, a...)
	var refs []sessionRef
	err := EachRow(ctx, q, `SELECT s.id, s.harness, s.session_id, s.path FROM sessions s WHERE `+strings.Join(where, " AND "), args, func(rows *sql.Rows) error {
		var r sessionRef
		err := rows.Scan(&r.id, &r.harness, &r.sid, &r.path)
		refs = append(refs, r)
		return err
	})
	if err != nil {
		return sessionRef{}, err
	}
	switch len(refs) {
	case 0:
		return sessionRef{}, fmt.Errorf("conversation %s: %w", sessionID, ErrNotFound)
	case 1:
		return refs[0], nil
	default:
		return sessionRef{}, &AmbiguousSessionError{ID: sessionID, Sources: []string{refs[0].harness, refs[1].harness}}
	}
}

// ErrAmbiguousSession is what AmbiguousSessionError matches with errors.Is.
var ErrAmbiguousSession = errors.New("conversation id is in more than one source")

// AmbiguousSessionError says a bare conversation id names conversations in
// two sources; the caller must write it as source:id.
type AmbiguousSessionError struct {
	ID      string
	Sources []string // two of them, at least
}

func (e *AmbiguousSessionError) Error() string {
	return fmt.Sprintf("conversation id %s is in %s and %s; write it as %s:%s", e.ID, e.Sources[0], e.Sources[1], e.Sources[0], e.ID)
}

// Is makes errors.Is(err, ErrAmbiguousSession) hold.
func (e *AmbiguousSessionError) Is(target error) bool { return target == ErrAmbiguousSession }

func isHarness(h string) bool { return slices.Contains(funes.Harnesses, h) }

// LoadSession reads a conversation's source file, verbatim.
func (m *Memory) LoadSession(ctx context.Context, sessionID string) (*funes.Session, error) {
	ref, err := findSession(ctx, m.db, sessionID, nil)
	if err != nil {
		return nil, err
	}
	return m.loadRef(ref)
}

func (m *Memory) loadRef(ref sessionRef) (*funes.Session, error) {
	f, err := os.Open(filepath.Join(m.dir, ref.path))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("conversation %s: source file %s is missing; run `ireneo reindex`", ref.sid, ref.path)
		}
		return nil, err
	}
	defer f.Close()
	ss, _, err := funes.ReadSessions(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref.path, err)
	}
	for _, s := range ss {
		if s.ID == ref.sid && s.Harness == ref.harness {
			return s, nil
		}
	}
	return nil, fmt.Errorf("%s: conversation %s not in file", ref.path, ref.sid)
}

// sessionsMatching lists the ids of the sessions that hold every one of
// the plan's words (in a turn's text or the title) and identifiers, each
// in a turn of its own or the same: a list filtered by "oaxaca train" holds
// the conversations about the train to Oaxaca, not every one with a train.
func (m *Memory) sessionsMatching(ctx context.Context, plan searchTerms) ([]string, error) {
	var have map[int64]bool // the sessions holding every term so far
	collect := func(term string, fields engine.FieldMask) error {
		next := map[int64]bool{}
		err := engine.Docs(ctx, m.db, term, fields, func(doc uint64) bool {
			if s := docSession(doc); have == nil || have[s] {
				next[s] = true
			}
			return true
		})
		have = next
		return err
	}
	for _, w := range plan.words {
		if err := collect(engine.Term(w), 1<<engine.Body|1<<engine.Title); err != nil {
			return nil, err
		}
	}
	for _, id := range plan.ids {
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
