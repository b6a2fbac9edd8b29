package graphrag_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// syntheticDoc writes a seeded markdown document of about n paragraphs with headings, names and a table.
func syntheticDoc(rng *rand.Rand, id, n int) string {
	cities := []string{"Munich", "Delhi", "Lisbon", "Tokyo", "Oslo", "Cairo", "Toronto", "Madrid"}
	people := []string{"Lena Vogt", "Arjun Mehta", "Priya Raman", "Tomas Silva", "Chen Wei", "Marta Costa"}
	var b strings.Builder
	fmt.Fprintf(&b, "# Report %d\n\n", id)
	for i := 0; i < n; i++ {
		if i%4 == 0 {
			fmt.Fprintf(&b, "## Section %d\n\n", i/4)
		}
		fmt.Fprintf(&b, "%s met %s in %s to discuss project %d. The office in %s opened in %d and employs %d people.\n\n",
			people[rng.IntN(len(people))], people[rng.IntN(len(people))], cities[rng.IntN(len(cities))], rng.IntN(1000),
			cities[rng.IntN(len(cities))], 2000+rng.IntN(25), 10+rng.IntN(500))
	}
	b.WriteString("| city | country | distance from Munich |\n| --- | --- | --- |\n")
	for _, c := range cities[1:] {
		fmt.Fprintf(&b, "| %s | Land | %d km |\n", c, 100+rng.IntN(9000))
	}
	return b.String()
}

// BenchmarkIngest measures the pipeline without model time: the scripted model answers at once, so what is
// left is parsing, chunking, HTTP to the model, JSON decoding, entity resolution and store writes.
func BenchmarkIngest(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	docs := map[string]string{}
	bytes := 0
	for i := 0; i < 20; i++ {
		d := syntheticDoc(rng, i, 40)
		docs[fmt.Sprintf("report-%02d.md", i)] = d
		bytes += len(d)
	}
	var chunks int
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		env := newEnv(b)
		b.StartTimer()
		start := time.Now()
		for name, p := range env.ingest(docs) {
			if p.Status != graphrag.StatusDone {
				b.Fatalf("%s: %s %s", name, p.Status, p.Error)
			}
		}
		elapsed += time.Since(start)
		chunks += env.stats().Chunks
	}
	b.ReportMetric(float64(chunks)/elapsed.Seconds(), "chunks/s")
	b.ReportMetric(float64(bytes*b.N)/elapsed.Seconds()/1e6, "MB/s")
}
