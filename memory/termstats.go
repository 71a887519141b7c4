package memory

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"time"
)

// termStats knows, for a query word, its FTS5 stem and in how many body
// chunks that stem occurs. Recall uses it to leave out words so common that
// they would make FTS5 score most of the index while adding nothing to the
// ranking.
type termStats struct {
	mu    sync.Mutex
	stems map[string]string // word → porter stem, as FTS5 makes it
	df    map[string]int    // stem → chunks whose body holds it
	total int
	at    time.Time // when df and total were read
}

// statsTTL bounds how stale document frequencies may be when another
// process (the tray app, a CLI import) changed the memory.
const statsTTL = 30 * time.Second

const statsTables = `
CREATE VIRTUAL TABLE IF NOT EXISTS temp.qtok USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS temp.qtok_v USING fts5vocab(temp, qtok, 'instance');
CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_v USING fts5vocab(main, chunks_fts, 'col');`

// invalidate drops cached frequencies after this process changed the index.
func (ts *termStats) invalidate() {
	ts.mu.Lock()
	ts.df = nil
	ts.mu.Unlock()
}

// frequencies returns the document frequency of each word's stem and the
// number of chunks. Words that FTS5 would not index come back as 0.
func (m *Memory) frequencies(ctx context.Context, words []string) (map[string]int, int, error) {
	ts := &m.stats
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.stems == nil || len(ts.stems) > 200000 {
		ts.stems = map[string]string{}
	}
	if ts.df == nil || time.Since(ts.at) > statsTTL {
		ts.df, ts.total, ts.at = map[string]int{}, -1, time.Now()
	}
	var unknown []string
	for _, w := range words {
		if _, ok := ts.stems[w]; !ok {
			unknown = append(unknown, w)
		}
	}
	needDF := ts.total < 0
	for _, w := range words {
		if st, ok := ts.stems[w]; !ok {
			needDF = true
		} else if _, ok := ts.df[st]; !ok {
			needDF = true
		}
	}
	if len(unknown) > 0 || needDF {
		conn, err := m.db.Conn(ctx)
		if err != nil {
			return nil, 0, err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, statsTables); err != nil {
			return nil, 0, err
		}
		if err := stemWords(ctx, conn, unknown, ts.stems); err != nil {
			return nil, 0, err
		}
		if ts.total < 0 {
			if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM chunks WHERE searched`).Scan(&ts.total); err != nil {
				return nil, 0, err
			}
		}
		for _, w := range words {
			st := ts.stems[w]
			if _, ok := ts.df[st]; ok || st == "" {
				continue
			}
			var n int
			err := conn.QueryRowContext(ctx, `SELECT doc FROM temp.chunks_v WHERE term = ? AND col = 'body'`, st).Scan(&n)
			if err != nil && err != sql.ErrNoRows {
				return nil, 0, err
			}
			ts.df[st] = n
		}
	}
	out := make(map[string]int, len(words))
	for _, w := range words {
		out[w] = ts.df[ts.stems[w]]
	}
	return out, ts.total, nil
}

// stemWords asks FTS5's own tokenizer for the stems, through a temporary
// one-row table, so they match the index exactly.
func stemWords(ctx context.Context, conn *sql.Conn, words []string, into map[string]string) error {
	if len(words) == 0 {
		return nil
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO temp.qtok(rowid, x) VALUES(1, ?)`, strings.Join(words, " ")); err != nil {
		return err
	}
	defer conn.ExecContext(ctx, `DELETE FROM temp.qtok`)
	rows, err := conn.QueryContext(ctx, `SELECT term, offset FROM temp.qtok_v`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for _, w := range words {
		into[w] = "" // not indexed unless the tokenizer says otherwise
	}
	for rows.Next() {
		var term string
		var off int
		if err := rows.Scan(&term, &off); err != nil {
			return err
		}
		if off >= 0 && off < len(words) {
			into[words[off]] = term
		}
	}
	return rows.Err()
}
