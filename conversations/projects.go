package conversations

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ireneo-app/ireneo/answer"
	"github.com/ireneo-app/ireneo/memory"
)

// Projects lists projects with their conversation counts, biggest first,
// read in one snapshot of m. A non-nil scope limits the list to those
// projects. The untagged count is returned separately, and is 0 under a
// scope.
func Projects(ctx context.Context, m *memory.Memory, scope []string) ([]answer.ProjectCount, int, error) {
	rt, err := m.BeginRead(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("projects: %w", err)
	}
	defer rt.Close()
	allowed := map[string]bool{}
	for _, p := range scope {
		allowed[p] = true
	}
	out := []answer.ProjectCount{}
	err = memory.EachRow(ctx, rt, `SELECT p.project, count(*) FROM session_projects p
		JOIN sessions s ON s.harness=p.harness AND s.session_id=p.session_id
		GROUP BY p.project ORDER BY count(*) DESC, p.project`, nil, func(rows *sql.Rows) error {
		var pc answer.ProjectCount
		if err := rows.Scan(&pc.Name, &pc.Count); err != nil {
			return err
		}
		if scope == nil || allowed[pc.Name] {
			out = append(out, pc)
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("projects: %w", err)
	}
	untagged := 0
	if scope == nil {
		err = rt.QueryRowContext(ctx, `SELECT count(*) FROM sessions s WHERE NOT EXISTS(
			SELECT 1 FROM session_projects p WHERE p.harness=s.harness AND p.session_id=s.session_id)`).Scan(&untagged)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("projects: %w", err)
	}
	return out, untagged, nil
}
