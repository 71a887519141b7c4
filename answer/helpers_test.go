package answer

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// countTokens is the o200k count the callers pass (memory's counter, which
// imports this package, is held to the library's counts by its own tests).
var countTokens = func() Count {
	var once sync.Once
	var codec tokenizer.Codec
	return func(s string) int {
		once.Do(func() {
			c, err := tokenizer.Get(tokenizer.O200kBase)
			if err != nil {
				panic(err)
			}
			codec = c
		})
		if s == "" {
			return 0
		}
		n, err := codec.Count(s)
		if err != nil {
			panic(err)
		}
		return n
	}
}()
