// Package sqlitepages zeroes the free space inside a SQLite database's
// B-tree pages, reading the file itself and writing through SQLite's pager
// (sqlite_dbpage), so text deleted under secure_delete leaves no copy in
// the gaps a page rebuild left. It knows SQLite's file format, nothing of
// what the tables hold: a leaf.
package sqlitepages

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// secure_delete zeroes a cell SQLite deletes, and a page it frees, but not
// the copies a page rebuild leaves behind: when a B-tree page is rebuilt
// after its cells move to a sibling (a split or a balance), the bytes
// between its cell pointers and its new cell content keep the old cells.
// When one of those cells is deleted later in the page it moved to, its
// copy stays in the first page's free space: in 2 of 25 forgets a word of
// the forgotten conversation stayed in a live page of chunks or eng_terms.
// ZeroFreeSpace overwrites that free space in every B-tree page: the gap
// and every freeblock (SQLite's page format: sqlite.org/fileformat.html,
// 1.6). The fragments (runs under 4 bytes) are left: no word fits there.

// ErrWALNotEmpty is ZeroFreeSpace's sign that a write landed between the
// checkpoint and its transaction: the file is not the whole database.
var ErrWALNotEmpty = errors.New("the write-ahead log is not empty")

// ZeroFreeSpace zeroes the free space of every B-tree page of the database
// file path and returns how many pages it rewrote. It reads the file
// itself (75 ms for 240 MB; SQLite's dbstat and sqlite_dbpage tables took
// 1.3 and 3.7 s) inside tx, a write transaction of that database begun on
// an empty write-ahead log (else ErrWALNotEmpty), so the file is the whole
// database and no one changes it meanwhile; it walks the B-trees from
// their roots, so overflow and freelist pages are never taken for table
// pages; and it writes the pages it zeroed through SQLite's pager
// (sqlite_dbpage), in tx. The caller checkpoints first and after.
func ZeroFreeSpace(ctx context.Context, tx *sql.Tx, path string) (int, error) {
	written := 0
	err := func() error {
		if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
			return ErrWALNotEmpty
		}
		var pageSize int
		var roots []int64
		if err := tx.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT rootpage FROM sqlite_schema WHERE rootpage > 0`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var r int64
			if err := rows.Scan(&r); err != nil {
				rows.Close()
				return err
			}
			roots = append(roots, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		put, err := tx.PrepareContext(ctx, `UPDATE sqlite_dbpage SET data=? WHERE pgno=?`)
		if err != nil {
			return err
		}
		defer put.Close()
		return WalkBtrees(f, pageSize, append([]int64{1}, roots...), func(no int64, page []byte) error {
			if !ZeroPageFree(page, no == 1) {
				return nil
			}
			if _, err := put.ExecContext(ctx, page, no); err != nil {
				return fmt.Errorf("zero the free space of page %d: %w", no, err)
			}
			written++
			if written%1024 == 0 {
				return ctx.Err()
			}
			return nil
		})
	}()
	return written, err
}

// WalkBtrees calls fn with each page of the B-trees rooted at roots, read
// from f, once each: interior pages lead to their children; overflow
// pages are not followed. fn may change the page image it is given.
func WalkBtrees(f *os.File, pageSize int, roots []int64, fn func(no int64, page []byte) error) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	count := st.Size() / int64(pageSize)
	seen := map[int64]bool{}
	stack := append([]int64(nil), roots...)
	buf := make([]byte, pageSize)
	for len(stack) > 0 {
		no := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if no < 1 || no > count || seen[no] {
			continue
		}
		seen[no] = true
		if _, err := f.ReadAt(buf, (no-1)*int64(pageSize)); err != nil {
			return fmt.Errorf("read page %d: %w", no, err)
		}
		stack = append(stack, children(buf, no == 1)...)
		if err := fn(no, buf); err != nil {
			return err
		}
	}
	return nil
}

// children lists the child pages of an interior page (none for a leaf).
func children(p []byte, first bool) []int64 {
	h := 0
	if first {
		h = 100
	}
	if len(p) < h+12 || (p[h] != 0x02 && p[h] != 0x05) {
		return nil
	}
	u16 := func(i int) int { return int(binary.BigEndian.Uint16(p[i:])) }
	cells := u16(h + 3)
	out := []int64{int64(binary.BigEndian.Uint32(p[h+8:]))}
	for i := 0; i < cells; i++ {
		at := h + 12 + 2*i
		if at+2 > len(p) {
			break
		}
		c := u16(at)
		if c+4 > len(p) {
			continue
		}
		out = append(out, int64(binary.BigEndian.Uint32(p[c:])))
	}
	return out
}

// ZeroPageFree zeroes the free space of one B-tree page image in place
// and reports whether any byte changed. first is page 1, whose header
// follows the 100-byte file header. A page whose header does not add up
// is left as it is.
func ZeroPageFree(p []byte, first bool) bool {
	h := 0
	if first {
		h = 100
	}
	if len(p) < h+12 {
		return false
	}
	var hdr int
	switch p[h] {
	case 0x0a, 0x0d: // leaf index, leaf table
		hdr = 8
	case 0x02, 0x05: // interior index, interior table
		hdr = 12
	default:
		return false
	}
	u16 := func(i int) int { return int(binary.BigEndian.Uint16(p[i:])) }
	cells := u16(h + 3)
	content := u16(h + 5)
	if content == 0 {
		content = 65536
	}
	gapStart := h + hdr + 2*cells
	if gapStart > content || content > len(p) {
		return false
	}
	changed := zero(p[gapStart:content])
	// The freeblocks: each begins with the next one's offset and its own
	// size, which stay; its body is free.
	for fb, n := u16(h+1), 0; fb != 0 && n < len(p)/4; n++ {
		if fb < content || fb+4 > len(p) {
			break
		}
		size := u16(fb + 2)
		if size < 4 || fb+size > len(p) {
			break
		}
		if zero(p[fb+4 : fb+size]) {
			changed = true
		}
		next := u16(fb)
		if next != 0 && next <= fb {
			break
		}
		fb = next
	}
	return changed
}

// zero clears b and reports whether it held anything.
func zero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			clear(b)
			return true
		}
	}
	return false
}
