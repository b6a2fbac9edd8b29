package neo4j

import (
	"errors"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

func TestOpenUnreachable(t *testing.T) {
	start := time.Now()
	_, err := Open(t.Context(), "bolt://127.0.0.1:1", "", "", Options{EmbedDim: 8}, testLogger(t))
	if !errors.Is(err, graphrag.ErrUnavailable) {
		t.Fatalf("Open on a closed port: got %v, want ErrUnavailable", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "cannot reach bolt://127.0.0.1:1") || !strings.Contains(msg, "check") {
		t.Errorf("error %q does not say what could not be reached and what to check", msg)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Open took %v to fail", d)
	}
}

func TestOpenRefusesBadDimension(t *testing.T) {
	_, err := Open(t.Context(), "bolt://127.0.0.1:1", "", "", Options{EmbedDim: -1}, testLogger(t))
	if err == nil || !strings.Contains(err.Error(), "dimension") {
		t.Fatalf("Open with dimension -1: got %v, want an error about the dimension", err)
	}
}

// TestOpenWithTheRecordedDimension: EmbedDim 0 takes the dimension of the database's vector index (commands
// that only read need no embedding model to learn it); a database without one is refused, not built.
func TestOpenWithTheRecordedDimension(t *testing.T) {
	uri := testURI(t)
	wipe(t, uri, 8, true)
	opt := Options{EmbedModel: testModel, Database: os.Getenv("NEO4J_DATABASE")}
	if _, err := Open(t.Context(), uri, os.Getenv("NEO4J_USERNAME"), os.Getenv("NEO4J_PASSWORD"), opt, testLogger(t)); !errors.Is(err, graphrag.ErrNoDimension) {
		t.Fatalf("Open of a database without a vector index, no dimension given: %v, want ErrNoDimension", err)
	}
	if dim := readSchema(t, uri).vectorDim; dim != 0 {
		t.Errorf("the refused Open built a vector index of dimension %d", dim)
	}
	openOn(t, uri, 8, testModel).Close()
	s, err := Open(t.Context(), uri, os.Getenv("NEO4J_USERNAME"), os.Getenv("NEO4J_PASSWORD"), opt, testLogger(t))
	if err != nil {
		t.Fatalf("Open with the recorded dimension: %v", err)
	}
	defer s.Close()
	if s.opt.EmbedDim != 8 {
		t.Errorf("opened with dimension %d, want the index's 8", s.opt.EmbedDim)
	}
}

// schemaState is what SHOW CONSTRAINTS and SHOW INDEXES report, by name.
type schemaState struct {
	constraints map[string]string // name -> type
	indexes     map[string]string // name -> type/state
	vectorDim   int
	similarity  string
}

func readSchema(t *testing.T, uri string) schemaState {
	t.Helper()
	st := schemaState{constraints: map[string]string{}, indexes: map[string]string{}}
	for _, r := range cypher(t, uri, "SHOW CONSTRAINTS YIELD name, type RETURN name, type", nil) {
		st.constraints[asString(r.Values[0])] = asString(r.Values[1])
	}
	for _, r := range cypher(t, uri, "SHOW INDEXES YIELD name, type, state, options RETURN name, type, state, options", nil) {
		name := asString(r.Values[0])
		st.indexes[name] = asString(r.Values[1]) + "/" + asString(r.Values[2])
		if name == vectorIndex {
			config := asMap(asMap(r.Values[3])["indexConfig"])
			st.vectorDim = asInt(config["vector.dimensions"])
			st.similarity = strings.ToLower(asString(config["vector.similarity_function"]))
		}
	}
	return st
}

func TestOpenCreatesSchemaOnEmptyAndExistingDatabase(t *testing.T) {
	uri := testURI(t)
	wipe(t, uri, 0, true)
	wantConstraints := []string{"chunk_id", "conversation_id", "document_id", "entity_key", "meta_id", "source_doc_id", "turn_id"}
	wantIndexes := map[string]string{
		vectorIndex:         "VECTOR/ONLINE",
		chunkTextIndex:      "FULLTEXT/ONLINE",
		entityNameIndex:     "FULLTEXT/ONLINE",
		"chunk_doc_ordinal": "RANGE/ONLINE",
		"chunk_embedded":    "RANGE/ONLINE",
	}
	var first schemaState
	for i, when := range []string{"empty database", "existing database"} {
		openOn(t, uri, 12, testModel)
		st := readSchema(t, uri)
		for _, name := range wantConstraints {
			if st.constraints[name] != "UNIQUENESS" && st.constraints[name] != "NODE_PROPERTY_UNIQUENESS" {
				t.Errorf("%s: constraint %s is %q, want a uniqueness constraint", when, name, st.constraints[name])
			}
		}
		for name, want := range wantIndexes {
			if st.indexes[name] != want {
				t.Errorf("%s: index %s is %q, want %q", when, name, st.indexes[name], want)
			}
		}
		if st.vectorDim != 12 || st.similarity != "cosine" {
			t.Errorf("%s: vector index has dimension %d and similarity %q, want 12 and cosine", when, st.vectorDim, st.similarity)
		}
		meta := cypher(t, uri, "MATCH (m:Meta) RETURN count(m), collect(m.embedDim)[0], collect(m.embedModel)[0]", nil)
		if n, dim, model := asInt(meta[0].Values[0]), asInt(meta[0].Values[1]), asString(meta[0].Values[2]); n != 1 || dim != 12 || model != testModel {
			t.Errorf("%s: %d Meta nodes with dimension %d and model %q, want 1 with 12 and %q", when, n, dim, model, testModel)
		}
		if i == 0 {
			first = st
			continue
		}
		if !maps.Equal(first.constraints, st.constraints) || !maps.Equal(first.indexes, st.indexes) {
			t.Errorf("opening again changed the schema:\nfirst  %v %v\nsecond %v %v",
				slices.Sorted(maps.Keys(first.constraints)), first.indexes,
				slices.Sorted(maps.Keys(st.constraints)), st.indexes)
		}
	}
}

func TestOpenFailsOnOtherDimension(t *testing.T) {
	uri := testURI(t)
	openTest(t, 8)
	_, err := Open(t.Context(), uri, "", "", Options{EmbedDim: 16, EmbedModel: testModel}, testLogger(t))
	if !errors.Is(err, graphrag.ErrDimension) {
		t.Fatalf("Open with dimension 16 on an index of 8: got %v, want ErrDimension", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "dimension 8") || !strings.Contains(msg, "16") {
		t.Errorf("error %q does not name both dimensions", msg)
	}
	if st := readSchema(t, uri); st.vectorDim != 8 {
		t.Errorf("the failed Open changed the vector index to dimension %d", st.vectorDim)
	}
}

func TestOpenFailsOnOtherModelOnceChunksAreEmbedded(t *testing.T) {
	uri := testURI(t)
	s := openTest(t, 4)
	// Nothing embedded yet: another model may take the empty database over.
	openOn(t, uri, 4, "other-embedder")
	openOn(t, uri, 4, testModel)
	_, chunks := putDoc(t, s, "model.txt", "one chunk")
	if err := s.SetEmbeddings(t.Context(), map[string][]float32{chunks[0].ID: {1, 0, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	_, err := Open(t.Context(), uri, "", "", Options{EmbedDim: 4, EmbedModel: "other-embedder"}, testLogger(t))
	if !errors.Is(err, graphrag.ErrDimension) || !strings.Contains(err.Error(), testModel) {
		t.Fatalf("Open with another model over embedded chunks: got %v, want ErrDimension naming %q", err, testModel)
	}
	openOn(t, uri, 4, testModel)
}
