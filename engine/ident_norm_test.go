package engine

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

// TestIdentifierNotNormalisedAway: a code reply lists many identifiers
// (fmt.Println, foo_bar.go, ERR_CONN_RESET) beside the one asked for; the
// identifiers field is not length-normalised (its b is 0), so V-261 in such
// a reply counts as much as V-261 in a short note, and the reply that also
// says the question's words outranks the note that says fewer of them.
func TestIdentifierNotNormalisedAway(t *testing.T) {
	codeIDs := "v261 " + strings.Repeat("fmtprintln osexit batchwriterxgo errconnreset ", 10)
	docs := [][NumFields]string{
		{"sensor drift on the reference readings, fixed by recalibrating", "", codeIDs}, // 1: the long code reply
		{"note", "", "v261"}, // 2: a short note naming it
		{"sensor drift again", "", "m261"},
	}
	ids := []uint64{1, 2, 3}
	db := smallIndex(t, 4, len(docs), ids, docs)
	ctx := context.Background()
	tx, _ := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	defer tx.Rollback()
	p := DefaultParams()
	if p.Fields[IDs].B != 0 {
		t.Fatalf("identifiers field b = %v, want 0", p.Fields[IDs].B)
	}
	score := func(p Params, terms ...QueryTerm) map[uint64]float64 {
		hits, err := Search(ctx, tx, Query{K: 3, Terms: terms}, p)
		if err != nil {
			t.Fatal(err)
		}
		out := map[uint64]float64{}
		for _, h := range hits {
			out[h.Doc] = h.Score
		}
		return out
	}
	id := QueryTerm{Term: "v261", Fields: 1 << IDs}
	if s := score(p, id); s[1] == 0 || s[1] != s[2] {
		t.Fatalf("V-261 alone scores %v in the code reply and %v in the note: want equal", s[1], s[2])
	}
	// The control: normalised as the body is, the code reply's V-261 counts
	// for less than the note's.
	norm := p
	norm.Fields[IDs].B = 0.75
	if s := score(norm, id); !(s[1] < s[2]) {
		t.Fatalf("at b 0.75 V-261 scores %v in the code reply and %v in the note: the case does not have its shape", s[1], s[2])
	}
	s := score(p, id, QueryTerm{Term: "sensor", Fields: 1 << Body}, QueryTerm{Term: "drift", Fields: 1 << Body})
	if !(s[1] > s[2] && s[1] > s[3]) {
		t.Fatalf("scores %v: the code reply holding V-261 and the question's words should rank first", s)
	}
}
