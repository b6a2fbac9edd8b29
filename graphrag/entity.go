package graphrag

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Entity is a node of the knowledge graph. Key is the normalised name that makes name variants one node.
type Entity struct {
	Key         string
	Name        string
	Type        string
	Description string
	Aliases     []string // every surface name seen, including Name
	ChunkIDs    []string // chunks that mention it
	DocIDs      []string
}

// Relation is a typed, directed edge between two entities, with the chunks that support it.
type Relation struct {
	ID          string
	Source      string // entity key
	Target      string // entity key
	SourceName  string
	TargetName  string
	Type        string // UPPER_SNAKE
	Description string
	Values      map[string]any // typed values, e.g. distance_km: 5921
	ChunkIDs    []string
	DocIDs      []string
	// Embedding is the vector of the relation's sentence (FactText), by the store's embedding model; nil
	// when it has none.
	Embedding []float32
}

// RelationID is the deterministic ID of the relation of type typ from source to target (entity keys).
func RelationID(source, typ, target string) string {
	sum := sha256.Sum256([]byte(source + "\x00" + typ + "\x00" + target))
	return "r" + hex.EncodeToString(sum[:8])
}

// Edge is a relation reached in a neighbourhood query, Hop steps from the nearest start entity (1 or more).
type Edge struct {
	Relation
	Hop int
}

// legalSuffixes are company-form words dropped from entity keys so "Deutsche Lufthansa AG" and
// "Deutsche Lufthansa" resolve to one entity.
var legalSuffixes = map[string]bool{
	"ag": true, "gmbh": true, "inc": true, "ltd": true, "llc": true, "plc": true, "sa": true, "se": true,
	"corp": true, "corporation": true, "co": true, "kg": true, "nv": true, "bv": true, "srl": true,
	"spa": true, "oy": true, "ab": true, "as": true, "limited": true, "incorporated": true,
}

// NormalizeKey is the entity-resolution key of a name: diacritics removed, case folded, punctuation and
// repeated white space collapsed, a leading "the" and trailing legal-form suffixes dropped.
// "Deutsche Lufthansa AG", "deutsche  lufthansa" and "Deutsche Lufthansa, A.G." share one key.
func NormalizeKey(name string) string {
	decomposed := norm.NFKD.String(name)
	var b strings.Builder
	for _, r := range decomposed {
		switch {
		case unicode.Is(unicode.Mn, r):
			// combining mark: dropped with its accent
		case r == '.' || r == '\'' || r == '’':
			// "A.G." -> "ag", "O'Neil" -> "oneil"
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(' ')
		}
	}
	words := strings.Fields(b.String())
	if len(words) > 1 && words[0] == "the" {
		words = words[1:]
	}
	for len(words) > 1 && legalSuffixes[words[len(words)-1]] {
		words = words[:len(words)-1]
	}
	return strings.Join(words, " ")
}

// NormalizeRelationType turns "distance from" or "distanceFrom" into DISTANCE_FROM.
func NormalizeRelationType(t string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range strings.TrimSpace(t) {
		switch {
		case unicode.IsUpper(r) && prevLower:
			b.WriteRune('_')
			b.WriteRune(r)
			prevLower = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToUpper(r))
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		default:
			b.WriteRune('_')
			prevLower = false
		}
	}
	parts := strings.FieldsFunc(b.String(), func(r rune) bool { return r == '_' })
	if len(parts) == 0 {
		return "RELATED_TO"
	}
	return strings.Join(parts, "_")
}

// BestCosine is the best cosine similarity of v to one of qs, at least 0 (0 when v is empty or zero): how
// near a relation's sentence is to the nearest of a retrieval's queries.
func BestCosine(v []float32, qs [][]float32) float64 {
	best := 0.0
	for _, q := range qs {
		best = max(best, cosine(v, q))
	}
	return best
}

// cosine is the cosine similarity of two vectors; 0 when one is empty or zero.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
