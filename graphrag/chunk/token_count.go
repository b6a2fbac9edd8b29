package chunk

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

var codec = sync.OnceValues(func() (tokenizer.Codec, error) {
	return tokenizer.Get(tokenizer.Cl100kBase)
})

// CountTokens is the number of cl100k_base tokens in s, counted offline
// with the encoding built into the binary. It is safe for concurrent use.
func CountTokens(s string) int {
	if s == "" {
		return 0
	}
	c, err := codec()
	if err != nil {
		return len(s) // an upper bound: a token is at least one byte
	}
	n, err := c.Count(s)
	if err != nil {
		return len(s)
	}
	return n
}
