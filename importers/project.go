package importers

import "strings"

// projectFor derives a coding session's project: the repository name from
// its git remote when the source records one, else the last folder of its
// working directory. Only what the file says is used — never the local disk
// — so re-importing a file always derives the same project.
func projectFor(cwd, remote string) string {
	if name := lastPathElem(strings.TrimSuffix(strings.TrimSpace(remote), ".git")); name != "" {
		return name
	}
	return lastPathElem(cwd)
}

// lastPathElem is the last element of a slash, backslash or colon separated
// path ("git@host:owner/repo" and "C:\src\repo" included).
func lastPathElem(p string) string {
	p = strings.TrimRight(strings.TrimSpace(p), `/\`)
	if i := strings.LastIndexAny(p, `/\:`); i >= 0 {
		p = p[i+1:]
	}
	if p == "." || p == ".." {
		return ""
	}
	return p
}
