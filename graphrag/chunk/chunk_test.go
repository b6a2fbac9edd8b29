package chunk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// checkChunks asserts the invariants every Split result keeps, and that all
// the words of the source outside headings appear, in order, in the bodies.
// checkStart: a chunk's Start is where its body's first line is in the
// source (for a table piece after the first, the first row below the repeated
// header), and no chunk starts before the one before it.
func checkStart(t *testing.T, src string, chunks []Piece, i int) {
	t.Helper()
	c := chunks[i]
	if c.Start < 0 || c.Start > len(src) || i > 0 && c.Start < chunks[i-1].Start {
		t.Errorf("chunk %d: Start %d (previous %d, source %d bytes)", i, c.Start, chunks[max(i-1, 0)].Start, len(src))
		return
	}
	lines := strings.SplitN(c.Body, "\n", 4)
	at := src[c.Start:]
	if !strings.HasPrefix(at, lines[0]) && !(len(lines) > 2 && isDelimiterRow(lines[1]) && strings.HasPrefix(at, lines[2])) {
		t.Errorf("chunk %d: Start %d points at %q, body starts %q", i, c.Start, at[:min(len(at), 40)], c.Body[:min(len(c.Body), 40)])
	}
}

func checkChunks(t *testing.T, title, src string, opt Options, chunks []Piece) {
	t.Helper()
	opt = opt.withDefaults()
	var all strings.Builder
	for i, c := range chunks {
		if c.Ordinal != i {
			t.Errorf("chunk %d has ordinal %d", i, c.Ordinal)
		}
		if strings.TrimSpace(c.Body) == "" {
			t.Errorf("chunk %d has a blank body", i)
		}
		if c.Section == nil {
			t.Errorf("chunk %d has a nil section", i)
		}
		head := prefix(strings.TrimSpace(title), c.Section)
		if head != "" && !strings.HasPrefix(c.Text, head+"\n\n") && !strings.Contains(c.Text[:len(c.Text)-len(c.Body)], "…") {
			t.Errorf("chunk %d text %q does not start with %q", i, c.Text, head)
		}
		if !strings.HasSuffix(c.Text, c.Body) {
			t.Errorf("chunk %d text does not end with its body", i)
		}
		if c.Tokens != CountTokens(c.Text) {
			t.Errorf("chunk %d: Tokens = %d, CountTokens(Text) = %d", i, c.Tokens, CountTokens(c.Text))
		}
		if c.Tokens > opt.MaxTokens && !singleRow(c.Body) && len([]rune(strings.TrimSpace(c.Body))) > 1 {
			t.Errorf("chunk %d has %d tokens, cap %d:\n%s", i, c.Tokens, opt.MaxTokens, c.Text)
		}
		checkStart(t, src, chunks, i)
		all.WriteString(c.Body)
	}
	bodies := all.String()
	pos := 0
	for _, b := range scanBlocks(src) {
		if b.kind == kindHeading {
			continue
		}
		for _, w := range strings.Fields(src[b.start:b.end]) {
			i := strings.Index(bodies[pos:], w)
			if i < 0 {
				t.Fatalf("word %q (at or after body offset %d) missing from the chunks", w, pos)
			}
			pos += i + len(w)
		}
	}
}

// singleRow reports whether body is a table piece with one body row: the
// one case allowed past the token cap.
func singleRow(body string) bool {
	lines := strings.Split(strings.TrimSpace(body), "\n")
	return len(lines) <= 3 && len(lines) >= 2 && isDelimiterRow(lines[1])
}

func bodies(chunks []Piece) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = c.Body
	}
	return out
}

func sections(chunks []Piece) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = strings.Join(c.Section, " > ")
	}
	return out
}

func TestSplitSections(t *testing.T) {
	tests := []struct {
		name, title, src string
		sections, bodies []string
	}{
		{
			name: "text before the first heading has an empty path", title: "Doc",
			src:      "Intro text.\n\n# Doc\n\nUnder the title.\n\n## Part A\n\nA text.\n\n### Deep\n\nDeep text.\n\n## Part B\n\nB text.\n",
			sections: []string{"", "", "Part A", "Part A > Deep", "Part B"},
			bodies:   []string{"Intro text.", "Under the title.", "A text.", "Deep text.", "B text."},
		},
		{
			name: "an H1 other than the title is a section", title: "Doc",
			src:      "# Other\n\ntext\n\n# Doc\n\nmore\n",
			sections: []string{"Other", ""},
			bodies:   []string{"text", "more"},
		},
		{
			name: "title matched by its letters and digits", title: "EU 261: the rules",
			src:      "# EU261 -- the rules\n\nx\n\n# eu 261 the *rules*\n\ny\n",
			sections: []string{"EU261 -- the rules", ""},
			bodies:   []string{"x", "y"},
		},
		{
			name: "a heading alone keeps its line as body; one with sub-sections does not", title: "T",
			src:      "## Empty\n\n## Parent\n\n### Child\n\nchild text\n\n## Last",
			sections: []string{"Empty", "Parent > Child", "Last"},
			bodies:   []string{"## Empty", "child text", "## Last"},
		},
		{
			name: "setext headings and inline markup in titles", title: "",
			src:      "Big *Title*\n=========\n\nbody `x`\n\nSub [link](http://x)\n---\n\nsub body\n",
			sections: []string{"Big Title", "Big Title > Sub link"},
			bodies:   []string{"body `x`", "sub body"},
		},
		{
			name: "headings inside lists and quotes are not sections", title: "T",
			src:      "- # in list\n- item\n\n> # in quote\n",
			sections: []string{""},
			bodies:   []string{"- # in list\n- item\n\n> # in quote"},
		},
		{
			name: "blocks of one section share a chunk", title: "T",
			src:      "# A\n\np1\n\n| x | y |\n| - | - |\n| 1 | 2 |\n\n- i1\n- i2\n\n```\ncode\n```\n",
			sections: []string{"A"},
			bodies:   []string{"p1\n\n| x | y |\n| - | - |\n| 1 | 2 |\n\n- i1\n- i2\n\n```\ncode\n```"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, err := Split(context.Background(), tt.title, tt.src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkChunks(t, tt.title, tt.src, Options{}, chunks)
			if got := sections(chunks); !slices.Equal(got, tt.sections) {
				t.Errorf("sections = %q, want %q", got, tt.sections)
			}
			if got := bodies(chunks); !slices.Equal(got, tt.bodies) {
				t.Errorf("bodies = %q, want %q", got, tt.bodies)
			}
		})
	}
}

func TestSplitText(t *testing.T) {
	chunks, err := Split(context.Background(), "Guide", "Intro.\n\n## Rules\n\nBody.", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Guide\n\nIntro.", "Guide > Rules\n\nBody."}
	for i, c := range chunks {
		if c.Text != want[i] {
			t.Errorf("chunk %d text = %q, want %q", i, c.Text, want[i])
		}
	}
	untitled, _ := Split(context.Background(), "", "## Rules\n\nBody.", Options{})
	if len(untitled) != 1 || untitled[0].Text != "Rules\n\nBody." {
		t.Errorf("untitled = %+v", untitled)
	}
}

func sentences(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Sentence number %d talks about flight %d and its distance in kilometres. ", i, i*7)
	}
	return strings.TrimSpace(b.String())
}

func TestSplitLongParagraph(t *testing.T) {
	src := "# T\n\n" + sentences(60)
	opt := Options{MaxTokens: 100}
	chunks, err := Split(context.Background(), "T", src, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) < 5 {
		t.Fatalf("got %d chunks, want the paragraph split", len(chunks))
	}
	checkChunks(t, "T", src, opt, chunks)
	for _, c := range chunks {
		if !strings.HasPrefix(c.Body, "Sentence number") || !strings.HasSuffix(c.Body, "kilometres.") {
			t.Errorf("chunk not cut at sentence boundaries: %q", c.Body)
		}
	}
}

func TestSplitWordsAndRunes(t *testing.T) {
	words := strings.TrimSpace(strings.Repeat("lorem ipsum dolor sit amet ", 200))
	long := strings.Repeat("x9", 3000)
	tests := []struct {
		name, src string
		check     func(t *testing.T, c Piece)
	}{
		{"no sentence ends: split between words", words, func(t *testing.T, c Piece) {
			for _, w := range strings.Fields(c.Body) {
				if !strings.Contains("lorem ipsum dolor sit amet", w) {
					t.Errorf("word broken: %q", w)
				}
			}
		}},
		{"one huge word: split inside it", long, func(t *testing.T, c Piece) {}},
		{"multibyte huge word", strings.Repeat("東京ü", 800), func(t *testing.T, c Piece) {
			if !strings.HasPrefix(c.Body, "東") && !strings.HasPrefix(c.Body, "京") && !strings.HasPrefix(c.Body, "ü") {
				t.Errorf("piece does not start on a rune: %q", c.Body[:3])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := Options{MaxTokens: 64}
			chunks, err := Split(context.Background(), "T", tt.src, opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(chunks) < 2 {
				t.Fatalf("got %d chunks", len(chunks))
			}
			checkChunks(t, "T", tt.src, opt, chunks)
			var joined strings.Builder
			for _, c := range chunks {
				tt.check(t, c)
				joined.WriteString(c.Body)
			}
			if strings.Join(strings.Fields(tt.src), "") != strings.Join(strings.Fields(joined.String()), "") {
				t.Errorf("the pieces do not add up to the source")
			}
		})
	}
}

func table(rows int, cell string) string {
	var b strings.Builder
	b.WriteString("| city | country | distance |\n| --- | --- | ---: |\n")
	for i := range rows {
		fmt.Fprintf(&b, "| City%d | %s | %d km |\n", i, cell, i*100)
	}
	return b.String()
}

func TestSplitTable(t *testing.T) {
	t.Run("fits: stays whole", func(t *testing.T) {
		src := "# T\n\nBefore.\n\n" + table(10, "Land") + "\nAfter."
		chunks, _ := Split(context.Background(), "T", src, Options{MaxTokens: 200})
		checkChunks(t, "T", src, Options{MaxTokens: 200}, chunks)
		found := false
		for _, c := range chunks {
			found = found || strings.Contains(c.Body, strings.TrimSpace(table(10, "Land")))
		}
		if !found {
			t.Errorf("table not whole in one chunk: %q", bodies(chunks))
		}
	})
	t.Run("too large: split between rows with the header repeated", func(t *testing.T) {
		src := "# T\n\n" + table(80, "Land")
		opt := Options{MaxTokens: 120}
		chunks, err := Split(context.Background(), "T", src, opt)
		if err != nil {
			t.Fatal(err)
		}
		checkChunks(t, "T", src, opt, chunks)
		if len(chunks) < 3 {
			t.Fatalf("got %d chunks", len(chunks))
		}
		seen := map[string]int{}
		for _, c := range chunks {
			lines := strings.Split(c.Body, "\n")
			if lines[0] != "| city | country | distance |" || lines[1] != "| --- | --- | ---: |" {
				t.Errorf("piece without the header: %q", c.Body)
			}
			for _, l := range lines[2:] {
				seen[l]++
			}
		}
		for i := range 80 {
			row := fmt.Sprintf("| City%d | Land | %d km |", i, i*100)
			if seen[row] != 1 {
				t.Errorf("row %q appears %d times", row, seen[row])
			}
		}
	})
	t.Run("a row too long alone is never split", func(t *testing.T) {
		big := strings.Repeat("word ", 300)
		src := table(2, "x") + "| Huge | " + big + "| 1 km |\n" + "| After | y | 2 km |\n"
		opt := Options{MaxTokens: 100}
		chunks, _ := Split(context.Background(), "T", src, opt)
		checkChunks(t, "T", src, opt, chunks)
		var hugeChunk *Piece
		for i, c := range chunks {
			if strings.Contains(c.Body, "| Huge |") {
				hugeChunk = &chunks[i]
			}
		}
		if hugeChunk == nil || !strings.Contains(hugeChunk.Body, "| Huge | "+big+"| 1 km |") || !strings.HasPrefix(hugeChunk.Body, "| city |") {
			t.Fatalf("huge row split or without header: %q", bodies(chunks))
		}
		if hugeChunk.Tokens <= 100 {
			t.Errorf("expected the lone row over the cap, got %d tokens", hugeChunk.Tokens)
		}
	})
	t.Run("text glued before the header", func(t *testing.T) {
		src := "Lead line\n" + table(60, "Land")
		opt := Options{MaxTokens: 120}
		chunks, _ := Split(context.Background(), "T", src, opt)
		checkChunks(t, "T", src, opt, chunks)
		if !strings.HasPrefix(chunks[0].Body, "Lead line") || !strings.Contains(chunks[1].Body, "| city |") {
			t.Errorf("bodies = %q", bodies(chunks))
		}
	})
}

func TestSplitList(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "- Item %d: a rule about compensation for delays of %d hours\n", i, i)
		if i%10 == 0 {
			fmt.Fprintf(&b, "  - nested note %d\n", i)
		}
	}
	src := "## Rules\n\n" + b.String()
	opt := Options{MaxTokens: 120}
	chunks, err := Split(context.Background(), "T", src, opt)
	if err != nil {
		t.Fatal(err)
	}
	checkChunks(t, "T", src, opt, chunks)
	if len(chunks) < 3 {
		t.Fatalf("got %d chunks", len(chunks))
	}
	for _, c := range chunks {
		if !strings.HasPrefix(c.Body, "- Item") {
			t.Errorf("chunk does not start at an item: %q", c.Body)
		}
		if !strings.Contains(src, c.Body) {
			t.Errorf("chunk is not a verbatim slice of the list: %q", c.Body)
		}
	}
	for i := 0; i < 40; i += 10 {
		item := fmt.Sprintf("- Item %d: a rule about compensation for delays of %d hours\n  - nested note %d", i, i, i)
		found := false
		for _, c := range chunks {
			found = found || strings.Contains(c.Body, item)
		}
		if !found {
			t.Errorf("item %d separated from its nested note", i)
		}
	}
}

func TestSplitCodeBlockByLines(t *testing.T) {
	var b strings.Builder
	b.WriteString("```go\n")
	for i := range 80 {
		fmt.Fprintf(&b, "fmt.Println(%d, \"value\")\n", i)
	}
	b.WriteString("```\n")
	opt := Options{MaxTokens: 100}
	chunks, _ := Split(context.Background(), "T", b.String(), opt)
	checkChunks(t, "T", b.String(), opt, chunks)
	for _, c := range chunks {
		for _, l := range strings.Split(c.Body, "\n") {
			if strings.HasPrefix(l, "fmt.") && !strings.HasSuffix(l, "\"value\")") {
				t.Errorf("code line cut: %q", l)
			}
		}
	}
}

func TestSplitLongHeadings(t *testing.T) {
	h := strings.Repeat("very long heading words ", 60)
	src := "# " + h + "\n\n## " + h + "\n\nbody text here.\n"
	opt := Options{MaxTokens: 100}
	chunks, err := Split(context.Background(), "T", src, opt)
	if err != nil {
		t.Fatal(err)
	}
	checkChunks(t, "T", src, opt, chunks)
	if len(chunks) != 1 || chunks[0].Tokens > 100 || len(chunks[0].Section) != 2 {
		t.Errorf("chunks = %+v", chunks)
	}
}

func TestSplitEmpty(t *testing.T) {
	for _, src := range []string{"", "  \n\n\t", "\n"} {
		chunks, err := Split(context.Background(), "T", src, Options{})
		if err != nil || len(chunks) != 0 {
			t.Errorf("Split(%q) = %v, %v; want no chunks", src, chunks, err)
		}
	}
}

func TestSplitTooManyChunks(t *testing.T) {
	src := "# A\n\na\n\n# B\n\nb\n\n# C\n\nc\n\n# D\n\nd\n\n# E\n\ne\n"
	_, err := Split(context.Background(), "T", src, Options{MaxChunks: 3})
	if !errors.Is(err, ErrTooManyChunks) || !strings.Contains(err.Error(), "cap 3") || !strings.Contains(err.Error(), "more than 3 chunks") {
		t.Fatalf("err = %v, want ErrTooManyChunks naming the count and the cap", err)
	}
	chunks, err := Split(context.Background(), "T", src, Options{MaxChunks: 5})
	if err != nil || len(chunks) != 5 {
		t.Fatalf("at the cap: %d chunks, %v", len(chunks), err)
	}
}

// A cancelled job (its document deleted) stops splitting instead of cutting the rest of a long document.
func TestSplitStopsWithItsContext(t *testing.T) {
	src := strings.Repeat("## Section\n\nSome text of the section.\n\n", 100)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	chunks, err := Split(ctx, "T", src, Options{})
	if !errors.Is(err, context.Canceled) || chunks != nil {
		t.Errorf("Split with a cancelled context = %d chunks, %v; want none and context.Canceled", len(chunks), err)
	}
	if chunks, err := Split(context.Background(), "T", src, Options{}); err != nil || len(chunks) != 100 {
		t.Errorf("Split = %d chunks, %v; want 100", len(chunks), err)
	}
}

func TestCountTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"tiktoken is great!", 6}, // the tiktoken README example for cl100k_base
		{"\xff\xfe", 1},
	}
	for _, tt := range tests {
		if got := CountTokens(tt.in); got != tt.want {
			t.Errorf("CountTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestCountTokensConcurrent(t *testing.T) {
	want := CountTokens(sentences(20))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := CountTokens(sentences(20)); got != want {
				t.Errorf("concurrent count %d, want %d", got, want)
			}
		})
	}
	wg.Wait()
}

func TestIsDelimiterRow(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"| --- | :--: |", true}, {"---|---", true}, {"|-|", true},
		{"| a | b |", false}, {"| -- | x- |", false}, {"", false}, {"||", false},
	}
	for _, tt := range tests {
		if got := isDelimiterRow(tt.line); got != tt.want {
			t.Errorf("isDelimiterRow(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestBySentences(t *testing.T) {
	src := `He said "Stop." Then left! Did he? Yes… 3.5 km is far. 東京です。次`
	var got []string
	for _, p := range bySentences(src, 0, len(src)) {
		got = append(got, src[p[0]:p[1]])
	}
	want := []string{`He said "Stop."`, "Then left!", "Did he?", "Yes…", "3.5 km is far.", "東京です。", "次"}
	if !slices.Equal(got, want) {
		t.Errorf("sentences = %q, want %q", got, want)
	}
}

func TestSplitStopsAtTheCap(t *testing.T) {
	src := strings.Repeat(sentences(50)+"\n\n", 1500) // about 10 MB, one section
	start := time.Now()
	_, err := Split(context.Background(), "Big", src, Options{MaxChunks: 20})
	if !errors.Is(err, ErrTooManyChunks) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v: the cap should stop the work early", d)
	}
	if !strings.Contains(err.Error(), "cap 20") {
		t.Errorf("err = %v", err)
	}
}
