package sqlitepages

import (
	"bytes"
	"testing"
)

// TestZeroPageFree: the gap and freeblock bodies of a page image are
// zeroed; headers, cell pointers, cells and freeblock links stay; pages
// that are not B-tree pages are left alone.
func TestZeroPageFree(t *testing.T) {
	p := make([]byte, 512)
	p[0] = 0x0d                   // leaf table
	p[1], p[2] = 0x01, 0x2c       // first freeblock at 300
	p[3], p[4] = 0x00, 0x01       // one cell
	p[5], p[6] = 0x01, 0x00       // content from 256
	p[8], p[9] = 0x01, 0x80       // the cell at 384
	copy(p[10:], "STALEGAP")      // in the gap
	p[300], p[301] = 0x00, 0x00   // the last freeblock
	p[302], p[303] = 0x00, 0x10   // of 16 bytes
	copy(p[304:], "STALEFREE")    // in its body
	copy(p[384:], "LIVECELLDATA") // the cell
	if !ZeroPageFree(p, false) {
		t.Fatal("nothing zeroed")
	}
	if bytes.Contains(p, []byte("STALE")) || !bytes.Contains(p, []byte("LIVECELLDATA")) || p[302] != 0 || p[303] != 0x10 || p[8] != 0x01 {
		t.Fatalf("page after: %q", p)
	}
	if ZeroPageFree(p, false) {
		t.Error("a second pass found more to zero")
	}
	over := make([]byte, 512)
	copy(over, "\x00\x00\x00\x07overflow payload")
	if ZeroPageFree(over, false) || !bytes.Contains(over, []byte("overflow payload")) {
		t.Error("an overflow page was touched")
	}
}
