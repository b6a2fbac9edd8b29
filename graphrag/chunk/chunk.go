// Package chunk splits the Markdown of one document into chunks for
// embedding and search, following its structure: a heading closes the
// previous chunk, the blocks of one section are packed greedily up to a
// token budget, and a block that does not fit is split where its structure
// allows (between table rows with the header repeated, between list items,
// at sentences, then words).
//
// Piece bodies are slices of the source Markdown, never a re-rendering, so
// tables and lists keep their original text.
package chunk

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Default options, used for any Options field that is zero or negative.
const (
	DefaultMaxTokens = 350
	DefaultMaxChunks = 5000
	// MinMaxTokens is the smallest MaxTokens honoured; smaller values are
	// raised to it, so that a title prefix and some text always fit.
	MinMaxTokens = 32
)

// ErrTooManyChunks is returned, wrapped with the count and the cap, when a
// document needs more than Options.MaxChunks chunks.
var ErrTooManyChunks = errors.New("too many chunks")

// Options tunes Split. Zero fields take the defaults.
type Options struct {
	MaxTokens int // cap on Piece.Tokens, except for a table row too long to fit alone
	MaxChunks int // cap on the number of chunks of one document
}

// Piece is one chunk of a document. (The stored chunk, with its ID, vector and status, is graphrag.Chunk.)
type Piece struct {
	Ordinal int      // position in the document, from 0
	Section []string // heading titles above the body, outermost first; empty before the first heading
	Body    string   // source Markdown of the chunk, never blank
	Text    string   // "<title> > <section path>\n\n" + Body: what is embedded and indexed
	Tokens  int      // cl100k_base tokens in Text
	// Start is the byte offset in the source Markdown where the body's first text comes from (for a
	// table piece, its first row; the repeated header is not counted): what page lookups use.
	Start int
}

func (o Options) withDefaults() Options {
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	o.MaxTokens = max(o.MaxTokens, MinMaxTokens)
	if o.MaxChunks <= 0 {
		o.MaxChunks = DefaultMaxChunks
	}
	return o
}

// Split cuts markdown into chunks whose Text starts with the document title
// and section path. Blank markdown gives no chunks. It stops between
// sections once ctx ends, with ctx's error.
func Split(ctx context.Context, title, markdown string, opt Options) ([]Piece, error) {
	opt = opt.withDefaults()
	s := &splitter{src: markdown, title: strings.TrimSpace(title), opt: opt}
	for _, sec := range scanSections(markdown, s.title) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("chunk: %w", err)
		}
		if !s.section(sec) {
			about := int64(len(s.chunks)) * int64(len(markdown)) / int64(max(1, s.pos))
			return nil, fmt.Errorf("chunk: %w: document needs more than %d chunks (about %d), cap %d",
				ErrTooManyChunks, opt.MaxChunks, max(about, int64(opt.MaxChunks)+1), opt.MaxChunks)
		}
	}
	return s.chunks, nil
}

// prefix is the line that introduces every chunk of a section.
func prefix(title string, section []string) string {
	parts := make([]string, 0, len(section)+1)
	if title != "" {
		parts = append(parts, title)
	}
	parts = append(parts, section...)
	return strings.Join(parts, " > ")
}
