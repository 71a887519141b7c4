package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"", "Café naïve MT-4471", "日本語のテキスト", "x\u0301y", "\xff\xfe", "hopping caresses ponies", strings.Repeat("a", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		Tokens(s, func(tok string) {
			if tok == "" {
				t.Fatal("empty token")
			}
			for _, r := range tok {
				if !isTokenRune(r) || r == utf8.RuneError {
					t.Fatalf("token %q of %q holds %q", tok, s, r)
				}
			}
			st := stem(tok)
			if st == "" || len(st) > len(tok)+1 {
				t.Fatalf("stem(%q) = %q", tok, st)
			}
		})
	})
}

func FuzzDecode(f *testing.F) {
	ps := []posting{{doc: 5, tf: [NumFields]uint32{2, 0, 1, 0}, len: [NumFields]uint32{10, 0, 1, 0}}, {doc: 9, tf: [NumFields]uint32{1}, len: [NumFields]uint32{3}},
		{doc: 3 << MemberBits, tf: [NumFields]uint32{3, 1}, len: [NumFields]uint32{400, 2}, pe: []pentry{{0, 1, 40}, {6, 2, 48}}}}
	f.Add(encodeBlock(nil, ps))
	// A conversation's turns: the title's frequency and length as the one
	// before's, bodies said once.
	conv := []posting{{doc: 1<<MemberBits | 1, tf: [NumFields]uint32{1, 1, 0, 1}, len: [NumFields]uint32{30, 4, 0, 3}},
		{doc: 1<<MemberBits | 2, tf: [NumFields]uint32{2, 1, 0, 1}, len: [NumFields]uint32{200, 4, 0, 3}, pe: []pentry{{1, 1, 30}, {3, 1, 48}}},
		{doc: 1<<MemberBits | 4, tf: [NumFields]uint32{0, 1, 0, 1}, len: [NumFields]uint32{0, 4, 0, 3}}}
	f.Add(encodeBlock(nil, conv))
	f.Add(encodeSkips(nil, []blockMeta{metaOf(ps)}))
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		// Neither decoder may panic; what decodes must re-encode the same.
		if got, err := decodeBlock(nil, b); err == nil {
			if again := encodeBlock(nil, got); string(again) != string(b) {
				// Non-canonical varints may decode; the postings must still round-trip.
				if back, err := decodeBlock(nil, again); err != nil || len(back) != len(got) {
					t.Fatalf("block round trip: %v", err)
				}
			}
		} else if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("decodeBlock error %v is not ErrCorrupt", err)
		}
		if _, err := decodeSkips(b); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("decodeSkips error %v is not ErrCorrupt", err)
		}
	})
}

func TestCodecRoundTrip(t *testing.T) {
	c := newCorpus(1, 100, 1.2)
	var ps []posting
	d := uint64(1)
	for range BlockSize {
		if c.r.IntN(3) == 0 {
			d += 1 + uint64(c.r.IntN(1<<21)) // another group
		} else {
			d += 1 + uint64(c.r.IntN(3)) // the same one, mostly
		}
		var p posting
		p.doc = d
		field := func(f Field) {
			p.tf[f] = 1 + uint32(c.r.IntN(40))
			if c.r.IntN(2) == 0 { // said once, as most are: not written
				p.tf[f] = 1
			}
			p.len[f] = p.tf[f] + uint32(c.r.IntN(5000))
		}
		for f := range NumFields {
			// The body mostly; a turn that holds the term only in its
			// title or date now and then.
			if f == Body && c.r.IntN(6) != 0 || f != Body && c.r.IntN(2) == 0 {
				field(f)
			}
		}
		if n := len(ps); n > 0 && c.r.IntN(3) == 0 { // the other fields as the one before's, as a conversation's title
			for f := Title; f < NumFields; f++ {
				p.tf[f], p.len[f] = ps[n-1].tf[f], ps[n-1].len[f]
			}
		}
		if p.mask() == 0 {
			field(Body)
		}
		if long(p.len[Body]) { // its body's frequency spread over passages
			left, at := p.tf[Body], uint32(c.r.IntN(3))
			for left > 0 {
				n := min(left, 1+uint32(c.r.IntN(int(PassageWords))))
				p.pe = append(p.pe, pentry{p: at, tf: n, len: n + uint32(c.r.IntN(int(PassageWords-n+1)))})
				left -= n
				at += 1 + uint32(c.r.IntN(4))
			}
		}
		ps = append(ps, p)
	}
	enc := encodeBlock(nil, ps)
	got, err := decodeBlock(nil, enc)
	if err != nil || len(got) != len(ps) {
		t.Fatal(err)
	}
	if again := encodeBlock(nil, got); string(again) != string(enc) {
		t.Fatal("a block re-encodes otherwise")
	}
	for i := range ps {
		if fmt.Sprint(got[i]) != fmt.Sprint(ps[i]) {
			t.Fatalf("posting %d: %+v, want %+v", i, got[i], ps[i])
		}
	}
	metas := []blockMeta{metaOf(ps[:10]), metaOf(ps[10:])}
	back, err := decodeSkips(encodeSkips(nil, metas))
	if err != nil || len(back) != 2 || back[0] != metas[0] || back[1] != metas[1] {
		t.Fatalf("skips: %v %+v", err, back)
	}
}

// A corrupt blob in the index is an error naming the term, not a panic.
func TestCorruptBlobIsAnError(t *testing.T) {
	db := openDB(t)
	c := newCorpus(2, 50, 0.0001)
	c.zipf = nil
	var ids []uint64
	for i := range 600 {
		ids = append(ids, uint64(i+1))
	}
	addDocs(t, db, c, ids)
	ctx := context.Background()
	term := Term(c.vocab[0])
	search := func() error {
		tx, _ := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		defer tx.Rollback()
		_, err := Search(ctx, tx, Query{K: 5, Terms: []QueryTerm{{Term: term, Fields: AllFields}}}, DefaultParams())
		return err
	}
	if err := search(); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE eng_blocks SET data = x'05ff' WHERE term = ?1`,
		`UPDATE eng_blocks SET data = substr(data, 1, length(data) - 3) WHERE term = ?1`,
		`UPDATE eng_terms SET skips = x'02' WHERE term = ?1`,
		`UPDATE eng_terms SET tail = x'0301' WHERE term = ?1`,
		`DELETE FROM eng_blocks WHERE term = ?1`,
	} {
		tx, _ := db.Begin()
		if _, err := tx.Exec(q, term); err != nil {
			t.Fatal(err)
		}
		func() {
			rtx := tx
			_, err := Search(ctx, rtx, Query{K: 5, Terms: []QueryTerm{{Term: term, Fields: AllFields}}}, DefaultParams())
			if err == nil || !strings.Contains(err.Error(), term) {
				t.Errorf("after %s: search error %v, want one naming %q", q, err, term)
			}
		}()
		tx.Rollback()
	}
}

// A frontier is above every pair it was made of, keeps their largest
// frequency and shortest length as its ends, and rises in both.
func TestFrontBoundsEveryPair(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		pts := make([]tl, 1+r.IntN(40))
		maxTF, minLen := uint32(0), uint32(math.MaxUint32)
		for i := range pts {
			ln := 1 + uint32(r.IntN(300))
			pts[i] = tl{1 + uint32(r.IntN(int(min(ln, 9)))), ln}
			maxTF, minLen = max(maxTF, pts[i].tf), min(minLen, pts[i].len)
		}
		orig := slices.Clone(pts)
		f := frontOf(pts)
		ps := f.pairs()
		if len(ps) == 0 || len(ps) > frontMax || ps[len(ps)-1].tf != maxTF || ps[0].len != minLen {
			t.Fatalf("front %+v of %+v", ps, orig)
		}
		for i := 1; i < len(ps); i++ {
			if ps[i].tf <= ps[i-1].tf || ps[i].len <= ps[i-1].len {
				t.Fatalf("front %+v does not rise", ps)
			}
		}
		for _, p := range orig {
			if !slices.ContainsFunc(ps, func(q tl) bool { return q.tf >= p.tf && q.len <= p.len }) {
				t.Fatalf("front %+v not above %+v", ps, p)
			}
		}
		b := blockMeta{last: 1, n: 1, maxTF: [NumFields]uint32{maxTF}, minLen: [NumFields]uint32{minLen}, body: f, pass: f}
		b.maxPTF, b.minPLen = maxTF, minLen
		if b.minPLen > PassageWords {
			b.pass, b.maxPTF, b.minPLen = front{}, 0, 0
		}
		back, err := decodeSkips(encodeSkips(nil, []blockMeta{b}))
		if err != nil || len(back) != 1 || back[0] != b {
			t.Fatalf("skips round trip: %v %+v, want %+v", err, back, b)
		}
	}
}
