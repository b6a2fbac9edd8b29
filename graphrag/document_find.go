package graphrag

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrAmbiguous: a name given for a document matches more than one document.
var ErrAmbiguous = errors.New("ambiguous document name")

// AmbiguousError is returned by FindDocument when a name matches several documents; it lists them so the
// caller can ask for an ID. errors.Is(err, ErrAmbiguous) holds.
type AmbiguousError struct {
	Name    string
	Matches []Document
}

func (e *AmbiguousError) Error() string {
	ids := make([]string, len(e.Matches))
	for i, d := range e.Matches {
		ids[i] = d.ID
	}
	return fmt.Sprintf("graphrag: %d documents are named %q (%s): give one of their IDs",
		len(e.Matches), e.Name, strings.Join(ids, ", "))
}

// Unwrap lets errors.Is(err, ErrAmbiguous) match.
func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// DocumentReader is what FindDocument reads: one document by ID and the list of all.
type DocumentReader interface {
	Document(ctx context.Context, id string) (Document, error)
	Documents(ctx context.Context) ([]Document, error)
}

// FindDocument returns the document whose ID is idOrName, else the one whose file name is idOrName (exactly,
// else ignoring case). Several documents may carry one name (different bytes uploaded under the same file
// name): then it returns an *AmbiguousError listing them. No match is ErrNotFound.
func FindDocument(ctx context.Context, store DocumentReader, idOrName string) (Document, error) {
	idOrName = strings.TrimSpace(idOrName)
	if idOrName == "" {
		return Document{}, fmt.Errorf("graphrag: find document: no ID or name given: %w", ErrNotFound)
	}
	doc, err := store.Document(ctx, idOrName)
	if err == nil {
		return doc, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return Document{}, fmt.Errorf("graphrag: find document %q: %w", idOrName, err)
	}
	docs, err := store.Documents(ctx)
	if err != nil {
		return Document{}, fmt.Errorf("graphrag: find document %q: %w", idOrName, err)
	}
	matches := documentsNamed(docs, idOrName, func(a, b string) bool { return a == b })
	if len(matches) == 0 {
		matches = documentsNamed(docs, idOrName, strings.EqualFold)
	}
	switch len(matches) {
	case 0:
		return Document{}, fmt.Errorf("graphrag: no document with ID or name %q: %w", idOrName, ErrNotFound)
	case 1:
		return matches[0], nil
	default:
		return Document{}, &AmbiguousError{Name: idOrName, Matches: matches}
	}
}

func documentsNamed(docs []Document, name string, same func(a, b string) bool) []Document {
	var out []Document
	for _, d := range docs {
		if same(d.Name, name) {
			out = append(out, d)
		}
	}
	return out
}
