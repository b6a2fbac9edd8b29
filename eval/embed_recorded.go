package eval

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"

	"github.com/hopwise/hopwise/graphrag"
)

// RecordedEmbedder answers with vectors a real embedding model gave earlier for the same texts, so that a
// benchmark slice runs in tests with a real model's geometry and no model. Vectors are kept as int8 with
// one scale each (a file of about 400 bytes a vector at 384 dimensions); a text it has no vector for is
// an error, never a made-up vector.
type RecordedEmbedder struct {
	dim  int
	vecs map[[16]byte][]float32
}

// recordMagic starts a file of recorded vectors.
const recordMagic = "hopwise-vectors-1"

// LoadRecordedEmbedder reads a file written by Recorder.Save.
func LoadRecordedEmbedder(path string) (*RecordedEmbedder, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: recorded vectors: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("eval: recorded vectors %s: %w", path, err)
	}
	r := bufio.NewReader(zr)
	head := make([]byte, len(recordMagic)+4)
	if _, err := io.ReadFull(r, head); err != nil || string(head[:len(recordMagic)]) != recordMagic {
		return nil, fmt.Errorf("eval: %s is not a file of recorded vectors", path)
	}
	e := &RecordedEmbedder{dim: int(binary.LittleEndian.Uint32(head[len(recordMagic):])), vecs: map[[16]byte][]float32{}}
	if e.dim <= 0 || e.dim > 1<<16 {
		return nil, fmt.Errorf("eval: %s: dimension %d", path, e.dim)
	}
	rec := make([]byte, 16+4+e.dim)
	for {
		_, err := io.ReadFull(r, rec)
		if errors.Is(err, io.EOF) {
			return e, nil
		}
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", path, err)
		}
		var key [16]byte
		copy(key[:], rec)
		q := make([]int8, e.dim)
		for i, b := range rec[20:] {
			q[i] = int8(b)
		}
		e.vecs[key] = dequantize(math.Float32frombits(binary.LittleEndian.Uint32(rec[16:])), q)
	}
}

// Dim is the dimension of the recorded vectors.
func (e *RecordedEmbedder) Dim() int { return e.dim }

// Embed returns the recorded vector of every text, or an error naming the first text it has none for.
func (e *RecordedEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := e.vecs[textKey(t)]
		if !ok {
			return nil, fmt.Errorf("eval: no recorded vector for %q", clipText(t, 60))
		}
		out[i] = v
	}
	return out, nil
}

func textKey(t string) [16]byte {
	sum := sha256.Sum256([]byte(t))
	var k [16]byte
	copy(k[:], sum[:16])
	return k
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// Recorder is a graphrag.Embedder that passes texts to a real one and keeps every vector it got, to save
// them for a RecordedEmbedder.
type Recorder struct {
	next graphrag.Embedder
	mu   sync.Mutex
	vecs map[[16]byte][]float32
}

// NewRecorder records what next answers.
func NewRecorder(next graphrag.Embedder) *Recorder {
	return &Recorder{next: next, vecs: map[[16]byte][]float32{}}
}

// Embed asks the real embedder and keeps its vectors. It answers with them as a RecordedEmbedder will
// (rounded to int8), so that the recording run takes the same turns as the replays: the texts a retrieval
// embeds can depend on what earlier vectors found (bridge queries name the entities of the best facts).
func (r *Recorder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := r.next.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		scale, q := quantize(v)
		out[i] = dequantize(scale, q)
		if i < len(texts) {
			r.vecs[textKey(texts[i])] = out[i]
		}
	}
	return out, nil
}

// quantize rounds v to int8 with one scale (its largest magnitude over 127).
func quantize(v []float32) (float32, []int8) {
	peak := float32(0)
	for _, x := range v {
		peak = max(peak, float32(math.Abs(float64(x))))
	}
	scale := peak / 127
	if scale == 0 {
		scale = 1
	}
	q := make([]int8, len(v))
	for i, x := range v {
		q[i] = int8(math.Round(float64(x / scale)))
	}
	return scale, q
}

func dequantize(scale float32, q []int8) []float32 {
	v := make([]float32, len(q))
	for i, b := range q {
		v[i] = float32(b) * scale
	}
	return v
}

// Save writes the recorded vectors, in key order so the file is the same for the same vectors.
func (r *Recorder) Save(path string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([][16]byte, 0, len(r.vecs))
	dim := 0
	for k, v := range r.vecs {
		keys = append(keys, k)
		dim = len(v)
	}
	slices.SortFunc(keys, func(a, b [16]byte) int { return slices.Compare(a[:], b[:]) })
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("eval: save vectors: %w", err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	w := bufio.NewWriter(zw)
	head := binary.LittleEndian.AppendUint32([]byte(recordMagic), uint32(dim))
	w.Write(head)
	for _, k := range keys {
		scale, q := quantize(r.vecs[k])
		rec := append(k[:], binary.LittleEndian.AppendUint32(nil, math.Float32bits(scale))...)
		for _, b := range q {
			rec = append(rec, byte(b))
		}
		w.Write(rec)
	}
	err = errors.Join(w.Flush(), zw.Close(), f.Close())
	if err != nil {
		return fmt.Errorf("eval: save vectors: %w", err)
	}
	return nil
}
