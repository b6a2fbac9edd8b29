package graphrag_test

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/parse"
)

// endlessText yields n bytes of paragraphs without holding them, and counts what was read.
type endlessText struct {
	n, read int64
}

func (e *endlessText) Read(p []byte) (int, error) {
	if e.read >= e.n {
		return 0, io.EOF
	}
	const para = "Munich is far from Delhi. The table lists distances between cities in kilometres.\n\n"
	k := 0
	for k < len(p) && e.read < e.n {
		c := copy(p[k:], para[int(e.read%int64(len(para))):])
		if rem := e.n - e.read; int64(c) > rem {
			c = int(rem)
		}
		k += c
		e.read += int64(c)
	}
	return k, nil
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestLargeUploadStopsAtTheLimit: a 50 MB upload against a 25 MiB cap is refused after reading just past the
// cap, never slurped whole, and nothing is stored.
func TestLargeUploadStopsAtTheLimit(t *testing.T) {
	env := newEnv(t)
	src := &endlessText{n: 50 << 20}
	_, _, err := env.ingester.Submit(context.Background(), "huge.txt", src)
	if !errors.Is(err, parse.ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if src.read > 25<<20+64<<10 {
		t.Errorf("read %d bytes of a 50 MB body; want to stop just past 25 MiB", src.read)
	}
	if s := env.stats(); s.Documents != 0 {
		t.Errorf("a refused upload left %d documents", s.Documents)
	}
}

// TestDocumentOverTheChunkCapFailsClearly: a document within the byte limit but past the per-document chunk
// cap fails with a message that says so, and the memory it takes peaks at a small multiple of its size.
func TestDocumentOverTheChunkCapFailsClearly(t *testing.T) {
	env := newEnvWith(t, graphrag.IngestOptions{MaxChunks: 200, MaxBytes: 30 << 20})
	progress, stop := env.ingester.Subscribe()
	defer stop()
	before := heapInUse()
	peak := watchPeakHeap(t)
	src := &endlessText{n: 20 << 20}
	doc, _, err := env.ingester.Submit(context.Background(), "big.txt", src)
	if err != nil {
		t.Fatal(err)
	}
	var final graphrag.Progress
	for p := range progress {
		if p.DocID == doc.ID && p.Status.Finished() {
			final = p
			break
		}
	}
	grown := int64(peak()) - int64(before)
	if final.Status != graphrag.StatusFailed || !strings.Contains(final.Error, "chunks") || !strings.Contains(final.Error, "200") {
		t.Fatalf("final %+v, want failed naming the chunk cap of 200", final)
	}
	if s := env.stats(); s.Chunks != 0 {
		t.Errorf("a refused document left %d chunks", s.Chunks)
	}
	// Parsing, the Markdown text, the block list and the stored copy each hold the document once; before
	// goldmark parsed in windows its syntax tree alone took 15 times the text (302 MB here).
	if grown > 8*src.n {
		t.Errorf("heap peaked %d MB above the start for a %d MB document", grown>>20, src.n>>20)
	}
	t.Logf("peak heap growth for a %d MB document: %d MB", src.n>>20, grown>>20)
}

// watchPeakHeap samples the heap every few milliseconds until the returned function is called, which
// returns the highest HeapInuse seen.
func watchPeakHeap(t *testing.T) func() uint64 {
	done := make(chan struct{})
	result := make(chan uint64)
	go func() {
		var peak uint64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-done:
				result <- peak
				return
			case <-tick.C:
			}
		}
	}()
	var once bool
	stop := func() uint64 {
		if once {
			t.Fatal("peak read twice")
		}
		once = true
		close(done)
		return <-result
	}
	return stop
}
