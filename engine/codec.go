package engine

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Field is one of a document's searched fields.
type Field uint8

// The fields, as FTS5's columns were: the turn's text, its conversation's
// title, its identifiers and its date in words.
const (
	Body Field = iota
	Title
	IDs
	Date
	NumFields
)

// FieldMask is a set of fields.
type FieldMask uint8

// AllFields is every field.
const AllFields FieldMask = 1<<NumFields - 1

// Has reports whether f is in the mask.
func (m FieldMask) Has(f Field) bool { return m&(1<<f) != 0 }

// BlockSize is the number of postings in a full block.
const BlockSize = 128

// MemberBits: a document id's low MemberBits bits number it within its
// group (a turn within its conversation), the high bits name the group.
// Ids of one group code in a byte or two, and the next group's first in
// two or three, where a plain delta would take three or four.
const MemberBits = 20

const memberMask = 1<<MemberBits - 1

// PassageWords is the most tokens a passage holds, and PassageMin the body
// length from which a document is cut into passages: sentences (and code
// lines) packed up to PassageWords tokens. A long document's postings say,
// for the body, which of its passages hold the term and how often, so its
// best passage can be scored as a document of its own.
const (
	PassageWords = 48
	PassageMin   = 2 * PassageWords
)

// long reports whether a body of n tokens is cut into passages.
func long(n uint32) bool { return n > PassageMin }

// posting is one document in a term's list: the term's frequency in each
// field and that field's length in tokens, so scoring needs no look-up, and
// for a long body the passages that hold it.
type posting struct {
	doc uint64
	tf  [NumFields]uint32
	len [NumFields]uint32
	pe  []pentry // ascending passages; only when the body holds the term and is long
}

// pentry is the term in one passage of a long body: its frequency there
// and the passage's length.
type pentry struct{ p, tf, len uint32 }

func (p *posting) mask() byte {
	var m byte
	for f := range NumFields {
		if p.tf[f] > 0 {
			m |= 1 << f
		}
	}
	return m
}

// blockMeta describes one posting block in a term's skip list: its last
// document, its size, and per field the largest frequency and the shortest
// length among its postings that have the field, and among their passages
// the largest frequency and shortest length, from which score upper bounds
// are computed at query time (so they hold however the averages drift).
// For the body and the passages it also keeps their frontiers: a bound
// from the largest frequency and the shortest length, most often two
// postings', is near the term's maximum in most blocks.
type blockMeta struct {
	last    uint64
	n       int
	maxTF   [NumFields]uint32
	minLen  [NumFields]uint32
	maxPTF  uint32 // 0: no passage in the block
	minPLen uint32
	body    front // the body's (frequency, length); maxTF and minLen's are its ends
	pass    front // the passages'; maxPTF and minPLen are its ends
}

// front is a frontier of (frequency, length) pairs: by length and by
// frequency ascending, each pair at least the frequency and at most the
// length of some postings' (or passages') and together above them all, so
// a score that grows with the frequency and falls with the length is
// bounded by the best of its pairs' scores.
type front struct {
	n  uint8
	tl [frontMax]tl
}

type tl struct{ tf, len uint32 }

// frontMax is the most pairs a frontier keeps: on the heavy memory 8 let
// 20,900 candidates through a search, 4 22,200, the exact bound of every
// block 20,200; the skip lists grow 1.30 -> 1.94 MB.
const frontMax = 8

// frontOf is the frontier of pts (reordered): the pairs no other one
// beats in both, those past frontMax joined with a neighbour.
func frontOf(pts []tl) front {
	var f front
	if len(pts) == 0 {
		return f
	}
	slices.SortFunc(pts, func(a, b tl) int {
		if a.len != b.len {
			return cmp.Compare(a.len, b.len)
		}
		return cmp.Compare(b.tf, a.tf)
	})
	out := pts[:0]
	for _, p := range pts {
		if len(out) == 0 || p.tf > out[len(out)-1].tf {
			out = append(out, p)
		}
	}
	for len(out) > frontMax {
		// Join the neighbours whose joint pair (the second's frequency at
		// the first's length) rises least over the better of the two in
		// frequency per token.
		best, cost := 0, math.Inf(1)
		for i := 0; i+1 < len(out); i++ {
			a, b := out[i], out[i+1]
			joint := float64(b.tf) / float64(a.len)
			c := joint / max(float64(a.tf)/float64(a.len), float64(b.tf)/float64(b.len))
			if c < cost {
				best, cost = i, c
			}
		}
		out[best].tf = out[best+1].tf
		out = slices.Delete(out, best+1, best+2)
	}
	f.n = uint8(copy(f.tl[:], out))
	return f
}

func (f *front) pairs() []tl { return f.tl[:f.n] }

func metaOf(ps []posting) blockMeta {
	b := blockMeta{last: ps[len(ps)-1].doc, n: len(ps)}
	var body, pass []tl
	for _, p := range ps {
		for f := range NumFields {
			if p.tf[f] == 0 {
				continue
			}
			b.maxTF[f] = max(b.maxTF[f], p.tf[f])
			if b.minLen[f] == 0 || p.len[f] < b.minLen[f] {
				b.minLen[f] = p.len[f]
			}
		}
		if p.tf[Body] > 0 {
			body = append(body, tl{p.tf[Body], p.len[Body]})
		}
		for _, e := range p.pe {
			pass = append(pass, tl{e.tf, e.len})
		}
	}
	b.setFronts(body, pass)
	return b
}

// setFronts sets the frontiers and the passages' ends from the pairs.
func (b *blockMeta) setFronts(body, pass []tl) {
	b.body, b.pass = frontOf(body), frontOf(pass)
	if b.pass.n > 0 {
		b.maxPTF, b.minPLen = b.pass.tl[b.pass.n-1].tf, b.pass.tl[0].len
	}
}

// ErrCorrupt is matched by every decoding error: a posting or skip blob that
// does not parse.
var ErrCorrupt = errors.New("corrupt index data")

func corrupt(what string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(what, args...))
}

// encodeBlock writes postings (sorted by doc, distinct) as: count, then per
// posting a head varint, payload<<2 | same<<1 | 0, or for a term in the body
// alone payload<<3 | once<<2 | same<<1 | 1, where payload is the delta of
// the member number when the posting is in the group of the one before it
// (same), else the delta of the group followed by the member number; a
// field mask unless the term is in the body alone; per present field its
// frequency (left out when once: said once, as most are) and length; and
// for a long body its passages: their bytes' length, then per passage its
// delta<<1 | once, the frequency unless once, and the length (a search
// decodes them only for the documents it scores). Frequencies of one left
// out took a seventh of the posting bytes off (layout 8).
func encodeBlock(dst []byte, ps []posting) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ps)))
	prev := uint64(0)
	for i, p := range ps {
		m := p.mask()
		var body uint64
		if m == 1<<Body {
			body = 1
		}
		// The head's low bits: body alone, and then said once.
		flags, shift := uint64(0), uint(2)
		once := body == 1 && p.tf[Body] == 1
		if body == 1 {
			flags, shift = 1, 3
			if once {
				flags |= 4
			}
		}
		hi, lo := p.doc>>MemberBits, p.doc&memberMask
		if i > 0 && hi == prev>>MemberBits {
			dst = binary.AppendUvarint(dst, (lo-prev&memberMask)<<shift|2|flags)
		} else {
			d := hi
			if i > 0 {
				d = hi - prev>>MemberBits
			}
			dst = binary.AppendUvarint(dst, d<<shift|flags)
			dst = binary.AppendUvarint(dst, lo)
		}
		prev = p.doc
		// The other fields as the posting before's: a conversation's turns
		// share its title and mostly a date.
		rest := m&^(1<<Body) != 0 && i > 0 && sameRest(&ps[i-1], &p)
		if body == 0 {
			if rest {
				dst = append(dst, m|restBit)
			} else {
				dst = append(dst, m)
			}
		}
		for f := range NumFields {
			if m&(1<<f) != 0 && (f == Body || !rest) {
				if !once {
					dst = binary.AppendUvarint(dst, uint64(p.tf[f]))
				}
				dst = binary.AppendUvarint(dst, uint64(p.len[f]))
			}
		}
		if p.tf[Body] > 0 && long(p.len[Body]) {
			var arr [64]byte
			es := arr[:0]
			last := uint32(0)
			for k, e := range p.pe {
				d := e.p - last
				if k == 0 {
					d = e.p
				}
				last = e.p
				if e.tf == 1 {
					es = binary.AppendUvarint(es, uint64(d)<<1|1)
				} else {
					es = binary.AppendUvarint(es, uint64(d)<<1)
					es = binary.AppendUvarint(es, uint64(e.tf))
				}
				es = binary.AppendUvarint(es, uint64(e.len))
			}
			dst = binary.AppendUvarint(dst, uint64(len(es)))
			dst = append(dst, es...)
		}
	}
	return dst
}

// restBit in a posting's field mask: its fields other than the body are
// the posting before's, not written again.
const restBit = 0x10

// sameRest reports whether p's fields other than the body are q's (the
// same fields, frequencies and lengths).
func sameRest(q, p *posting) bool {
	if q.mask()&^(1<<Body) != p.mask()&^(1<<Body) {
		return false
	}
	for f := Title; f < NumFields; f++ {
		if p.tf[f] != q.tf[f] || p.len[f] != q.len[f] {
			return false
		}
	}
	return true
}

func sameRestS(q, p *spost) bool {
	for f := Title; f < NumFields; f++ {
		if p.tf[f] != q.tf[f] || p.len[f] != q.len[f] {
			return false
		}
	}
	return true
}

// reader reads varints from a blob, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	if len(r.b) > 0 && r.b[0] < 0x80 { // most values fit one byte
		v := uint64(r.b[0])
		r.b = r.b[1:]
		return v
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = corrupt("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) u32() uint32 {
	v := r.uvarint()
	if v > 1<<32-1 && r.err == nil {
		r.err = corrupt("value %d out of range", v)
	}
	return uint32(v)
}

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if len(r.b) == 0 {
		r.err = corrupt("truncated")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// uv reads the varint at b[i:], returning the index after it, -1 when it
// does not parse. Most values fit one byte, decoded inline.
func uv(b []byte, i int) (uint64, int) {
	if i < len(b) && b[i] < 0x80 {
		return uint64(b[i]), i + 1
	}
	return uvSlow(b, i)
}

func uvSlow(b []byte, i int) (uint64, int) {
	if i < 0 || i >= len(b) {
		return 0, -1
	}
	v, n := binary.Uvarint(b[i:])
	if n <= 0 {
		return 0, -1
	}
	return v, i + n
}

// spost is a posting as a search reads it: no pointers (a cache of them
// costs the collector nothing), its passages left encoded in the block's
// bytes at [pe0, pe1) until the document is scored.
type spost struct {
	doc      uint64
	tf       [NumFields]uint32
	len      [NumFields]uint32
	pe0, pe1 uint32
}

func (p *spost) mask() byte { return tfMask(&p.tf) }

// tfMask is the fields whose frequency is not 0.
func tfMask(tf *[NumFields]uint32) byte {
	var m byte
	for f := range NumFields {
		if tf[f] > 0 {
			m |= 1 << f
		}
	}
	return m
}

// sblock is a decoded block (or tail) for a search: its postings and the
// bytes their passages are read from.
type sblock struct {
	ps  []spost
	raw []byte
}

// decodeS appends a block's postings to dst, its passages left in b. It
// reads the bytes with indexes rather than through reader: a block is
// decoded for every posting list a search walks (measured: 8 % of a
// recall's CPU through reader).
func decodeS(dst []spost, b []byte) ([]spost, error) {
	n, i := uv(b, 0)
	if i < 0 {
		return dst, corrupt("bad varint")
	}
	if n == 0 || n > uint64(len(b)) {
		return dst, corrupt("block of %d postings in %d bytes", n, len(b))
	}
	at := len(dst)
	dst = slices.Grow(dst, int(n))[:at+int(n)]
	out := dst[at:]
	var prev uint64
	prevRest := byte(0) // the fields other than the body of the posting before
	// The varints are read with their one-byte case inline (uv is past the
	// inliner's budget): a block is decoded for every posting list a
	// search walks.
	for k := range out {
		p := &out[k]
		*p = spost{}
		var h uint64
		if i < len(b) && b[i] < 0x80 {
			h, i = uint64(b[i]), i+1
		} else if h, i = uvSlow(b, i); i < 0 {
			return dst[:at+k], corrupt("bad varint")
		}
		payload := h >> 2
		once := false
		if h&1 != 0 { // the body alone
			payload, once = h>>3, h&4 != 0
		}
		switch {
		case h&2 != 0: // same group
			if k == 0 || payload == 0 || prev&memberMask+payload > memberMask {
				return dst[:at+k], corrupt("postings out of order")
			}
			p.doc = prev + payload
		default:
			var lo uint64
			switch {
			case i < len(b) && b[i] < 0x80:
				lo, i = uint64(b[i]), i+1
			case i+1 < len(b) && b[i+1] < 0x80: // two bytes
				lo, i = uint64(b[i]&0x7f)|uint64(b[i+1])<<7, i+2
			default:
				if lo, i = uvSlow(b, i); i < 0 {
					return dst[:at+k], corrupt("bad varint")
				}
			}
			hi := payload
			if k > 0 {
				if payload == 0 || prev>>MemberBits+payload < prev>>MemberBits {
					return dst[:at+k], corrupt("postings out of order")
				}
				hi = prev>>MemberBits + payload
			}
			if lo > memberMask || hi > math.MaxUint64>>MemberBits {
				return dst[:at+k], corrupt("document id out of range")
			}
			p.doc = hi<<MemberBits | lo
		}
		prev = p.doc
		if h&1 != 0 {
			// The body alone, as most postings are: its frequency (unless
			// once) and length.
			tf := uint64(1)
			if !once {
				if i < len(b) && b[i] < 0x80 {
					tf, i = uint64(b[i]), i+1
				} else if tf, i = uvSlow(b, i); i < 0 {
					return dst[:at+k], corrupt("bad varint")
				}
				if tf == 1 {
					return dst[:at+k], corrupt("a frequency of one written out")
				}
			}
			var ln uint64
			switch {
			case i < len(b) && b[i] < 0x80:
				ln, i = uint64(b[i]), i+1
			case i+1 < len(b) && b[i+1] < 0x80: // two bytes
				ln, i = uint64(b[i]&0x7f)|uint64(b[i+1])<<7, i+2
			default:
				if ln, i = uvSlow(b, i); i < 0 {
					return dst[:at+k], corrupt("bad varint")
				}
			}
			if tf > math.MaxUint32 || ln > math.MaxUint32 {
				return dst[:at+k], corrupt("value %d out of range", max(tf, ln))
			}
			if tf == 0 || ln < tf {
				return dst[:at+k], corrupt("frequency %d in a field of %d tokens", tf, ln)
			}
			p.tf[Body], p.len[Body] = uint32(tf), uint32(ln)
			prevRest = 0
		} else {
			if i >= len(b) {
				return dst[:at+k], corrupt("truncated")
			}
			m := b[i]
			i++
			rest := m&restBit != 0
			m &^= restBit
			if m == 0 || m >= 1<<NumFields || m == 1<<Body {
				return dst[:at+k], corrupt("bad field mask %#x", m)
			}
			if rest {
				if k == 0 || prevRest != m&^(1<<Body) {
					return dst[:at+k], corrupt("fields as a posting before that has others")
				}
				q := &out[k-1]
				p.tf, p.len = q.tf, q.len // whole arrays: a loop of fields cost more
				p.tf[Body], p.len[Body] = 0, 0
			}
			written := m // the fields whose frequency and length follow
			if rest {
				written &= 1 << Body
			}
			for ; written != 0; written &= written - 1 {
				f := bits.TrailingZeros8(written) // ascending, as written
				var tf, ln uint64
				if tf, i = uv(b, i); i < 0 {
					return dst[:at+k], corrupt("bad varint")
				}
				if ln, i = uv(b, i); i < 0 {
					return dst[:at+k], corrupt("bad varint")
				}
				if tf > math.MaxUint32 || ln > math.MaxUint32 {
					return dst[:at+k], corrupt("value %d out of range", max(tf, ln))
				}
				if tf == 0 || ln < tf {
					return dst[:at+k], corrupt("frequency %d in a field of %d tokens", tf, ln)
				}
				p.tf[f], p.len[f] = uint32(tf), uint32(ln)
			}
			if !rest && k > 0 && prevRest == m&^(1<<Body) && sameRestS(&out[k-1], p) {
				return dst[:at+k], corrupt("fields as the posting before's written out")
			}
			prevRest = m &^ (1 << Body)
		}
		if p.tf[Body] == 0 || !long(p.len[Body]) {
			continue
		}
		var nb uint64
		if i < len(b) && b[i] < 0x80 {
			nb, i = uint64(b[i]), i+1
		} else if nb, i = uvSlow(b, i); i < 0 {
			return dst[:at+k], corrupt("bad varint")
		}
		if nb < 2 || nb > uint64(len(b)-i) {
			return dst[:at+k], corrupt("%d bytes of passages in a block of %d", nb, len(b))
		}
		p.pe0, p.pe1 = uint32(i), uint32(i+int(nb))
		i += int(nb)
	}
	if i != len(b) {
		return dst, corrupt("%d trailing bytes", len(b)-i)
	}
	return dst, nil
}

// passages calls fn with each passage of a posting's, read from raw, and
// checks that they hold the body's frequency.
func passages(raw []byte, p0, p1 uint32, bodyTF uint32, fn func(e pentry)) error {
	b := raw[:p1]
	i := int(p0)
	var sum, last uint64
	for k := 0; i < len(b); k++ {
		var d, tf, ln uint64
		if d, i = uv(b, i); i < 0 {
			return corrupt("bad varint")
		}
		if d&1 != 0 {
			tf = 1
		} else {
			if tf, i = uv(b, i); i < 0 {
				return corrupt("bad varint")
			}
			if tf == 1 {
				return corrupt("a passage frequency of one written out")
			}
		}
		d >>= 1
		if ln, i = uv(b, i); i < 0 {
			return corrupt("bad varint")
		}
		if k > 0 && d == 0 || last+d > math.MaxUint32 || tf == 0 || ln < tf || ln > PassageWords {
			return corrupt("bad passage entry")
		}
		last += d
		sum += tf
		fn(pentry{p: uint32(last), tf: uint32(tf), len: uint32(ln)})
	}
	if i != len(b) || sum != uint64(bodyTF) {
		return corrupt("passages hold %d of the body's %d", sum, bodyTF)
	}
	return nil
}

// decodeBlock appends a block's postings to dst with their passages, each
// checked: what the writer reads to change a list.
func decodeBlock(dst []posting, b []byte) ([]posting, error) {
	ss, err := decodeS(nil, b)
	if err != nil {
		return dst, err
	}
	var pes []pentry
	var spans [][2]int
	for k := range ss {
		p := &ss[k]
		dst = append(dst, posting{doc: p.doc, tf: p.tf, len: p.len})
		if p.pe1 == 0 {
			continue
		}
		start := len(pes)
		if err := passages(b, p.pe0, p.pe1, p.tf[Body], func(e pentry) { pes = append(pes, e) }); err != nil {
			return dst, err
		}
		spans = append(spans, [2]int{len(dst) - 1, start})
	}
	pes = slices.Clip(pes)
	for x, sp := range spans {
		end := len(pes)
		if x+1 < len(spans) {
			end = spans[x+1][1]
		}
		dst[sp[0]].pe = pes[sp[1]:end:end]
	}
	return dst, nil
}

// metaOfS is metaOf for a search's postings.
func metaOfS(bl sblock) (blockMeta, error) {
	ps := bl.ps
	b := blockMeta{last: ps[len(ps)-1].doc, n: len(ps)}
	var body, pass []tl
	for i := range ps {
		p := &ps[i]
		for f := range NumFields {
			if p.tf[f] == 0 {
				continue
			}
			b.maxTF[f] = max(b.maxTF[f], p.tf[f])
			if b.minLen[f] == 0 || p.len[f] < b.minLen[f] {
				b.minLen[f] = p.len[f]
			}
		}
		if p.tf[Body] > 0 {
			body = append(body, tl{p.tf[Body], p.len[Body]})
		}
		if p.pe1 == 0 {
			continue
		}
		if err := passages(bl.raw, p.pe0, p.pe1, p.tf[Body], func(e pentry) { pass = append(pass, tl{e.tf, e.len}) }); err != nil {
			return b, err
		}
	}
	b.setFronts(body, pass)
	return b, nil
}

// encodeSkips writes a term's skip list: block count, then per block its
// last doc (as a delta from the previous block's), size, field mask and per
// present field the largest frequency and shortest length; for the body and
// the passages their frontier: its size, its first pair, and each next one
// as the rise in frequency and in length.
func encodeSkips(dst []byte, bs []blockMeta) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(bs)))
	prev := uint64(0)
	for _, b := range bs {
		dst = binary.AppendUvarint(dst, b.last-prev)
		prev = b.last
		dst = binary.AppendUvarint(dst, uint64(b.n))
		var m byte
		for f := range NumFields {
			if b.maxTF[f] > 0 {
				m |= 1 << f
			}
		}
		if b.maxPTF > 0 {
			m |= 1 << NumFields // passages follow the fields
		}
		dst = append(dst, m)
		for f := range NumFields {
			switch {
			case f == Body && m&1 != 0:
				dst = appendFront(dst, &b.body)
			case m&(1<<f) != 0:
				dst = binary.AppendUvarint(dst, uint64(b.maxTF[f]))
				dst = binary.AppendUvarint(dst, uint64(b.minLen[f]))
			}
		}
		if b.maxPTF > 0 {
			dst = appendFront(dst, &b.pass)
		}
	}
	return dst
}

func appendFront(dst []byte, f *front) []byte {
	dst = binary.AppendUvarint(dst, uint64(f.n))
	var last tl
	for _, p := range f.pairs() {
		dst = binary.AppendUvarint(dst, uint64(p.tf-last.tf))
		dst = binary.AppendUvarint(dst, uint64(p.len-last.len))
		last = p
	}
	return dst
}

// front reads a frontier, each pair above the one before in both.
func (r *reader) front() front {
	var f front
	n := r.uvarint()
	if r.err == nil && (n == 0 || n > frontMax) {
		r.err = corrupt("frontier of %d pairs", n)
		return f
	}
	var last tl
	for i := range int(n) {
		dtf, dlen := r.u32(), r.u32()
		if r.err != nil {
			return f
		}
		p := tl{last.tf + dtf, last.len + dlen}
		if dtf == 0 || dlen == 0 && i > 0 || p.len == 0 || p.tf < last.tf || p.len < last.len {
			r.err = corrupt("bad frontier")
			return f
		}
		f.tl[i], last = p, p
	}
	f.n = uint8(n)
	return f
}

func decodeSkips(b []byte) ([]blockMeta, error) {
	r := reader{b: b}
	n := r.uvarint()
	if r.err == nil && n > uint64(len(b)) {
		return nil, corrupt("%d blocks in %d bytes", n, len(b))
	}
	out := make([]blockMeta, 0, n)
	var prev uint64
	for i := 0; i < int(n) && r.err == nil; i++ {
		var bm blockMeta
		d := r.uvarint()
		if i > 0 && d == 0 {
			return nil, corrupt("blocks out of order")
		}
		bm.last = prev + d
		prev = bm.last
		bm.n = int(r.uvarint())
		if r.err == nil && (bm.n <= 0 || bm.n > 1<<20) {
			return nil, corrupt("block of %d postings", bm.n)
		}
		m := r.byte()
		if r.err == nil && (m&(1<<NumFields-1) == 0 || m >= 2<<NumFields) {
			return nil, corrupt("bad field mask %#x", m)
		}
		for f := range NumFields {
			switch {
			case f == Body && m&1 != 0:
				bm.body = r.front()
				if r.err == nil {
					bm.maxTF[Body], bm.minLen[Body] = bm.body.tl[bm.body.n-1].tf, bm.body.tl[0].len
				}
			case m&(1<<f) != 0:
				bm.maxTF[f] = r.u32()
				bm.minLen[f] = r.u32()
			}
		}
		if m&(1<<NumFields) != 0 {
			bm.pass = r.front()
			if r.err == nil {
				bm.maxPTF, bm.minPLen = bm.pass.tl[bm.pass.n-1].tf, bm.pass.tl[0].len
				if bm.minPLen > PassageWords {
					return nil, corrupt("bad passage bounds")
				}
			}
		}
		out = append(out, bm)
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = corrupt("%d trailing bytes", len(r.b))
	}
	return out, r.err
}
