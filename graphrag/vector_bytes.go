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
