package engine

import (
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// fts5Terms tokenizes words with SQLite's own "porter unicode61
// remove_diacritics 2", one word per row, and returns each row's terms.
func fts5Terms(t testing.TB, words []string) [][]string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE VIRTUAL TABLE w USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE wv USING fts5vocab(w, 'instance')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	tx, _ := db.Begin()
	for i, w := range words {
		if _, err := tx.Exec(`INSERT INTO w(rowid, x) VALUES(?, ?)`, i+1, w); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(words))
	rows, err := db.Query(`SELECT doc, offset, term FROM wv ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var doc, off int
		var term string
		if err := rows.Scan(&doc, &off, &term); err != nil {
			t.Fatal(err)
		}
		out[doc-1] = append(out[doc-1], term)
	}
	return out
}

// corpusWords gathers distinct words from the repository's own Go and
// Markdown files: thousands of real English and code words.
func corpusWords(t testing.TB) []string {
	seen := map[string]bool{}
	filepath.Walk("..", func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() && (info.Name() == ".git" || info.Name() == ".tools") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".md") {
			b, _ := os.ReadFile(p)
			for _, w := range strings.FieldsFunc(string(b), func(r rune) bool { return !isTokenRune(r) }) {
				seen[w] = true
			}
		}
		return nil
	})
	var out []string
	for w := range seen {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

func TestAnalyzeMatchesFTS5(t *testing.T) {
	words := corpusWords(t)
	words = append(words, "Café", "naïve", "Ærøskøbing", "straße", "MT-4471", "K-2", "3.4%", "v1.2.1",
		"connection", "generalizations", "oscillators", "hopping", "caresses", "ponies", "relational",
		"conditional", "rational", "valenci", "hesitanci", "digitizer", "conformabli", "radicalli",
		"differentli", "vileli", "analogousli", "vietnamization", "predication", "operator", "feudalism",
		"decisiveness", "hopefulness", "callousness", "formaliti", "sensitiviti", "sensibiliti",
		"triplicate", "formative", "formalize", "electriciti", "electrical", "hopeful", "goodness",
		"revival", "allowance", "inference", "airliner", "gyroscopic", "adjustable", "defensible",
		"irritant", "replacement", "adjustment", "dependent", "adoption", "homologou", "communism",
		"activate", "angulariti", "homologous", "effective", "bowdlerize", "probate", "rate", "cease",
		"controll", "roll", "agreed", "feed", "plastered", "bled", "motoring", "sing", "conflated",
		"troubled", "sized", "hopping", "tanned", "falling", "hissing", "fizzed", "failing", "filing",
		"happy", "sky", "ΑΘΗΝΑ", "日本語", "١٢٣", "x²", "tête-à-tête")
	want := fts5Terms(t, words)
	bad, segs, mixed := 0, 0, 0
	for i, w := range words {
		exp := want[i]
		if hasSegmented(w) {
			// The intended difference: FTS5 keeps a run of a script
			// written without spaces as one token (and cuts Thai at its
			// vowel marks, which the engine folds into the run); the
			// engine indexes the run's character bigrams.
			joined := strings.Join(want[i], "")
			seg := SegmentWord(joined)
			if strings.IndexFunc(joined, func(r rune) bool { return !Segmented(r) }) >= 0 {
				mixed++ // a run beside Latin or digits: TestSegmentedScriptsAreBigrams
				continue
			}
			segs++
			exp = seg
		}
		got := Analyze(w)
		if strings.Join(got, " ") != strings.Join(exp, " ") {
			if bad < 30 {
				t.Errorf("Analyze(%q) = %q, FTS5 %q", w, got, want[i])
			}
			bad++
		}
	}
	t.Logf("%d words (%d of segmented scripts, compared as the bigrams of FTS5's tokens; %d mixed, left to TestSegmentedScriptsAreBigrams), %d differ", len(words), segs, mixed, bad)
	if segs == 0 {
		t.Error("no word of a segmented script was compared")
	}
}

func TestSegmentedScriptsAreBigrams(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"東京で旅行した", "東京 京で で旅 旅行 行し した"},
		{"東京", "東京"},
		{"猫", "猫"},
		{"iPhone東京2024年モデル", "iphon 東京 2024 年モ モデ デル"},
		{"ラーメン", "ラー ーメ メン"},
		{"서울에서 만나요", "서울 울에 에서 만나 나요"},
		{"สวัสดีครับ", "สว วส สด ดค คร รบ"}, // marks (ั ี) fold away
		{"hello 世界 world", "hello 世界 world"},
		{"Café naïve", "cafe naiv"},
	} {
		if got := strings.Join(Analyze(tc.in), " "); got != tc.want {
			t.Errorf("Analyze(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if SegmentWord("hello") != nil {
		t.Error("SegmentWord of a Latin word is not nil")
	}
	if got := strings.Join(SegmentWord("東京都"), " "); got != "東京 京都" {
		t.Errorf("SegmentWord(東京都) = %q", got)
	}
}

// The micro sign and Greek mu are one letter once case-folded, as FTS5's
// unicode61 folds them: a query typed either way finds the other. The
// engine kept the micro sign (TestAnalyzeMatchesFTS5 found it in the
// repository's own text: "µs").
func TestMicroSignIsMu(t *testing.T) {
	if a, b := Analyze("12 µs latency"), Analyze("12 μs latency"); !reflect.DeepEqual(a, b) {
		t.Fatalf("Analyze: micro sign %q, Greek mu %q", a, b)
	}
}
