package memory

import (
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

var (
	codecOnce sync.Once
	codec     tokenizer.Codec
)

// CountTokens counts s in o200k tokens, the vocabulary of current OpenAI
// models; Claude's counts are close enough for budgeting.
func CountTokens(s string) int {
	if s == "" {
		return 0
	}
	codecOnce.Do(func() {
		c, err := tokenizer.Get(tokenizer.O200kBase)
		if err == nil {
			codec = c
		}
	})
	if codec != nil {
		if n, err := codec.Count(s); err == nil {
			return n
		}
	}
	// The vocabulary is embedded, so this is only a guard: about 4 bytes a token.
	return utf8.RuneCountInString(s)/4 + 1
}
