package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// Bench is a multi-hop retrieval benchmark in the layout of shared/bench: the passages the questions came
// with (corpus.jsonl), the questions with their gold passages and gold sub-questions (questions.jsonl), and,
// where one was made, a recorded entity and triple extraction of every passage (openie.jsonl).
type Bench struct {
	Name      string
	Passages  []BenchPassage
	Questions []BenchQuestion
	// Extraction maps a passage's file name to its recorded entities and triples; nil without openie.jsonl.
	Extraction map[string]BenchExtraction
}

// BenchPassage is one passage, ingested as the Markdown document File: "# Title", a blank line, Text.
type BenchPassage struct {
	Idx   int    `json:"idx"`
	Title string `json:"title"`
	Text  string `json:"text"`
	File  string `json:"file"`
}

// Markdown is the document a passage is ingested as.
func (p BenchPassage) Markdown() string { return "# " + p.Title + "\n\n" + p.Text + "\n" }

// BenchQuestion is a question of the benchmark; Category is its hop type (2hop, 3hop1, ... or bridge,
// comparison).
type BenchQuestion struct {
	Question
	Answer        string     `json:"answer"`
	Decomposition []SubQuery `json:"decomposition"`
	// ParagraphFiles are the passages the question came with: its gold passages and distractors.
	ParagraphFiles []string `json:"paragraph_files,omitempty"`
}

// SubQuery is one gold sub-question of a multi-hop question; "#n" in it stands for the answer of the n-th.
type SubQuery struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	File     string `json:"file"`
}

// GoldQueries are the gold sub-questions with each "#n" replaced by the answer of the n-th: the queries a
// perfect decomposition would search for.
func (q BenchQuestion) GoldQueries() []string {
	out := make([]string, len(q.Decomposition))
	for i, s := range q.Decomposition {
		text := s.Question
		for j := len(q.Decomposition); j >= 1; j-- { // "#12" before "#1"
			text = strings.ReplaceAll(text, fmt.Sprintf("#%d", j), q.Decomposition[j-1].Answer)
		}
		out[i] = strings.Join(strings.Fields(text), " ")
	}
	return out
}

// BenchExtraction is the recorded extraction of one passage.
type BenchExtraction struct {
	Entities []string
	Triples  []graphrag.Triple
}

// LoadBench reads a benchmark directory.
func LoadBench(dir string) (*Bench, error) {
	b := &Bench{Name: filepath.Base(filepath.Clean(dir))}
	if err := readJSONLines(filepath.Join(dir, "corpus.jsonl"), func(line []byte) error {
		var p BenchPassage
		if err := json.Unmarshal(line, &p); err != nil {
			return err
		}
		if p.File == "" {
			return errors.New("a passage without file")
		}
		b.Passages = append(b.Passages, p)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := readJSONLines(filepath.Join(dir, "questions.jsonl"), func(line []byte) error {
		var q BenchQuestion
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		if q.ID == "" || q.Question.Question == "" || len(q.GoldDocs) == 0 {
			return errors.New("a question needs id, question and gold_docs")
		}
		b.Questions = append(b.Questions, q)
		return nil
	}); err != nil {
		return nil, err
	}
	openie := filepath.Join(dir, "openie.jsonl")
	if _, err := os.Stat(openie); err == nil {
		if b.Extraction, err = readOpenIE(openie, b.Passages); err != nil {
			return nil, err
		}
	}
	if len(b.Passages) == 0 || len(b.Questions) == 0 {
		return nil, fmt.Errorf("eval: bench %s: no passages or no questions", dir)
	}
	return b, nil
}

// readOpenIE reads recorded extractions by passage idx and keys them by the passage's file. Triples of
// other than three parts are kept as subject, the middle joined as predicate, and the last part as object.
func readOpenIE(path string, passages []BenchPassage) (map[string]BenchExtraction, error) {
	fileOf := make(map[int]string, len(passages))
	for _, p := range passages {
		fileOf[p.Idx] = p.File
	}
	out := map[string]BenchExtraction{}
	err := readJSONLines(path, func(line []byte) error {
		var rec struct {
			Idx      int        `json:"idx"`
			Entities []string   `json:"entities"`
			Triples  [][]string `json:"triples"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return err
		}
		file, ok := fileOf[rec.Idx]
		if !ok {
			return fmt.Errorf("extraction of passage %d, which the corpus does not have", rec.Idx)
		}
		x := BenchExtraction{Entities: rec.Entities}
		for _, t := range rec.Triples {
			if len(t) < 2 {
				continue
			}
			tr := graphrag.Triple{Subject: t[0], Object: t[len(t)-1]}
			if len(t) > 2 {
				tr.Predicate = strings.Join(t[1:len(t)-1], " ")
			}
			x.Triples = append(x.Triples, tr)
		}
		out[file] = x
		return nil
	})
	return out, err
}

func readJSONLines(path string, each func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		if err := each(sc.Bytes()); err != nil {
			return fmt.Errorf("eval: %s line %d: %w", filepath.Base(path), line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("eval: read %s: %w", path, err)
	}
	return nil
}

// ReplayExtractor is an eval-only graphrag.ChunkExtractor that answers with a benchmark's recorded
// extraction of the passage a chunk belongs to, so the real ingestion, storage and retrieval run on a real
// model's graph without a model. A chunk of a passage without a record gets an empty extraction.
type ReplayExtractor struct {
	byFile map[string]BenchExtraction
}

// NewReplayExtractor replays b's recorded extraction.
func NewReplayExtractor(b *Bench) *ReplayExtractor { return &ReplayExtractor{byFile: b.Extraction} }

// Extract returns the recorded entities and triples of c's passage, resolved with c as provenance.
func (x *ReplayExtractor) Extract(_ context.Context, c graphrag.Chunk) (graphrag.Extraction, error) {
	rec := x.byFile[filepath.Base(c.DocName)]
	return graphrag.TriplesExtraction(c, rec.Entities, rec.Triples), nil
}

// Slice is the benchmark cut to its first n questions and the passages they came with (ParagraphFiles,
// gold passages included), with their recorded extraction: small enough for a test, not chosen by result.
func (b *Bench) Slice(n int) *Bench {
	out := &Bench{Name: b.Name + "-slice", Questions: b.Questions[:min(n, len(b.Questions))]}
	want := map[string]bool{}
	for _, q := range out.Questions {
		for _, f := range append(slices.Clone(q.ParagraphFiles), q.GoldDocs...) {
			want[f] = true
		}
	}
	for _, p := range b.Passages {
		if want[p.File] {
			out.Passages = append(out.Passages, p)
		}
	}
	if b.Extraction != nil {
		out.Extraction = map[string]BenchExtraction{}
		for _, p := range out.Passages {
			if x, ok := b.Extraction[p.File]; ok {
				out.Extraction[p.File] = x
			}
		}
	}
	return out
}

// Write saves the benchmark in its folder layout (corpus.jsonl, questions.jsonl, openie.jsonl).
func (b *Bench) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("eval: write bench: %w", err)
	}
	write := func(name string, n int, line func(i int) any) error {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for i := range n {
			if err := enc.Encode(line(i)); err != nil {
				return err
			}
		}
		return os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644)
	}
	errs := []error{
		write("corpus.jsonl", len(b.Passages), func(i int) any { return b.Passages[i] }),
		write("questions.jsonl", len(b.Questions), func(i int) any { return b.Questions[i] }),
	}
	if b.Extraction != nil {
		errs = append(errs, write("openie.jsonl", len(b.Passages), func(i int) any {
			p := b.Passages[i]
			x := b.Extraction[p.File]
			triples := make([][]string, len(x.Triples))
			for j, t := range x.Triples {
				triples[j] = []string{t.Subject, t.Predicate, t.Object}
			}
			return map[string]any{"idx": p.Idx, "entities": x.Entities, "triples": triples}
		}))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("eval: write bench: %w", err)
	}
	return nil
}

// IngestBench runs in (until it returns) to ingest every passage of b and waits until each is done; it
// fails if one is not.
func IngestBench(ctx context.Context, store graphrag.Store, in *graphrag.Ingester, b *Bench) error {
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- in.Run(runCtx) }()
	defer func() { stop(); <-done }()
	pending := map[string]string{}
	for _, p := range b.Passages {
		doc, _, err := in.Submit(ctx, p.File, strings.NewReader(p.Markdown()))
		if err != nil {
			return fmt.Errorf("eval: ingest %s: %w", p.File, err)
		}
		pending[doc.ID] = p.File
	}
	return graphrag.WaitDone(ctx, store, pending, 200*time.Millisecond)
}
