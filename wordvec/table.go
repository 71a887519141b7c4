package wordvec

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
)

// Dims is the length of every vector.
const Dims = 100

//go:embed table.bin
var tableBin []byte

// The table's layout, little endian: magic, uint16 dimensions, uint32 word
// count; each word as a length byte and its bytes, most frequent first;
// a float32 scale per word; then Dims int8 per word (value = scale × int8).
const magic = "IRWV1\n"

// table is the decoded vocabulary. q aliases the embedded bytes.
type table struct {
	index map[string]int32
	scale []float32
	q     []byte
}

var load = sync.OnceValues(func() (*table, error) { return decode(tableBin) })

// Ready reports whether the embedded table decodes; if it does not, every
// word is unknown and sentence vectors are nil.
func Ready() error {
	_, err := load()
	return err
}

// Size is the number of words in the table.
func Size() int {
	t, err := load()
	if err != nil {
		return 0
	}
	return len(t.scale)
}

var errTable = errors.New("wordvec: malformed table")

func decode(b []byte) (*table, error) {
	if len(b) < len(magic)+6 || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: bad header", errTable)
	}
	b = b[len(magic):]
	if d := binary.LittleEndian.Uint16(b); d != Dims {
		return nil, fmt.Errorf("%w: %d dimensions, want %d", errTable, d, Dims)
	}
	n := int(binary.LittleEndian.Uint32(b[2:]))
	b = b[6:]
	if n > len(b) {
		return nil, fmt.Errorf("%w: %d words in %d bytes", errTable, n, len(b))
	}
	t := &table{index: make(map[string]int32, n)}
	for i := range n {
		if len(b) < 1 || len(b) < 1+int(b[0]) {
			return nil, fmt.Errorf("%w: word %d cut short", errTable, i)
		}
		end := 1 + int(b[0])
		t.index[string(b[1:end])] = int32(i)
		b = b[end:]
	}
	if len(b) != n*(4+Dims) {
		return nil, fmt.Errorf("%w: %d bytes of vectors, want %d", errTable, len(b), n*(4+Dims))
	}
	t.scale = make([]float32, n)
	for i := range n {
		t.scale[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	t.q = b[4*n:]
	return t, nil
}

// Encode writes a table of words, most frequent first, and their vectors,
// each quantised to int8 with its own scale (its largest magnitude / 127).
func Encode(words []string, vecs [][]float32) ([]byte, error) {
	if len(words) != len(vecs) {
		return nil, errors.New("wordvec: words and vectors differ in number")
	}
	out := []byte(magic)
	out = binary.LittleEndian.AppendUint16(out, Dims)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(words)))
	for _, w := range words {
		if len(w) == 0 || len(w) > 255 {
			return nil, fmt.Errorf("wordvec: word %q: length must be 1–255 bytes", w)
		}
		out = append(out, byte(len(w)))
		out = append(out, w...)
	}
	scales := make([]float32, len(vecs))
	for i, v := range vecs {
		if len(v) != Dims {
			return nil, fmt.Errorf("wordvec: word %q: %d dimensions, want %d", words[i], len(v), Dims)
		}
		var m float32
		for _, x := range v {
			m = max(m, float32(math.Abs(float64(x))))
		}
		scales[i] = m / 127
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(scales[i]))
	}
	for i, v := range vecs {
		for _, x := range v {
			q := 0.0
			if scales[i] > 0 {
				q = math.Round(float64(x / scales[i]))
			}
			out = append(out, byte(int8(max(-127, min(127, q)))))
		}
	}
	return out, nil
}

// addWord adds w × the vector of the word at rank i to v.
func (t *table) addWord(v []float32, i int32, w float32) {
	s := w * t.scale[i]
	row := t.q[int(i)*Dims : int(i+1)*Dims]
	for d, b := range row {
		v[d] += s * float32(int8(b))
	}
}
