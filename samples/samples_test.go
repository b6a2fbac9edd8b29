package samples

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuestionsNameTheDocuments: every line of the question set parses, the categories hold their counts,
// and every gold document is a sample.
func TestQuestionsNameTheDocuments(t *testing.T) {
	names := map[string]bool{}
	for _, d := range List() {
		names[d.Name] = true
		if !bytes.HasPrefix(d.Body, []byte("# ")) {
			t.Errorf("%s does not start with a title", d.Name)
		}
	}
	if len(names) != 6 {
		t.Fatalf("%d sample documents, want 6", len(names))
	}
	counts := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(Questions()))
	for sc.Scan() {
		var q struct {
			ID, Category, Question string
			GoldDocs               []string `json:"gold_docs"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		counts[q.Category]++
		for _, g := range q.GoldDocs {
			if !names[g] {
				t.Errorf("%s: gold document %s is not a sample", q.ID, g)
			}
		}
	}
	want := map[string]int{"factual": 10, "exact_id": 5, "multi_hop": 5, "out_of_corpus": 5, "unanswerable": 5}
	for c, n := range want {
		if counts[c] != n {
			t.Errorf("%d %s questions, want %d", counts[c], c, n)
		}
	}
}

func TestWriteDir(t *testing.T) {
	dir, err := WriteDir(filepath.Join(t.TempDir(), "new"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "munich-city-distances.md"))
	if err != nil || !strings.Contains(string(b), "| Delhi | India | 5,921 km |") {
		t.Fatalf("written distances file: %v\n%s", err, b)
	}
}
