package memory

import (
	"context"
	"fmt"
	"strconv"
)

// metaPackedPages is the meta key holding the database's page count just
// after it was last packed (VACUUM): Grown compares against it.
const metaPackedPages = "packed_pages"

// packGrowth is how much the database may grow past its last packed size
// before Grown says to pack it again, and packMinPages the size below which
// it never bothers (4 MB at 4 KB pages). An import fills its tables' pages
// by splitting them, which leaves them partly empty: the heavy memory,
// imported from nothing, is 217.6 MB as the import leaves it and 205.7 MB
// packed (1.234× src/ against 1.166×; the VACUUM took 2–5 s). Small imports
// after that fill worse: 1,037 conversations more in 449 imports of one
// input each grew it 37.2 MB for 24.9 MB of src/ (1.49×), to 1.213×. At a
// tenth of growth a memory stays within about 1.19× between packs, for a
// VACUUM of about eleven times its final size over its whole life, a few
// seconds a thousand conversations on the heavy memory; a quarter let it
// reach 1.22×.
var (
	packGrowth   = 1.1
	packMinPages = int64(1024)
)

// Grown reports whether the database has grown by packGrowth since it was
// last packed, so that Pack would be worth its time. The importers ask at
// the end of an import; a memory never packed counts as packed at size
// zero, so the first import of any size past packMinPages packs.
func (m *Memory) Grown(ctx context.Context) bool {
	var pages int64
	if m.db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages) != nil {
		return false
	}
	last, _ := strconv.ParseInt(m.metaGet(ctx, metaPackedPages), 10, 64)
	return pages >= packMinPages && float64(pages) >= packGrowth*float64(last)
}

// Pack rewrites the database full (pack): after an import, Grown says
// when. Readers go on meanwhile; writers wait for it.
func (m *Memory) Pack(ctx context.Context) error {
	if err := m.pack(ctx); err != nil {
		return fmt.Errorf("pack the index: %w", err)
	}
	return nil
}

// pack rewrites the database with no free space and its pages full. After
// the whole index was built again (reindex, a layout upgrade) its tables
// were filled while the old index's pages were still free, so they come
// out half full; after an import, its page splits leave them about 85 %
// full (Grown). It erases what the old pages held, as erase does.
// VACUUM needs room for a copy; without it the free space is zeroed in
// place instead.
func (m *Memory) pack(ctx context.Context) error {
	m.writeMu.Lock()
	_, err := m.db.ExecContext(ctx, `VACUUM`)
	if err == nil {
		m.notePacked(ctx)
		err = m.checkpoint(ctx)
	}
	m.writeMu.Unlock()
	if err != nil {
		_, err = m.erase(ctx)
	}
	return err
}

// notePacked records the page count of a database just packed; writeMu
// is held. Failing to record it costs at most an early pack.
func (m *Memory) notePacked(ctx context.Context) {
	var pages int64
	if m.db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages) == nil {
		m.metaSet(ctx, m.db, metaPackedPages, strconv.FormatInt(pages, 10))
	}
}
