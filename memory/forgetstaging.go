package memory

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// stagedSession is a conversation found in the staging file of an import
// still running.
type stagedSession struct {
	harness, sid, title string
}

// eraseStaged finds and, with zero, zeroes in place every line of a conversation in the staged
// files of imports still running (harness "" matches any), and returns what
// it found. The other lines keep their offsets, so the import goes on; at
// commit it finds the tombstone, skips the conversation and zeroes its
// staging folder. A folder whose import has died meanwhile is cleared whole.
func (m *Memory) eraseStaged(ctx context.Context, harness, sid string, zero bool) ([]stagedSession, error) {
	root := filepath.Join(m.dir, stagingDir)
	ents, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var (
		found []stagedSession
		errs  []error
	)
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), batchPrefix) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if err := m.recoverBatch(ctx, dir); err != nil {
			errs = append(errs, err)
			continue
		}
		f, err := zeroLinesOf(filepath.Join(dir, stagedName), harness, sid, zero)
		if err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		}
		found = append(found, f...)
		if zero {
			errs = append(errs, zeroIncoming(dir, harness, sid))
		}
	}
	return found, errors.Join(errs...)
}

// zeroLinesOf finds each whole line of path that belongs to the
// conversation and, with zero, overwrites it with zeros.
func zeroLinesOf(path, harness, sid string, zero bool) ([]stagedSession, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	var (
		off   int64
		found []stagedSession
		seen  = map[string]bool{}
		wrote bool
	)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			var head struct {
				SessionID string `json:"session_id"`
				Harness   string `json:"harness"`
				Title     string `json:"title"`
			}
			if json.Unmarshal(line, &head) == nil && head.SessionID == sid && (harness == "" || head.Harness == harness) {
				if zero {
					if _, werr := f.WriteAt(make([]byte, len(line)), off); werr != nil {
						return found, werr
					}
					wrote = true
				}
				if !seen[head.Harness] {
					seen[head.Harness] = true
					found = append(found, stagedSession{head.Harness, head.SessionID, head.Title})
				}
			}
		}
		off += int64(len(line))
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return found, err
		}
	}
	if wrote {
		return found, f.Sync()
	}
	return found, nil
}

// zeroIncoming zeroes, in place, a running import's in-* files that hold
// the conversation: its commit went through before the forget, and it is
// about to rename them into src/, where it looks at the tombstone again and
// erases them. Unlinking them instead would fail the rest of its import.
func zeroIncoming(dir, harness, sid string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	var errs []error
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), incomingPrefix) {
			continue
		}
		if _, err := zeroLinesOf(filepath.Join(dir, e.Name()), harness, sid, true); err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
