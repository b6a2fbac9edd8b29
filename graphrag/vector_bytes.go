package graphrag

import (
	"encoding/binary"
	"fmt"
	"math"
)

// VectorBytes is a vector as the stores keep it in bytes: little-endian float32, 4 bytes a value (a
// SQLite BLOB, a Neo4j byte array).
func VectorBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// VectorFromBytes reads a vector that VectorBytes wrote; bytes that are not a whole number of values are
// an error.
func VectorFromBytes(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("a vector of %d bytes is not a whole number of float32 values", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// RerankExtra is how many candidates past k a store's vector index returns for exact ranking by cosine:
// the indexes score quantised vectors (int8 codes in both stores, within about 1 % of the cosine), so the
// k best are among the first k+RerankExtra(k). Both stores use it, so that they rank alike. Measured on
// the 100k passage corpus (64 queries, k = 10): every one of the exact 10 that the embedded store's bit
// candidates held was among its int8 top 20 (eval/storebench, docs/benchmarks.md).
func RerankExtra(k int) int { return max(10, k/2) }
