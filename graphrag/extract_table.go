package graphrag

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hopwise/hopwise/graphrag/chunk"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// TableRowExtractor reads the rows of a passage's Markdown tables without a model and leaves the rest of
// the passage to another extractor. A table row is already a set of facts: its first cell names a thing,
// and each other cell says something about it under its column's header ("Delhi", "distance from
// Munich": "5,921 km"). A small local model spends most of its extraction time writing those rows back out
// as JSON, one token at a time, and its lists are capped (16 relations), so a 30-row table loses rows;
// reading them directly keeps every row and costs nothing. A passage that holds only a table (and its
// heading) is not sent to the model at all.
type TableRowExtractor struct {
	prose ChunkExtractor
}

// NewTableRowExtractor reads tables itself and asks prose for everything else.
func NewTableRowExtractor(prose ChunkExtractor) *TableRowExtractor {
	return &TableRowExtractor{prose: prose}
}

// minProseLetters is how many letters a passage must keep, once its tables and first line (the heading the
// chunker puts there) are taken out, for the model to be asked about it.
const minProseLetters = 40

// Extract merges the facts of c's tables with what the prose extractor finds in the rest of c.
func (x *TableRowExtractor) Extract(ctx context.Context, c Chunk) (Extraction, error) {
	tables, prose := splitTables(c.Text)
	g := tableGraph(tables)
	if len(g.Relations) == 0 {
		return x.prose.Extract(ctx, c)
	}
	out := g.resolve(c)
	if letters(dropFirstLine(prose)) < minProseLetters {
		return out, nil
	}
	rest := c
	rest.Text = prose
	y, err := x.prose.Extract(ctx, rest)
	if err != nil {
		return Extraction{}, err
	}
	return mergeExtractions(out, y), nil
}

var markdownTables = goldmark.New(goldmark.WithExtensions(extension.Table))

// table is a Markdown table's header and body cells, as plain text.
type table struct {
	header []string
	rows   [][]string
}

// splitTables parses s as Markdown and returns its tables and s without them.
func splitTables(s string) ([]table, string) {
	source := []byte(s)
	doc := markdownTables.Parser().Parse(text.NewReader(source))
	var tables []table
	var cut [][2]int
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if n.Kind() != east.KindTable {
			continue
		}
		t := readTable(n, source)
		if len(t.header) < 2 || len(t.rows) == 0 {
			continue
		}
		tables = append(tables, t)
		start, end := lineStartAt(s, n.Pos()), len(s)
		if next := n.NextSibling(); next != nil && next.Pos() >= 0 {
			end = lineStartAt(s, next.Pos())
		}
		cut = append(cut, [2]int{start, end})
	}
	if len(cut) == 0 {
		return nil, s
	}
	var b strings.Builder
	at := 0
	for _, c := range cut {
		b.WriteString(s[at:c[0]])
		at = c[1]
	}
	b.WriteString(s[at:])
	return tables, b.String()
}

func lineStartAt(s string, i int) int {
	if i <= 0 {
		return 0
	}
	if i > len(s) {
		i = len(s)
	}
	return strings.LastIndexByte(s[:i], '\n') + 1
}

func readTable(n ast.Node, source []byte) table {
	var t table
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cells = append(cells, chunk.InlineText(cell, source))
		}
		if row.Kind() == east.KindTableHeader {
			t.header = cells
			continue
		}
		t.rows = append(t.rows, cells)
	}
	return t
}

// Cells are read as one of three kinds. A name ("Germany", "Air India") becomes an entity the row's
// subject relates to; a quantity ("5,921 km", "250 EUR", "1999") becomes an entity too, so that a fact
// reads "Delhi distance from Munich 5,921 km" and rows that share an amount meet; anything else (a code
// such as "LH", "yes", "no (EEA state)") is a value written on the row's relations.
type cellKind int

const (
	cellValue cellKind = iota
	cellName
	cellQuantity
)

var (
	quantityCell = regexp.MustCompile(`^[~≈<>≤≥+\-−]?\s*[$€£¥]?\s*\d[\d,.\s]*(?:%|[\p{L}$€£¥/.]{1,12}(?:\s[\p{L}/.]{1,12})?)?$`)
	codeCell     = regexp.MustCompile(`^[\p{Lu}\d]{1,4}$`)
)

func classifyCell(s string) cellKind {
	switch {
	case s == "" || utf8.RuneCountInString(s) > 48:
		return cellValue
	case codeCell.MatchString(s) && strings.ContainsFunc(s, unicode.IsLetter):
		return cellValue
	case quantityCell.MatchString(s):
		return cellQuantity
	}
	r, _ := utf8.DecodeRuneInString(s)
	if unicode.IsUpper(r) {
		return cellName
	}
	return cellValue
}

// tableGraph turns each row into relations from its first cell to its other cells, typed by their
// columns' headers; value cells go on every relation of their row. A one-word header names its column's
// type ("city", "country"); the first column's header types the row's subject.
func tableGraph(tables []table) extractedGraph {
	var g extractedGraph
	for _, t := range tables {
		subjectType := headerType(t.header[0])
		for _, row := range t.rows {
			if len(row) == 0 || row[0] == "" || utf8.RuneCountInString(row[0]) > 48 {
				continue
			}
			subject := row[0]
			var values []extractedValue
			var rels []extractedRelation
			var ents []extractedEntity
			for j := 1; j < len(row) && j < len(t.header); j++ {
				cell, head := row[j], t.header[j]
				if head == "" || cell == "" {
					continue
				}
				switch classifyCell(cell) {
				case cellName:
					ents = append(ents, extractedEntity{Name: cell, Type: headerType(head)})
					rels = append(rels, extractedRelation{Source: subject, Target: cell, Type: head})
				case cellQuantity:
					ents = append(ents, extractedEntity{Name: cell, Type: "quantity"})
					rels = append(rels, extractedRelation{Source: subject, Target: cell, Type: head})
				default:
					values = append(values, extractedValue{Name: head, Value: cell})
				}
			}
			if len(rels) == 0 {
				continue
			}
			for i := range rels {
				rels[i].Values = values
			}
			g.Entities = append(g.Entities, extractedEntity{Name: subject, Type: subjectType})
			g.Entities = append(g.Entities, ents...)
			g.Relations = append(g.Relations, rels...)
		}
	}
	return g
}

// headerType is a one-word header in lower case ("City" -> "city"), else nothing.
func headerType(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if h == "" || strings.ContainsFunc(h, func(r rune) bool { return !unicode.IsLetter(r) }) {
		return ""
	}
	return h
}

func dropFirstLine(s string) string {
	s = strings.TrimLeft(s, "\n")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return ""
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// mergeExtractions folds b's entities and relations into a's (the same chunk), with the graph's merge rules.
func mergeExtractions(a, b Extraction) Extraction {
	return Extraction{
		ChunkID:   a.ChunkID,
		Entities:  foldBy(slices.Concat(a.Entities, b.Entities), func(e Entity) string { return e.Key }, MergeEntity),
		Relations: foldBy(slices.Concat(a.Relations, b.Relations), func(r Relation) string { return r.ID }, MergeRelation),
	}
}

// foldBy merges the items that share a key with merge, in the order their keys first appear.
func foldBy[T any](items []T, key func(T) string, merge func(stored, x T) T) []T {
	var out []T
	var zero T
	at := map[string]int{}
	for _, x := range items {
		if i, ok := at[key(x)]; ok {
			out[i] = merge(out[i], x)
			continue
		}
		at[key(x)] = len(out)
		out = append(out, merge(zero, x))
	}
	return out
}

// TableRowTexts splits Markdown text into its prose, the tables taken out, and one line per table row that
// holds each cell after its column's header ("city Delhi · country India · distance from Munich 5,921 km").
// A table's rows are facts of their own: that two names appear in one table says nothing about them, that
// they appear in one row does (the claim check reads rows this way).
func TableRowTexts(text string) (prose string, rows []string) {
	tables, prose := splitTables(text)
	for _, t := range tables {
		for _, row := range t.rows {
			var b strings.Builder
			for j, cell := range row {
				if cell == "" {
					continue
				}
				if b.Len() > 0 {
					b.WriteString(" · ")
				}
				if j < len(t.header) && t.header[j] != "" {
					b.WriteString(t.header[j])
					b.WriteString(" ")
				}
				b.WriteString(cell)
			}
			if b.Len() > 0 {
				rows = append(rows, b.String())
			}
		}
	}
	return prose, rows
}
