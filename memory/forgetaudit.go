package memory

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ireneo-app/ireneo/querywords"
)

// eraseAudit deletes the audit rows that name a conversation (its id, alone
// or as harness:id, as a JSON string in the call's arguments) and the rows
// whose query matches its text or title, whether or not the search ranked
// it among the hits: the log keeps only hit counts, so "could have found
// it" is the test. It runs in the forget's transaction, before the
// conversation's index rows go (sess is its row id; 0 if it has none).
func eraseAudit(ctx context.Context, tx *sql.Tx, harness, sid string, sess int64) error {
	for _, needle := range auditNeedles(harness, sid) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM audit WHERE instr(args, ?) > 0`, needle); err != nil {
			return fmt.Errorf("erase audit rows: %w", err)
		}
	}
	if sess == 0 {
		return nil
	}
	byExpr, err := auditQueries(ctx, tx)
	if err != nil || len(byExpr) == 0 {
		return err
	}
	hit, err := matchingExprs(ctx, tx, sess, byExpr)
	if err != nil {
		return fmt.Errorf("erase audit rows: %w", err)
	}
	for _, expr := range hit {
		for _, id := range byExpr[expr] {
			if _, err := tx.ExecContext(ctx, `DELETE FROM audit WHERE id=?`, id); err != nil {
				return fmt.Errorf("erase audit rows: %w", err)
			}
		}
	}
	return nil
}

// auditNeedles are the JSON string forms a call's arguments would hold the
// id in.
func auditNeedles(harness, sid string) []string {
	var out []string
	for _, v := range []string{sid, harness + ":" + sid} {
		plain := jsonString(v, false)
		out = append(out, plain)
		if html := jsonString(v, true); html != plain {
			out = append(out, html)
		}
	}
	return out
}

func jsonString(s string, escapeHTML bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// auditQueries maps each recorded query, as an FTS5 expression, to the
// audit rows that asked it.
func auditQueries(ctx context.Context, tx *sql.Tx) (map[string][]int64, error) {
	out := map[string][]int64{}
	err := EachRow(ctx, tx, `SELECT id, args FROM audit WHERE instr(args, '"query"') > 0`, nil, func(rows *sql.Rows) error {
		var id int64
		var args string
		if err := rows.Scan(&id, &args); err != nil {
			return err
		}
		var a struct {
			Query string `json:"query"`
		}
		if json.Unmarshal([]byte(args), &a) != nil || strings.TrimSpace(a.Query) == "" {
			return nil
		}
		if expr := querywords.SearchTerms(a.Query).MatchExpr(); expr != "" {
			out[expr] = append(out[expr], id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read audit: %w", err)
	}
	return out, nil
}

// matchingExprs returns the expressions that match the conversation's
// chunks. Each is tried against those chunks alone, in a throwaway FTS5
// table in the forget's connection that is dropped before it commits.
func matchingExprs(ctx context.Context, tx *sql.Tx, sess int64, byExpr map[string][]int64) ([]string, error) {
	for _, q := range []string{
		`DROP TABLE IF EXISTS forget_probe`,
		`CREATE VIRTUAL TABLE forget_probe USING fts5(body, title, ids, tokenize = 'porter unicode61 remove_diacritics 2')`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return nil, err
		}
	}
	// The conversation's searched chunks, as recall matched them.
	var probe [][2]string
	err := EachRow(ctx, tx, `SELECT c.body, s.title FROM chunks c JOIN sessions s ON s.id = c.sess WHERE c.sess = ? AND c.searched`, []any{sess}, func(rows *sql.Rows) error {
		var body, title string
		err := rows.Scan(&body, &title)
		probe = append(probe, [2]string{body, title})
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, p := range probe {
		if _, err := tx.ExecContext(ctx, `INSERT INTO forget_probe(body, title, ids) VALUES(?,?,?)`, p[0], p[1], strings.Join(querywords.Identifiers(p[0]), " ")); err != nil {
			return nil, err
		}
	}
	var hit []string
	for expr := range byExpr {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM forget_probe WHERE forget_probe MATCH ? LIMIT 1`, expr).Scan(&one)
		if err == nil {
			hit = append(hit, expr)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE forget_probe`); err != nil {
		return nil, err
	}
	return hit, nil
}
