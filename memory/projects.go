package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// CleanProject trims a project name and checks it: not empty, at most 200
// bytes. Tagging uses it, and so does package catalog on a backup's tags.
func CleanProject(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", errors.New("empty project name")
	}
	if len(p) > 200 {
		return "", errors.New("project name longer than 200 characters")
	}
	return p, nil
}

// Tag adds projects to a conversation.
func (m *Memory) Tag(ctx context.Context, sessionID string, projects ...string) error {
	return m.reported(ctx, Choice{Kind: ChoiceTag, SessionID: sessionID, Projects: projects}, m.editTags(ctx, sessionID, projects, `INSERT OR IGNORE INTO session_projects(harness,session_id,project) VALUES(?,?,?)`))
}

// Untag removes projects from a conversation.
func (m *Memory) Untag(ctx context.Context, sessionID string, projects ...string) error {
	return m.reported(ctx, Choice{Kind: ChoiceUntag, SessionID: sessionID, Projects: projects}, m.editTags(ctx, sessionID, projects, `DELETE FROM session_projects WHERE harness=? AND session_id=? AND project=?`))
}

func (m *Memory) editTags(ctx context.Context, sessionID string, projects []string, q string) error {
	if len(projects) == 0 {
		return errors.New("no project given")
	}
	return m.withTx(ctx, func(tx *sql.Tx) error {
		ref, err := findSession(ctx, tx, sessionID, nil)
		if err != nil {
			return err
		}
		for _, p := range projects {
			p, err := CleanProject(p)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, q, ref.harness, ref.sid, p); err != nil {
				return err
			}
		}
		return nil
	})
}

// RenameProject renames a project, merging it into another of that name.
func (m *Memory) RenameProject(ctx context.Context, from, to string) error {
	return m.reported(ctx, Choice{Kind: ChoiceRename, From: from, To: to}, m.renameProject(ctx, from, to))
}

func (m *Memory) renameProject(ctx context.Context, from, to string) error {
	to, err := CleanProject(to)
	if err != nil {
		return err
	}
	return m.withTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM session_projects WHERE project=?`, from).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("project %q: %w", from, ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO session_projects(harness,session_id,project)
			SELECT harness, session_id, ? FROM session_projects WHERE project=?`, to, from); err != nil {
			return err
		}
		if from != to {
			_, err := tx.ExecContext(ctx, `DELETE FROM session_projects WHERE project=?`, from)
			return err
		}
		return nil
	})
}

// Star marks a conversation as important, or clears the mark.
func (m *Memory) Star(ctx context.Context, sessionID string, on bool) error {
	return m.reported(ctx, Choice{Kind: starKind(on), SessionID: sessionID}, m.withTx(ctx, func(tx *sql.Tx) error {
		ref, err := findSession(ctx, tx, sessionID, nil)
		if err != nil {
			return err
		}
		if !on {
			_, err = tx.ExecContext(ctx, `DELETE FROM stars WHERE harness=? AND session_id=?`, ref.harness, ref.sid)
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO stars(harness,session_id,starred) VALUES(?,?,1)
			ON CONFLICT DO UPDATE SET starred=1`, ref.harness, ref.sid)
		return err
	}))
}
