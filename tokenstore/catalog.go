package tokenstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ireneo-app/ireneo/memory"
)

// The catalog's side of a token: its row in the memory's tokens table
// (memory/schema.go keeps the table's schema and migrations), written
// through memory.WriteCatalog and read through a memory.ReadTx.

// ErrAccessTokenExists is returned when a live access token already has the
// name asked for.
var ErrAccessTokenExists = errors.New("a token with that name already exists")

// AccessToken is the catalog's record of an MCP access token, the bearer
// token a client sends (not an LLM token, which package o200k counts). The
// secret itself is never stored there: only its SHA-256, for lookup.
type AccessToken struct {
	Name     string    `json:"name"`
	Hash     []byte    `json:"-"`
	Projects []string  `json:"projects"` // the token's scope; empty means everything
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"last_used,omitzero"`
	Revoked  time.Time `json:"revoked,omitzero"`
}

// Active reports whether the token has not been revoked.
func (t AccessToken) Active() bool { return t.Revoked.IsZero() }

const tokenColumns = `name, hash, projects, created, last_used, revoked`

// CreateAccessToken records a new token in m's catalog. A revoked token of
// the same name is replaced; a live one is ErrAccessTokenExists.
func CreateAccessToken(ctx context.Context, m *memory.Memory, name string, hash []byte, projects []string, created time.Time) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("create token: empty name")
	}
	if len(hash) == 0 {
		return errors.New("create token: empty hash")
	}
	if projects == nil {
		projects = []string{}
	}
	pj, err := json.Marshal(projects)
	if err != nil {
		return fmt.Errorf("create token %s: %w", name, err)
	}
	err = m.WriteCatalog(ctx, func(tx *memory.CatalogTx) error {
		var revoked int64
		switch err := tx.QueryRowContext(ctx, `SELECT revoked FROM tokens WHERE name=?`, name).Scan(&revoked); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case revoked == 0:
			return ErrAccessTokenExists
		default:
			if _, err := tx.ExecContext(ctx, `DELETE FROM tokens WHERE name=?`, name); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO tokens(name, hash, projects, created) VALUES(?,?,?,?)`,
			name, hash, string(pj), created.Unix())
		return err
	})
	if err != nil {
		return fmt.Errorf("create token %s: %w", name, err)
	}
	return nil
}

// AccessTokens lists every token in m's catalog, revoked ones included, by
// name.
func AccessTokens(ctx context.Context, m *memory.Memory) ([]AccessToken, error) {
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	defer rt.Close()
	var out []AccessToken
	err = memory.EachRow(ctx, rt, `SELECT `+tokenColumns+` FROM tokens ORDER BY name`, nil, func(rows *sql.Rows) error {
		t, err := scanAccessToken(rows)
		out = append(out, t)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

// FindAccessToken returns one token of m's catalog by name, or
// memory.ErrNotFound.
func FindAccessToken(ctx context.Context, m *memory.Memory, name string) (AccessToken, error) {
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return AccessToken{}, fmt.Errorf("token %s: %w", name, err)
	}
	defer rt.Close()
	t, err := scanAccessToken(rt.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM tokens WHERE name=?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return AccessToken{}, fmt.Errorf("token %s: %w", name, memory.ErrNotFound)
	}
	if err != nil {
		return AccessToken{}, fmt.Errorf("token %s: %w", name, err)
	}
	return t, nil
}

// RevokeAccessToken marks a token revoked; it stays in the catalog so the
// audit log keeps a name to point at. Revoking twice is not an error; an
// unknown name is memory.ErrNotFound.
func RevokeAccessToken(ctx context.Context, m *memory.Memory, name string, at time.Time) error {
	err := m.WriteCatalog(ctx, func(tx *memory.CatalogTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE tokens SET revoked=? WHERE name=? AND revoked=0`, at.Unix(), name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var one int
			return tx.QueryRowContext(ctx, `SELECT 1 FROM tokens WHERE name=?`, name).Scan(&one)
		}
		return nil
	})
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("revoke token %s: %w", name, memory.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("revoke token %s: %w", name, err)
	}
	return nil
}

// TouchAccessToken records that a token was just used.
func TouchAccessToken(ctx context.Context, m *memory.Memory, name string, at time.Time) error {
	err := m.WriteCatalog(ctx, func(tx *memory.CatalogTx) error {
		_, err := tx.ExecContext(ctx, `UPDATE tokens SET last_used=? WHERE name=? AND last_used<?`, at.Unix(), name, at.Unix())
		return err
	})
	if err != nil {
		return fmt.Errorf("touch token %s: %w", name, err)
	}
	return nil
}

func scanAccessToken(r interface{ Scan(dest ...any) error }) (AccessToken, error) {
	var (
		t                        AccessToken
		projects                 string
		created, used, revokedAt int64
	)
	if err := r.Scan(&t.Name, &t.Hash, &projects, &created, &used, &revokedAt); err != nil {
		return AccessToken{}, err
	}
	if err := json.Unmarshal([]byte(projects), &t.Projects); err != nil {
		return AccessToken{}, fmt.Errorf("token %s: bad projects %q: %w", t.Name, projects, err)
	}
	t.Created = catalogTime(created)
	t.LastUsed = catalogTime(used)
	t.Revoked = catalogTime(revokedAt)
	return t, nil
}

// catalogTime is a catalog's Unix seconds as a time; 0 is the zero time.
func catalogTime(s int64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(s, 0).UTC()
}
