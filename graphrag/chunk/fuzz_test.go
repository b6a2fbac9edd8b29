package chunk

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func FuzzSplit(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "demo", "*.md"))
	for _, path := range files {
		if data, err := os.ReadFile(path); err == nil {
			f.Add("Demo", string(data), uint8(100))
		}
	}
	for _, s := range []string{
		"# T\n\ntext. more text! end?\n\n## S\n\n- a\n- b\n  - c\n\n> quote\n",
		"lead\n| a | b |\n| - | :-: |\n| 1 | 2 |\n| 3 |\n\n```\ncode\n```\n",
		"Setext\n===\n\n    indented\n\n<div>\nhtml\n</div>\n\n[ref]: http://x\n\n---\n",
		"1. one\n2. two\n\n* x\n\n+ y\n\n#\n\n######## not heading\n",
		"\xff\xfe\x00 invalid ‡ 東京。次。",
	} {
		f.Add("T", s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, title, src string, size uint8) {
		opt := Options{MaxTokens: MinMaxTokens + int(size), MaxChunks: 100000}
		var chunks []Piece
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			chunks, err = Split(context.Background(), title, src, opt)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Split still running after 10s")
		}
		if err != nil {
			t.Fatal(err)
		}
		checkChunks(t, title, src, opt, chunks)
	})
}
