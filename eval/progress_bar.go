package eval

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Bar draws evaluation progress: on a terminal one line redrawn in place, elsewhere (a file, CI) one plain
// line per outcome.
type Bar struct {
	w     io.Writer
	tty   bool
	start time.Time
	width int
}

// NewBar returns a Bar writing to w; tty says whether w is a terminal.
func NewBar(w io.Writer, tty bool) *Bar {
	return &Bar{w: w, tty: tty, start: time.Now(), width: 30}
}

// Update shows one finished outcome; it is a Runner.Progress function.
func (b *Bar) Update(p Progress) {
	o := p.Outcome
	mark := "wrong"
	switch {
	case o.Error != "":
		mark = "error"
	case o.Correct:
		mark = "ok"
	}
	elapsed := time.Since(b.start)
	eta := ""
	if p.Done < p.Total && p.Done > 0 {
		eta = " eta " + (elapsed * time.Duration(p.Total-p.Done) / time.Duration(p.Done)).Round(time.Second).String()
	}
	if !b.tty {
		fmt.Fprintf(b.w, "eval %d/%d %s %s %s (%d calls, %.1fs)%s\n", p.Done, p.Total, o.Pipeline, o.ID, mark, o.Calls, o.Seconds, eta)
		return
	}
	filled := b.width * p.Done / max(p.Total, 1)
	fmt.Fprintf(b.w, "\r\033[K[%s%s] %d/%d %s %s %s%s", strings.Repeat("#", filled), strings.Repeat(".", b.width-filled),
		p.Done, p.Total, o.Pipeline, o.ID, mark, eta)
	if p.Done == p.Total {
		fmt.Fprintf(b.w, " in %s\n", elapsed.Round(100*time.Millisecond))
	}
}
