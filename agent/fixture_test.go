package agent_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/llm/llmtest"
	"github.com/hopwise/hopwise/samples"
)

// embedDim is the dimension of the fixture's hashing vectors and of the scripted server's (newModel sets
// it), which are the same function of the text. 256, not llmtest's default 64: at 64 the hashed words of
// unrelated sentences collide so often that "vacation days" came out near "Munich distance from Madrid".
const embedDim = 256

var fixture struct {
	once  sync.Once
	dir   string
	store *sqlite.Store
	err   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture.store != nil {
		fixture.store.Close()
	}
	if fixture.dir != "" {
		os.RemoveAll(fixture.dir)
	}
	os.Exit(code)
}

// demoStore is a SQLite store holding the sample documents (package samples), ingested once per test binary
// through graphrag.Ingester with the hand-written extractor below and llmtest's deterministic vectors.
func demoStore(t testing.TB) *sqlite.Store {
	t.Helper()
	fixture.once.Do(func() {
		fixture.dir, fixture.err = os.MkdirTemp("", "agent-fixture-")
		if fixture.err == nil {
			fixture.store, fixture.err = ingestDemo(filepath.Join(fixture.dir, "demo.db"))
		}
	})
	if fixture.err != nil {
		t.Fatalf("demo fixture: %v", fixture.err)
	}
	return fixture.store
}

func ingestDemo(path string) (*sqlite.Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store, err := sqlite.Open(ctx, path, sqlite.Options{EmbedDim: embedDim, EmbedModel: "llmtest"}, nil)
	if err != nil {
		return nil, err
	}
	in := graphrag.NewIngester(store, vectors{}, demoExtractor{}, graphrag.IngestOptions{Workers: 2}, slog.New(slog.DiscardHandler))
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- in.Run(runCtx) }()
	files := samples.List()
	for _, f := range files {
		if _, _, err := in.Submit(ctx, f.Name, bytes.NewReader(f.Body)); err != nil {
			return nil, err
		}
	}
	for {
		docs, err := store.Documents(ctx)
		if err != nil {
			return nil, err
		}
		finished := 0
		for _, d := range docs {
			if d.Status == graphrag.StatusFailed {
				return nil, fmt.Errorf("ingest %s: %s", d.Name, d.Error)
			}
			if d.Status == graphrag.StatusDone {
				finished++
			}
		}
		if finished == len(files) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("ingest: %d of %d documents done: %w", finished, len(files), ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	stop()
	<-done
	return store, nil
}

// vectors embeds as the scripted server does, so documents and queries share one space.
type vectors struct{}

func (vectors) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = llmtest.Vector(t, embedDim)
	}
	return out, nil
}

// demoExtractor knows a few facts of the demo corpus, as a model would extract them: the rows of the
// distance table (Munich DISTANCE_FROM city, with distance_km), the rows of the airline registry
// (airline LICENSED_IN country) and the company history's people and acquisition.
type demoExtractor struct{}

var (
	distanceRow = regexp.MustCompile(`(?m)^\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|\s*([\d,]+) km\s*\|`)
	airlineRow  = regexp.MustCompile(`(?m)^\|\s*([^|]+?)\s*\|\s*([A-Z0-9]{2})\s*\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|`)
)

// proseFacts are relations stated in sentences: when a chunk contains every needle, it yields the relation.
var proseFacts = []struct {
	needles           []string
	src, srcType, typ string
	dst, dstType      string
}{
	{[]string{"founded in 2019", "Lena Vogt"}, "Nexa AI", "company", "FOUNDED_BY", "Lena Vogt", "person"},
	{[]string{"founded in 2019", "Arjun Mehta"}, "Nexa AI", "company", "FOUNDED_BY", "Arjun Mehta", "person"},
	{[]string{"Nexa AI acquired Acme Robotics"}, "Nexa AI", "company", "ACQUIRED", "Acme Robotics", "company"},
	{[]string{"Acme Robotics", "headquartered in Lisbon"}, "Acme Robotics", "company", "HEADQUARTERED_IN", "Lisbon", "city"},
	{[]string{"Priya Raman"}, "Priya Raman", "person", "WORKS_FOR", "Acme Robotics", "company"},
	{[]string{"Tomas Silva"}, "Tomas Silva", "person", "WORKS_FOR", "Acme Robotics", "company"},
	{[]string{"Chen Wei"}, "Chen Wei", "person", "WORKS_FOR", "Acme Robotics", "company"},
	{[]string{"Delhi, opened in 2023"}, "Nexa AI", "company", "HAS_OFFICE_IN", "Delhi", "city"},
	{[]string{"Bavaria Ventures led the seed"}, "Bavaria Ventures", "investor", "INVESTED_IN", "Nexa AI", "company"},
	{[]string{"led by Northlight Capital"}, "Northlight Capital", "investor", "INVESTED_IN", "Nexa AI", "company"},
}

func (demoExtractor) Extract(_ context.Context, c graphrag.Chunk) (graphrag.Extraction, error) {
	x := extraction{Extraction: graphrag.Extraction{ChunkID: c.ID}, chunk: c, index: map[string]int{}}
	if strings.Contains(c.Text, "distance from Munich") {
		for _, m := range distanceRow.FindAllStringSubmatch(c.Text, -1) {
			if m[1] == "city" {
				continue
			}
			km, _ := strconv.Atoi(strings.ReplaceAll(m[3], ",", ""))
			x.relate("Munich", "city", "DISTANCE_FROM", m[1], "city", map[string]any{"distance_km": float64(km)})
			x.relate(m[1], "city", "LOCATED_IN", m[2], "country", nil)
		}
	}
	if strings.Contains(c.Text, "IATA code") {
		for _, m := range airlineRow.FindAllStringSubmatch(c.Text, -1) {
			if m[1] == "airline" || strings.HasPrefix(m[1], "-") {
				continue
			}
			x.relate(m[1], "airline", "LICENSED_IN", m[3], "country", map[string]any{"iata_code": m[2], "eu_member_state": m[4]})
		}
	}
	for _, f := range proseFacts {
		if containsAll(c.Text, f.needles) {
			x.relate(f.src, f.srcType, f.typ, f.dst, f.dstType, nil)
		}
	}
	// A model also names the entities a passage speaks of where it states no relation of them ("EU261",
	// "Nexa AI employees"), so passages of rules and policies are in the graph too.
	for _, n := range mentionNames {
		if strings.Contains(c.Text, n.name) {
			x.entity(n.name, n.typ)
		}
	}
	return x.Extraction, nil
}

// mentionNames are names of the demo corpus a model would extract wherever they occur.
var mentionNames = []struct{ name, typ string }{
	{"Nexa AI", "company"}, {"Lufthansa", "airline"}, {"EU261", "law"}, {"European Union", "organisation"},
	{"Munich", "city"}, {"Delhi", "city"}, {"Lisbon", "city"}, {"Acme Robotics", "company"},
}

func containsAll(s string, needles []string) bool {
	for _, n := range needles {
		if !strings.Contains(s, n) {
			return false
		}
	}
	return true
}

// extraction builds an Extraction with resolved entity keys and relation IDs, the chunk as provenance.
type extraction struct {
	graphrag.Extraction
	chunk graphrag.Chunk
	index map[string]int
}

func (x *extraction) entity(name, typ string) string {
	key := graphrag.NormalizeKey(name)
	if _, ok := x.index[key]; !ok {
		x.index[key] = len(x.Entities)
		x.Entities = append(x.Entities, graphrag.Entity{Key: key, Name: name, Type: typ, Aliases: []string{name},
			ChunkIDs: []string{x.chunk.ID}, DocIDs: []string{x.chunk.DocID}})
	}
	return key
}

func (x *extraction) relate(src, srcType, typ, dst, dstType string, values map[string]any) {
	s, d := x.entity(src, srcType), x.entity(dst, dstType)
	x.Relations = append(x.Relations, graphrag.Relation{
		ID: graphrag.RelationID(s, typ, d), Source: s, Target: d, SourceName: src, TargetName: dst, Type: typ,
		Values: values, ChunkIDs: []string{x.chunk.ID}, DocIDs: []string{x.chunk.DocID},
	})
}
