package answer

import (
	"fmt"
	"strings"
)

// ProjectCount is a project and how many conversations carry it.
type ProjectCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// ProjectsResult is the list_projects tool's structured answer.
type ProjectsResult struct {
	Marker   string         `json:"marker"` // Marker
	Projects []ProjectCount `json:"projects"`
	Untagged int            `json:"untagged"`
}

// MCPProjects is the list_projects tool's answer, structured and text.
func MCPProjects(ps []ProjectCount, untagged int) (*ProjectsResult, string) {
	if ps == nil {
		ps = []ProjectCount{}
	}
	r := &ProjectsResult{Marker: Marker, Projects: ps, Untagged: untagged}
	return r, projectsText(r)
}

func projectsText(r *ProjectsResult) string {
	var b strings.Builder
	if len(r.Projects) == 0 {
		b.WriteString(marked(projectsNone + "\n"))
	} else {
		b.WriteString(marked(projectsHead + "\n"))
		for _, p := range r.Projects {
			fmt.Fprintf(&b, "- %s (%d)\n", p.Name, p.Count)
		}
	}
	if r.Untagged > 0 {
		fmt.Fprintf(&b, "\n%d conversation(s) carry no project.\n", r.Untagged)
	}
	return b.String()
}
