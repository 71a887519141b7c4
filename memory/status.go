package memory

import (
	"context"
	"database/sql"
	"os"
	"time"
)

// Status summarises a memory.
type Status struct {
	Dir           string         `json:"dir"`
	Conversations int            `json:"conversations"`
	Turns         int            `json:"turns"`
	Chunks        int            `json:"chunks"`
	Tokens        int            `json:"tokens"`
	Projects      int            `json:"projects"`
	Starred       int            `json:"starred"`
	Forgotten     int            `json:"forgotten"`
	BySource      map[string]int `json:"by_source"`
	SizeBytes     int64          `json:"size_bytes"`
	LastImport    *time.Time     `json:"last_import"`
}

// Status counts what the memory holds and its size on disk.
func (m *Memory) Status(ctx context.Context) (Status, error) {
	st := Status{Dir: m.dir, BySource: map[string]int{}}
	for q, dst := range map[string]*int{
		`SELECT count(*), COALESCE(sum(turns),0), COALESCE(sum(tokens),0) FROM sessions`: nil,
		`SELECT count(*) FROM chunks`:                          &st.Chunks,
		`SELECT count(DISTINCT project) FROM session_projects`: &st.Projects,
		`SELECT count(*) FROM stars WHERE starred`:             &st.Starred,
		`SELECT count(*) FROM tombstones`:                      &st.Forgotten,
	} {
		var err error
		if dst == nil {
			err = m.db.QueryRowContext(ctx, q).Scan(&st.Conversations, &st.Turns, &st.Tokens)
		} else {
			err = m.db.QueryRowContext(ctx, q).Scan(dst)
		}
		if err != nil {
			return st, err
		}
	}
	err := EachRow(ctx, m.db, `SELECT harness, count(*) FROM sessions GROUP BY harness`, nil, func(rows *sql.Rows) error {
		var h string
		var n int
		if err := rows.Scan(&h, &n); err == nil {
			st.BySource[h] = n
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	// The same size as the insights headline's (the conversation files as
	// indexed plus the database files), so `status`, `insights` and the
	// app's screens show one size, without a walk over every file.
	var srcBytes int64
	if err := m.db.QueryRowContext(ctx, `SELECT COALESCE(sum(bytes),0) FROM sessions`).Scan(&srcBytes); err != nil {
		return st, err
	}
	st.SizeBytes = srcBytes + m.DatabaseBytes()
	if v := m.metaGet(ctx, "last_import"); v != "" {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			st.LastImport = &t
		}
	}
	return st, nil
}

// DatabaseBytes adds up the files directly in the memory folder: the
// database and its write-ahead log.
func (m *Memory) DatabaseBytes() int64 {
	var n int64
	ents, _ := os.ReadDir(m.dir)
	for _, e := range ents {
		if e.Type().IsRegular() {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
	}
	return n
}
