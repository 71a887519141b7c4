package memory

import (
	"fmt"
	"strings"
)

// The project filter that the conversation list, get and recall's reads
// share.

// ProjectFilter renders the project filter and a token's scope as SQL
// conditions over the sessions alias s, with their arguments: project with
// the untagged conversations, or alone (only); untagged for the
// conversations with no project; scope nil for none, empty for nothing.
func ProjectFilter(s, project string, only, untagged bool, scope []string) ([]string, []any) {
	var where []string
	var args []any
	tagged := fmt.Sprintf(`EXISTS(SELECT 1 FROM session_projects p WHERE p.harness=%[1]s.harness AND p.session_id=%[1]s.session_id`, s)
	switch {
	case project != "" && only:
		where = append(where, tagged+" AND p.project = ?)")
		args = append(args, project)
	case project != "":
		where = append(where, "("+tagged+" AND p.project = ?) OR NOT "+tagged+"))")
		args = append(args, project)
	}
	if untagged {
		where = append(where, "NOT "+tagged+")")
	}
	if scope != nil {
		if len(scope) == 0 {
			where = append(where, "0")
		} else {
			where = append(where, tagged+" AND p.project IN ("+strings.TrimSuffix(strings.Repeat("?,", len(scope)), ",")+"))")
			for _, p := range scope {
				args = append(args, p)
			}
		}
	}
	return where, args
}
