package memory

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/ireneo-app/ireneo/funes"
)

// lookupChunk keeps each IN (…) list well under SQLite's variable limit.
const lookupChunk = 500

// StoredTurns returns, of turnIDs, those stored in a conversation of
// harness other than except, each with the ids of the conversations holding
// it. Importers use it to keep a turn a resumed session copied only where
// it first happened.
func (m *Memory) StoredTurns(ctx context.Context, harness, except string, turnIDs []string) (map[string][]string, error) {
	out := map[string][]string{}
	for start := 0; start < len(turnIDs); start += lookupChunk {
		part := turnIDs[start:min(start+lookupChunk, len(turnIDs))]
		args := make([]any, 0, len(part)+2)
		args = append(args, harness, except)
		for _, id := range part {
			args = append(args, id)
		}
		// CROSS JOIN keeps turns the outer loop, found by turn_uuid: left
		// to itself SQLite walked every session of the harness and probed
		// each id in each, which made an import quadratic.
		q := `SELECT t.turn_uuid, s.session_id FROM turns t CROSS JOIN sessions s ON s.id = t.sess
WHERE s.harness = ? AND s.session_id <> ? AND t.turn_uuid IN (?` + strings.Repeat(",?", len(part)-1) + `)`
		err := EachRow(ctx, m.db, q, args, func(rows *sql.Rows) error {
			var turn, sess string
			err := rows.Scan(&turn, &sess)
			out[turn] = append(out[turn], sess)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Project returns the project a stored conversation was given at import,
// and whether the conversation is stored at all.
func (m *Memory) Project(ctx context.Context, harness, id string) (string, bool, error) {
	var p string
	err := m.db.QueryRowContext(ctx, `SELECT derived_project FROM sessions WHERE harness = ? AND session_id = ?`, harness, id).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return p, true, nil
}

// StoredSession loads a stored conversation of harness as its file holds
// it, and whether it is stored at all. Importers use it to take turns a
// resumed session copied out of it once their original is imported.
func (m *Memory) StoredSession(ctx context.Context, harness, id string) (*funes.Session, bool, error) {
	s, err := m.LoadSession(ctx, harness+":"+id)
	if errors.Is(err, ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return s, true, nil
}
