package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ireneo-app/ireneo/funes"
)

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

// LoadSession reads a conversation's source file, verbatim, as the
// transaction's snapshot finds it by its id (as FindConversation reads
// one) among those in scope (a token's projects; nil for all): out of scope
// and nonexistent answer the same ErrNotFound.
func (r *ReadTx) LoadSession(ctx context.Context, sessionID string, scope []string) (*funes.Session, error) {
	if r.closed {
		return nil, errReadClosed
	}
	ref, err := findSession(ctx, r.tx, sessionID, scope)
	if err != nil {
		return nil, err
	}
	return r.m.loadRef(ref)
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
