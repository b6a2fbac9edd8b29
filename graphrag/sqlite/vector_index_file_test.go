package sqlite

import (
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// searchIDs is SearchVector's chunk IDs, in order.
func searchIDs(t *testing.T, s *Store, q []float32, k int) []string {
	t.Helper()
	res, err := s.SearchVector(t.Context(), q, k)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range res {
		ids = append(ids, c.ID)
	}
	return ids
}

// openStore opens the store at path without closing it at the end of the test.
func openStore(t *testing.T, path string, dim int) *Store {
	t.Helper()
	s, err := Open(t.Context(), path, Options{EmbedDim: dim, EmbedModel: "test-embed"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

// crash leaves a store as a killed process does: its connections closed, nothing written on the way out.
func crash(t *testing.T, s *Store) {
	t.Helper()
	s.writer.Close()
	s.reader.Close()
}

// fillRandom stores a document of n chunks with seeded random vectors.
func fillRandom(t *testing.T, s *Store, name string, n int, seed uint64) map[string][]float32 {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	return putVectors(t, s, name, n, func(int) []float32 { return randomVector(r, s.embedDim()) })
}

func TestVectorIndexFileReopen(t *testing.T) {
	const dim = 24
	path := filepath.Join(t.TempDir(), "hopwise.db")
	s := openStore(t, path, dim)
	if !strings.HasPrefix(s.vectors.origin, "rebuilt: no index file") {
		t.Errorf("a new store's index origin = %q", s.vectors.origin)
	}
	vecs := fillRandom(t, s, "a.txt", 300, 1)
	q := randomVector(rand.New(rand.NewPCG(9, 9)), dim)
	before := searchIDs(t, s, q, 10)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(vectorIndexPath(path)); err != nil {
		t.Fatalf("no index file after Close: %v", err)
	}
	s = openTemp(t, path, dim)
	if s.vectors.origin != "file" || s.vectors.len() != len(vecs) {
		t.Errorf("reopened: origin %q, %d vectors; want file, %d", s.vectors.origin, s.vectors.len(), len(vecs))
	}
	if after := searchIDs(t, s, q, 10); !slices.Equal(after, before) {
		t.Errorf("search after reopening = %v, before %v", after, before)
	}
	if want := bruteForce(vecs, q, 10, func(a, b string) bool { return a < b }); !slices.Equal(before, want) {
		t.Errorf("search = %v, want %v", before, want)
	}
}

// TestVectorIndexFileStale covers every way the file falls behind the store file: a crash after a write,
// a delete and a replacement of a document, damage, and another store's file at the same path. Each open
// rebuilds and finds what the store file holds.
func TestVectorIndexFileStale(t *testing.T) {
	const dim = 16
	dir := t.TempDir()
	path := filepath.Join(dir, "hopwise.db")
	s := openStore(t, path, dim)
	fillRandom(t, s, "a.txt", 50, 1)
	s.Close()

	reopen := func(t *testing.T, wantOrigin string) *Store {
		t.Helper()
		s := openStore(t, path, dim)
		if !strings.Contains(s.vectors.origin, wantOrigin) {
			t.Errorf("origin = %q, want it to say %q", s.vectors.origin, wantOrigin)
		}
		return s
	}
	t.Run("crash after a write", func(t *testing.T) {
		s := reopen(t, "file")
		b := fillRandom(t, s, "b.txt", 20, 2)
		crash(t, s)
		s = reopen(t, "stale")
		defer s.Close()
		for id, v := range b {
			if got := searchIDs(t, s, v, 1); !slices.Equal(got, []string{id}) {
				t.Fatalf("after the crash, %s's own vector finds %v", id, got)
			}
		}
		if s.vectors.len() != 70 {
			t.Errorf("%d vectors, want 70", s.vectors.len())
		}
	})
	t.Run("crash after a delete", func(t *testing.T) {
		s := reopen(t, "file")
		ids := searchIDs(t, s, randomVector(rand.New(rand.NewPCG(3, 3)), dim), 70)
		docID := strings.TrimSuffix(ids[0], ids[0][strings.LastIndex(ids[0], "-"):])
		if err := s.DeleteDocument(t.Context(), docID); err != nil {
			t.Fatal(err)
		}
		crash(t, s)
		s = reopen(t, "stale")
		defer s.Close()
		for _, id := range searchIDs(t, s, randomVector(rand.New(rand.NewPCG(3, 3)), dim), 100) {
			if strings.HasPrefix(id, docID) {
				t.Fatalf("deleted document's chunk %s found after the crash", id)
			}
		}
	})
	t.Run("delete, close, reopen", func(t *testing.T) {
		s := reopen(t, "file")
		n := s.vectors.len()
		c := fillRandom(t, s, "c.txt", 10, 4)
		var some string
		for id := range c {
			some = id
		}
		if err := s.DeleteDocument(t.Context(), strings.TrimSuffix(some, some[strings.LastIndex(some, "-"):])); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s = reopen(t, "file")
		defer s.Close()
		if s.vectors.len() != n {
			t.Errorf("%d vectors after adding and deleting a document, want %d", s.vectors.len(), n)
		}
		if got := searchIDs(t, s, c[some], 1); len(got) == 1 && got[0] == some {
			t.Errorf("deleted chunk %s found after reopening", some)
		}
	})
	t.Run("damaged", func(t *testing.T) {
		b, err := os.ReadFile(vectorIndexPath(path))
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x40
		if err := os.WriteFile(vectorIndexPath(path), b, 0o644); err != nil {
			t.Fatal(err)
		}
		s := reopen(t, "checksum")
		s.Close()
		if err := os.WriteFile(vectorIndexPath(path), b[:len(b)-7], 0o644); err != nil {
			t.Fatal(err)
		}
		s = reopen(t, "bytes")
		s.Close()
	})
	t.Run("another store's file", func(t *testing.T) {
		other := filepath.Join(dir, "other.db")
		o := openStore(t, other, dim)
		fillRandom(t, o, "a.txt", 50, 1) // the same vectors, and the same change count
		o.Close()
		if err := os.Rename(vectorIndexPath(other), vectorIndexPath(path)); err != nil {
			t.Fatal(err)
		}
		s := reopen(t, "another store file")
		s.Close()
	})
}

// TestVectorIndexFileTwoStores: a Store that did not see another's write must not leave a file claiming
// to be current, and must not remove the other's current one.
func TestVectorIndexFileTwoStores(t *testing.T) {
	const dim = 8
	path := filepath.Join(t.TempDir(), "hopwise.db")
	a := openStore(t, path, dim)
	b := openStore(t, path, dim)
	added := fillRandom(t, b, "b.txt", 5, 5)
	a.Close() // a never saw b's document: it writes no file
	if _, err := os.Stat(vectorIndexPath(path)); !os.IsNotExist(err) {
		t.Errorf("the store that missed a write left an index file (%v)", err)
	}
	a = openStore(t, path, dim) // rebuilt: sees b's document
	b.Close()                   // writes the file
	a.Close()                   // the file b wrote is current: a leaves it
	s := openTemp(t, path, dim)
	if s.vectors.origin != "file" || s.vectors.len() != len(added) {
		t.Errorf("origin %q with %d vectors, want file with %d", s.vectors.origin, s.vectors.len(), len(added))
	}
}

// TestVectorIndexFileAfterReembed: the file follows a re-embedding to another dimension.
func TestVectorIndexFileAfterReembed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hopwise.db")
	s := openStore(t, path, 4)
	ids := fill(t, s, "a.txt")
	if err := s.BeginReembed(t.Context(), graphrag.EmbeddingSpace{Model: "new", Dim: 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.StageEmbeddings(t.Context(), map[string][]float32{ids[0]: {1, 0}, ids[1]: {0, 1}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitReembed(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err := Open(t.Context(), path, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.vectors.origin != "file" {
		t.Errorf("origin after a re-embedding = %q, want file", s.vectors.origin)
	}
	if got := searchIDs(t, s, []float32{0, 1}, 1); !slices.Equal(got, ids[1:]) {
		t.Errorf("search = %v, want %v", got, ids[1:])
	}
}

// TestVectorIndexFileMapped opens an index file whose codes and blocks are mapped (from any size here),
// changes the index in place and beyond the file's vectors (chunks added and deleted), and reopens it:
// each search finds the exact nearest, before and after Close, and a search after Close finds nothing.
func TestVectorIndexFileMapped(t *testing.T) {
	defer func(old int) { mapFrom = old }(mapFrom)
	mapFrom = 0
	const dim = 64
	path := filepath.Join(t.TempDir(), "hopwise.db")
	s := openStore(t, path, dim)
	vecs := fillRandom(t, s, "a.txt", 300, 1)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 9))
	check := func(s *Store, when string) {
		t.Helper()
		for range 5 {
			q := randomVector(r, dim)
			want := bruteForce(vecs, q, 10, func(a, b string) bool { return a < b })
			if got := searchIDs(t, s, q, 10); !slices.Equal(got, want) {
				t.Fatalf("%s: search = %v, want %v", when, got, want)
			}
		}
	}
	s = openStore(t, path, dim)
	if s.vectors.origin != "file" || mapsFiles && len(s.vectorMaps) == 0 {
		t.Fatalf("reopened: origin %q, %d maps", s.vectors.origin, len(s.vectorMaps))
	}
	check(s, "mapped")
	// Added past the file's vectors (the reserve after the map), then a document deleted (slots moved
	// within the mapped pages).
	maps.Copy(vecs, fillRandom(t, s, "b.txt", 200, 2))
	check(s, "after adding")
	docA := graphrag.DocumentID(graphrag.ContentHash([]byte("content of a.txt")))
	if err := s.DeleteDocument(t.Context(), docA); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		delete(vecs, graphrag.ChunkID(docA, i))
	}
	check(s, "after deleting")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if res, err := s.SearchVector(t.Context(), randomVector(r, dim), 10); len(res) != 0 {
		t.Fatalf("search after Close = %d results, %v; want none", len(res), err)
	}
	s = openTemp(t, path, dim)
	if s.vectors.origin != "file" || s.vectors.len() != len(vecs) {
		t.Fatalf("reopened again: origin %q, %d vectors; want file, %d", s.vectors.origin, s.vectors.len(), len(vecs))
	}
	check(s, "mapped again")
}
