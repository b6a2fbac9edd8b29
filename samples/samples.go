// Package samples holds Hopwise's own sample documents and a question set over them, embedded in the binary:
// new users try the product on them ("Try it with sample documents", `hopwise ingest --samples`) and every
// test that needs a small corpus reads them, so the repository needs nothing beside it.
//
// The six documents describe a fictional company, Nexa AI of Munich, its handbook, EU and US flight
// compensation rules, an airline registry, distances from Munich and travel tips. Their facts join across
// documents: a Lufthansa flight from Delhi to Munich is covered by EU261 (an EU carrier landing in the EU),
// the distance table gives 5,921 km, and flights over 3,500 km are owed 600 EUR.
package samples

import (
	"embed"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
)

//go:embed docs/*.md questions.jsonl
var files embed.FS

// Docs is the folder of sample documents (Markdown files at its top level).
func Docs() fs.FS {
	sub, err := fs.Sub(files, "docs")
	if err != nil {
		panic(err) // the embedded folder exists: go:embed would not compile otherwise
	}
	return sub
}

// Doc is one sample document.
type Doc struct {
	Name string // file name, such as "munich-city-distances.md"
	Body []byte
}

// List returns the sample documents sorted by name.
func List() []Doc {
	entries, err := fs.ReadDir(files, "docs")
	if err != nil {
		panic(err)
	}
	out := make([]Doc, 0, len(entries))
	for _, e := range entries {
		b, err := files.ReadFile(path.Join("docs", e.Name()))
		if err != nil {
			panic(err)
		}
		out = append(out, Doc{Name: e.Name(), Body: b})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Questions is the question set over the samples, one JSON object a line in eval's format (id, category,
// question, answer_must_contain, gold_docs, answer_must_not_contain): 10 factual, 5 exact_id, 5 multi_hop,
// 5 out_of_corpus and 5 unanswerable questions.
func Questions() []byte {
	b, err := files.ReadFile("questions.jsonl")
	if err != nil {
		panic(err)
	}
	return b
}

// WriteDir writes the sample documents into dir (created when missing) and returns dir, for code that reads
// a folder of files.
func WriteDir(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, d := range List() {
		if err := os.WriteFile(filepath.Join(dir, d.Name), d.Body, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}
