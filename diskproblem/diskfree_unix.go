//go:build linux || darwin

package diskproblem

import sysunix "golang.org/x/sys/unix"

// freeBytes is how many bytes the file system holding dir has free for
// this user, or -1 if it cannot tell.
func freeBytes(dir string) int64 {
	var st sysunix.Statfs_t
	if sysunix.Statfs(dir, &st) != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}
