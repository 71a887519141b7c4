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

// worktreeDirs are folders that hold a repository's git worktrees inside
// it: Claude Code's own (.claude/worktrees) and the usual hand-made ones.
var worktreeDirs = []string{"/.claude/worktrees/", "/.worktrees/", "/worktrees/", "/.git/worktrees/"}

// repoProject derives a coding session's project from its working directory
// and git branch, mapping git worktrees to the repository they belong to:
// <repo>/.claude/worktrees/<name> (and .worktrees/, worktrees/) is <repo>,
// and a sibling checkout named <repo>-<branch> (or <repo>.<branch>,
// <repo>_<branch>, <repo>@<branch>) is <repo>. Only the records are used,
// never the disk, so a re-import derives the same project.
func repoProject(cwd, branch string) string {
	p := strings.ReplaceAll(strings.TrimSpace(cwd), `\`, "/")
	for _, d := range worktreeDirs {
		if i := strings.Index(p, d); i > 0 {
			if name := lastPathElem(p[:i]); name != "" {
				return name
			}
		}
	}
	name := lastPathElem(p)
	b := strings.TrimSpace(branch)
	if b == "" || b == "HEAD" || b == "main" || b == "master" || name == "" {
		return name
	}
	for _, munged := range []string{b, strings.ReplaceAll(b, "/", "-"), lastPathElem(b)} {
		for _, sep := range []string{"-", ".", "_", "@"} {
			if repo, ok := strings.CutSuffix(name, sep+munged); ok && len(repo) >= 2 && repo != "wt" && repo != "worktree" {
				return repo
			}
		}
	}
	return name
}
