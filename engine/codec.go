package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
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

// posting is one document in a term's list: the term's frequency in each
// field and that field's length in tokens, so scoring needs no look-up.
type posting struct {
	doc uint64
	tf  [NumFields]uint32
	len [NumFields]uint32
}

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
// length among its postings that have the field, from which a score upper
// bound is computed at query time (so it holds however the averages drift).
type blockMeta struct {
	last   uint64
	n      int
	maxTF  [NumFields]uint32
	minLen [NumFields]uint32
}

func metaOf(ps []posting) blockMeta {
	b := blockMeta{last: ps[len(ps)-1].doc, n: len(ps)}
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
	}
	return b
}

// ErrCorrupt is matched by every decoding error: a posting or skip blob that
// does not parse.
var ErrCorrupt = errors.New("corrupt index data")

func corrupt(what string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(what, args...))
}

// encodeBlock writes postings (sorted by doc, distinct) as: count, first doc,
// then per posting a doc delta (0 for the first), a field mask, and per
// present field its frequency and length.
func encodeBlock(dst []byte, ps []posting) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ps)))
	prev := uint64(0)
	for i, p := range ps {
		if i == 0 {
			dst = binary.AppendUvarint(dst, p.doc)
		} else {
			dst = binary.AppendUvarint(dst, p.doc-prev)
		}
		prev = p.doc
		m := p.mask()
		dst = append(dst, m)
		for f := range NumFields {
			if m&(1<<f) != 0 {
				dst = binary.AppendUvarint(dst, uint64(p.tf[f]))
				dst = binary.AppendUvarint(dst, uint64(p.len[f]))
			}
		}
	}
	return dst
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

// decodeBlock appends a block's postings to dst. It reads the bytes with
// indexes rather than through reader: a block is decoded for every posting
// list a search walks (measured: 8 % of a recall's CPU through reader).
func decodeBlock(dst []posting, b []byte) ([]posting, error) {
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
	for k := range out {
		p := &out[k]
		*p = posting{}
		d, j := uv(b, i)
		if j < 0 {
			return dst[:at+k], corrupt("bad varint")
		}
		if k == 0 {
			p.doc = d
		} else {
			if d == 0 || prev+d < prev {
				return dst[:at+k], corrupt("postings out of order")
			}
			p.doc = prev + d
		}
		prev = p.doc
		if j >= len(b) {
			return dst[:at+k], corrupt("truncated")
		}
		m := b[j]
		i = j + 1
		if m == 0 || m >= 1<<NumFields {
			return dst[:at+k], corrupt("bad field mask %#x", m)
		}
		for f := range NumFields {
			if m&(1<<f) == 0 {
				continue
			}
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
	}
	if i != len(b) {
		return dst, corrupt("%d trailing bytes", len(b)-i)
	}
	return dst, nil
}

// encodeSkips writes a term's skip list: block count, then per block its
// last doc (as a delta from the previous block's), size, field mask and per
// present field the largest frequency and shortest length.
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
		dst = append(dst, m)
		for f := range NumFields {
			if m&(1<<f) != 0 {
				dst = binary.AppendUvarint(dst, uint64(b.maxTF[f]))
				dst = binary.AppendUvarint(dst, uint64(b.minLen[f]))
			}
		}
	}
	return dst
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
		if r.err == nil && (m == 0 || m >= 1<<NumFields) {
			return nil, corrupt("bad field mask %#x", m)
		}
		for f := range NumFields {
			if m&(1<<f) != 0 {
				bm.maxTF[f] = r.u32()
				bm.minLen[f] = r.u32()
			}
		}
		out = append(out, bm)
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = corrupt("%d trailing bytes", len(r.b))
	}
	return out, r.err
}
