package memory

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ireneo-app/ireneo/engine"
	"github.com/ireneo-app/ireneo/funes"
)

// keptOf is how many statements the memory keeps of query.
func keptOf(m *Memory, query string) int {
	m.stmts.mu.Lock()
	defer m.stmts.mu.Unlock()
	return len(m.stmts.m[query])
}

// readSeqs reads the seqs of conversation sess's turns through EachRow in
// its own read transaction.
func readSeqs(t *testing.T, m *Memory, query string, args ...any) []int {
	t.Helper()
	rt, err := m.BeginRead(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	var seqs []int
	err = EachRow(context.Background(), rt, query, args, func(rows *sql.Rows) error {
		var s int
		err := rows.Scan(&s)
		seqs = append(seqs, s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return seqs
}

// TestReadKeepsAStatementTheSecondTime: a text is parsed in its
// transaction the first time the memory meets it, kept after the second,
// and read through the kept statement after that with the same rows; a
// text met once (one built around its values) is never kept.
func TestReadKeepsAStatementTheSecondTime(t *testing.T) {
	m := openTest(t)
	mustIngest(t, m, conv("k1", funes.HarnessClaudeCode, "Kept", "", day0, "one", "two", "three"))
	q := `SELECT seq FROM turns WHERE seq >= ? ORDER BY seq`
	want := []int{1, 2}
	for i, kept := range []int{0, 1, 1, 1} {
		if got := readSeqs(t, m, q, 1); !reflect.DeepEqual(got, want) {
			t.Fatalf("read %d: seqs %v, want %v", i+1, got, want)
		}
		if n := keptOf(m, q); n != kept {
			t.Fatalf("after read %d: %d statements kept, want %d", i+1, n, kept)
		}
	}
	once := `SELECT seq FROM turns WHERE seq IN (0, 2) ORDER BY seq`
	if got := readSeqs(t, m, once); !reflect.DeepEqual(got, []int{0, 2}) {
		t.Fatalf("seqs %v", got)
	}
	if n := keptOf(m, once); n != 0 {
		t.Fatalf("a text met once: %d statements kept", n)
	}
}

// TestKeptStatementServesOneReadAtATime: a scan that reads the same text
// again inside itself, and the engine's cursors (one per query term, each
// streaming the same statement's rows), each get a statement of their own;
// the rows are those of reads prepared anew.
func TestKeptStatementServesOneReadAtATime(t *testing.T) {
	m := openTest(t)
	var ss []*funes.Session
	for i := range 12 {
		ss = append(ss, conv(fmt.Sprintf("n%d", i), funes.HarnessClaudeCode, "Nested", "", day0,
			strings.Repeat("walrus tusk harbour ", 1+i%3)+fmt.Sprint(i), "the harbour walrus report "+strings.Repeat("tusk ", i%4)))
	}
	mustIngest(t, m, ss...)
	ctx := context.Background()
	q := `SELECT seq FROM turns WHERE sess = ? ORDER BY seq`
	nested := func() map[int][]int {
		rt, err := m.BeginRead(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		out := map[int][]int{}
		err = EachRow(ctx, rt, `SELECT id FROM sessions ORDER BY id`, nil, func(rows *sql.Rows) error {
			var id int
			if err := rows.Scan(&id); err != nil {
				return err
			}
			// The same text, twice at once: the outer read still holds one.
			return EachRow(ctx, rt, q, []any{id}, func(a *sql.Rows) error {
				var s int
				if err := a.Scan(&s); err != nil {
					return err
				}
				return EachRow(ctx, rt, q, []any{id}, func(b *sql.Rows) error {
					var s2 int
					err := b.Scan(&s2)
					out[id] = append(out[id], s*10+s2)
					return err
				})
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	first := nested()
	if len(first) != 12 || !reflect.DeepEqual(first[1], []int{0, 1, 10, 11}) {
		t.Fatalf("nested reads: %v", first)
	}
	for range 3 {
		if got := nested(); !reflect.DeepEqual(got, first) {
			t.Fatalf("nested reads through kept statements: %v, want %v", got, first)
		}
	}
	if n := keptOf(m, q); n != 2 {
		t.Fatalf("a text read twice at once: %d statements kept, want 2", n)
	}

	// Terms with postings past one block, read from SQL with the
	// engine's cache new for each search.
	var many []*funes.Session
	for i := range 400 {
		many = append(many, conv(fmt.Sprintf("b%d", i), funes.HarnessClaudeCode, "Blocks", "", day0,
			"walrus harbour "+strings.Repeat("tusk ", 1+i%5)+fmt.Sprint(i), "report "+strings.Repeat("walrus ", 1+i%3)))
	}
	mustIngest(t, m, many...)
	terms := queryTerms("walrus tusk harbour report")
	query := engine.Query{Terms: terms, K: 5}
	var ref []engine.Hit
	for i := range 4 {
		m.engCache = engine.NewCache(engineCacheBytes)
		rt, err := m.BeginRead(ctx)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := rt.Search(ctx, query, engine.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		all, err := rt.SearchExhaustive(ctx, query, engine.DefaultParams())
		rt.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 5 || !reflect.DeepEqual(docsOf(hits), docsOf(all)) {
			t.Fatalf("search %d: %v, exhaustive %v", i+1, docsOf(hits), docsOf(all))
		}
		if i == 0 {
			ref = hits
		} else if !reflect.DeepEqual(docsOf(hits), docsOf(ref)) {
			t.Fatalf("search %d through kept statements: %v, want %v", i+1, docsOf(hits), docsOf(ref))
		}
	}
	blocks := `SELECT last, data FROM eng_blocks WHERE term=? AND last>=? ORDER BY last`
	if n := keptOf(m, blocks); n < 2 {
		t.Fatalf("the engine's block reads: %d statements kept, want one per cursor reading at once", n)
	}
}

func docsOf(hs []engine.Hit) []uint64 {
	out := make([]uint64, len(hs))
	for i, h := range hs {
		out[i] = h.Doc
	}
	return out
}

// TestKeptStatementsAcrossReaders: readers in goroutines of their own,
// each in its transaction, read through the same kept statements (run it
// with -race).
func TestKeptStatementsAcrossReaders(t *testing.T) {
	m := openTest(t)
	mustIngest(t, m, conv("r1", funes.HarnessClaudeCode, "Readers", "", day0, "one", "two", "three", "four"))
	q := `SELECT seq FROM turns WHERE seq >= ? ORDER BY seq`
	readSeqs(t, m, q, 0)
	readSeqs(t, m, q, 0)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				rt, err := m.BeginRead(context.Background())
				if err != nil {
					errs <- err
					return
				}
				n := 0
				err = EachRow(context.Background(), rt, q, []any{g % 4}, func(rows *sql.Rows) error {
					n++
					var s int
					return rows.Scan(&s)
				})
				rt.Close()
				if err == nil && n != 4-g%4 {
					err = fmt.Errorf("reader %d, read %d: %d rows, want %d", g, i, n, 4-g%4)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestListsPadToAPowerOfTwo: TurnSet's and IDSet's texts take a few shapes, their
// repeats of the last turn change nothing, and past 1,024 turns it is not
// padded.
func TestListsPadToAPowerOfTwo(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 64, 65, 1024, 1025} {
		turns := make([]TurnKey, n)
		for i := range turns {
			turns[i] = TurnKey{Sess: int64(i), Seq: i}
		}
		set, args := TurnSet(turns)
		want := 1
		for want < n {
			want *= 2
		}
		if n > 1024 {
			want = n
		}
		if got := strings.Count(set, "(?,?)"); got != want || len(args) != 2*want {
			t.Fatalf("%d turns: %d pairs in the text, %d args; want %d", n, got, len(args), want)
		}
		if args[2*want-2] != turns[n-1].Sess || args[2*want-1] != turns[n-1].Seq {
			t.Fatalf("%d turns: padded with %v, %v", n, args[2*want-2], args[2*want-1])
		}
	}
	for _, n := range []int{1, 3, 8, 1025} {
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = int64(i)
		}
		set, args := IDSet(ids)
		if got := strings.Count(set, "?"); got != len(args) || n <= 1024 && got&(got-1) != 0 || n > 1024 && got != n || args[len(args)-1] != ids[n-1] {
			t.Fatalf("%d ids: %d marks, %d args, last %v", n, got, len(args), args[len(args)-1])
		}
	}
	m := openTest(t)
	mustIngest(t, m, conv("p1", funes.HarnessClaudeCode, "Pad", "", day0, "one", "two", "three"))
	set, args := TurnSet([]TurnKey{{Sess: 1, Seq: 0}, {Sess: 1, Seq: 1}, {Sess: 1, Seq: 2}})
	if got := readSeqs(t, m, `SELECT seq FROM turns WHERE (sess, seq) IN (`+set+`) ORDER BY seq`, args...); !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Fatalf("a padded list read %v", got)
	}
}
