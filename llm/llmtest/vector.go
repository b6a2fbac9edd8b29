package llmtest

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// vectorSeed keeps the hashing stable across runs and machines.
const vectorSeed = "hopwise-llmtest-v1"

// Vector returns the deterministic embedding the server gives text: a hashing
// bag of lowercased words (weight 1) and their character trigrams (weight 0.5),
// each hashed with a sign into dim buckets, then L2-normalised. Identical texts
// get identical vectors and texts that share words have a positive cosine.
// Text without any word maps to the first unit vector.
func Vector(text string, dim int) []float32 {
	if dim <= 0 {
		return nil
	}
	acc := make([]float64, dim)
	for _, w := range words(text) {
		addFeature(acc, "w:"+w, 1)
		padded := []rune(" " + w + " ")
		for i := 0; i+3 <= len(padded); i++ {
			addFeature(acc, "t:"+string(padded[i:i+3]), 0.5)
		}
	}
	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	out := make([]float32, dim)
	if norm == 0 {
		out[0] = 1
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range acc {
		out[i] = float32(x / norm)
	}
	return out
}

func addFeature(acc []float64, feature string, weight float64) {
	h := fnv.New64a()
	h.Write([]byte(vectorSeed))
	h.Write([]byte(feature))
	sum := h.Sum64()
	i := int(sum % uint64(len(acc)))
	if sum>>63 == 1 {
		weight = -weight
	}
	acc[i] += weight
}

// words splits text into lowercased runs of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
