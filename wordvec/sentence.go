package wordvec

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// sifA is SIF's smoothing constant: a word of probability p weighs
// sifA/(sifA+p), so "the" counts about 1/80 of a word ranked 2,000th.
const sifA = 1e-3

// zipfNorm normalises p = 1/(rank × zipfNorm) over GloVe's 400,000-word
// vocabulary (the harmonic number H(400000)): the table keeps GloVe's
// frequency order but not its counts.
const zipfNorm = 13.4799

// Tokens cuts text into the lowercase words GloVe's vocabulary is made of:
// runs of letters and digits; "camelCase" is two words; a clitic after an
// apostrophe is dropped ("user's" → user) and "n't" leaves its stem as
// GloVe's tokeniser does ("don't" → do).
func Tokens(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	var prev rune
	skip := false // inside a clitic
	for i, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if skip {
				break
			}
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			b.WriteRune(unicode.ToLower(r))
		case (r == '\'' || r == '’') && b.Len() > 0:
			next, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):])
			if unicode.IsLetter(next) {
				if w := b.String(); (next == 't' || next == 'T') && len(w) > 2 && strings.HasSuffix(w, "n") {
					b.Reset()
					b.WriteString(w[:len(w)-1])
				}
				flush()
				skip = true
			} else {
				flush()
			}
		default:
			flush()
			skip = false
		}
		prev = r
	}
	flush()
	return out
}

// IsToken reports whether w is one word as Tokens cuts them.
func IsToken(w string) bool {
	ts := Tokens(w)
	return len(ts) == 1 && ts[0] == w
}

// Known reports whether the table holds a vector for the word.
func Known(word string) bool {
	t, err := load()
	if err != nil {
		return false
	}
	_, ok := t.index[word]
	return ok
}

// Sentence is text's SIF vector: the average of its known words' vectors,
// each weighted a/(a+p) by its frequency. It is nil when text holds no
// known word.
func Sentence(text string) []float32 {
	t, err := load()
	if err != nil {
		return nil
	}
	var v []float32
	for _, w := range Tokens(text) {
		i, ok := t.index[w]
		if !ok {
			continue
		}
		if v == nil {
			v = make([]float32, Dims)
		}
		p := 1 / (float64(i+1) * zipfNorm)
		t.addWord(v, i, float32(sifA/(sifA+p)))
	}
	return v
}

// Cosine is the cosine similarity of a and b, 0 when either is nil or zero.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// Common finds the k directions that most of vs share (their top principal
// components, uncentred, as SIF removes them), by power iteration from a
// fixed start so the result is deterministic. Nil vectors are skipped.
func Common(vs [][]float32, k int) [][]float64 {
	var cov [Dims][Dims]float64
	n := 0
	for _, v := range vs {
		if len(v) != Dims {
			continue
		}
		n++
		for i := range Dims {
			for j := range Dims {
				cov[i][j] += float64(v[i]) * float64(v[j])
			}
		}
	}
	var dirs [][]float64
	for range min(k, n) {
		u := make([]float64, Dims)
		for i := range u {
			u[i] = 1 / math.Sqrt(Dims) * float64(1+i%3)
		}
		for range 60 {
			w := make([]float64, Dims)
			for i := range Dims {
				for j := range Dims {
					w[i] += cov[i][j] * u[j]
				}
			}
			norm := 0.0
			for _, x := range w {
				norm += x * x
			}
			if norm == 0 {
				return dirs
			}
			norm = math.Sqrt(norm)
			for i := range w {
				w[i] /= norm
			}
			u = w
		}
		// Deflate: take that direction out before finding the next.
		lambda := 0.0
		for i := range Dims {
			for j := range Dims {
				lambda += u[i] * cov[i][j] * u[j]
			}
		}
		for i := range Dims {
			for j := range Dims {
				cov[i][j] -= lambda * u[i] * u[j]
			}
		}
		dirs = append(dirs, u)
	}
	return dirs
}

// Remove takes the unit directions dirs out of v, in place.
func Remove(v []float32, dirs [][]float64) {
	if len(v) != Dims {
		return
	}
	for _, u := range dirs {
		dot := 0.0
		for i := range Dims {
			dot += float64(v[i]) * u[i]
		}
		for i := range Dims {
			v[i] -= float32(dot * u[i])
		}
	}
}
