package resolve_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// The MuSiQue bench's two Madonna passages: a biography titled as a work called Madonna, and the singer's.
var (
	madonnaBook = passage{"madonna-book.md", "Madonna (book)",
		"Madonna is a biography by Andrew Morton, chronicling the life of American recording artist Madonna.",
		[]string{"Madonna", "Andrew Morton"}, []graphrag.Triple{{Subject: "Madonna", Predicate: "written by", Object: "Andrew Morton"}}}
	madonnaSinger = passage{"madonna-entertainer.md", "Madonna (entertainer)",
		"The most remarkable creation of MTV is Madonna.",
		[]string{"Madonna", "MTV"}, []graphrag.Triple{{Subject: "MTV", Predicate: "created", Object: "Madonna"}}}
)

// TestWorkNamesakeAtIngest: a name whose passage's title qualifies it ("Madonna (entertainer)") joins the
// stored entity of that name found in a passage about a work called so ("Madonna (book)"), in either order,
// since that passage writes the plain name for the work's namesake too; it stays apart when the kinds say a
// person and a book, and when its title is a place's with its region.
func TestWorkNamesakeAtIngest(t *testing.T) {
	ctx := context.Background()
	rec := recorded{madonnaBook.file: madonnaBook, madonnaSinger.file: madonnaSinger}
	for _, tc := range []struct {
		name  string
		order []passage
		fresh bool // the second passage resolved by a resolver that did not resolve the first: read from the store
	}{
		{"the book first", []passage{madonnaBook, madonnaSinger}, false},
		{"the singer first", []passage{madonnaSinger, madonnaBook}, false},
		{"the book stored before the resolver started", []passage{madonnaBook, madonnaSinger}, true},
	} {
		st, _ := ingestPassages(t, tc.order[:1])
		if tc.fresh {
			ingestInto(t, st, tc.order[1:], rec)
		} else {
			st, _ = ingestPassages(t, tc.order)
		}
		m, ok := entity(t, st, "Madonna")
		if !ok || len(m.DocIDs) != 2 {
			t.Errorf("%s: Madonna = %+v, %v; want one entity in both passages", tc.name, m, ok)
		}
		if e, ok := entity(t, st, "Madonna (entertainer)"); ok {
			t.Errorf("%s: the singer kept apart as %+v", tc.name, e)
		}
		apart, err := st.Edits(ctx, graphrag.EditQuery{Kinds: []graphrag.EditKind{graphrag.EditDistinct}})
		if err != nil || len(apart) != 0 {
			t.Errorf("%s: pairs kept apart %+v, %v; want none", tc.name, apart, err)
		}
	}

	// an extraction that types the book's Madonna as a book says it is the work, not its namesake
	typed := kinds{rec, map[string]string{madonnaBook.file: "book", madonnaSinger.file: "person"}}
	st, _ := ingestWith(t, []passage{madonnaBook, madonnaSinger}, typed)
	if e, ok := entity(t, st, "Madonna (entertainer)"); !ok || !slices.Contains(e.Aliases, "Madonna") {
		t.Errorf("typed: the singer = %+v, %v; want it kept apart from the book, also called Madonna", e, ok)
	}

	// one of the places called Midway is not what a film called Midway is named after
	film := passage{"midway-film.md", "Midway (film)", "Midway is a 1976 film about the Battle of Midway.",
		[]string{"Midway", "Battle of Midway"}, []graphrag.Triple{{Subject: "Midway", Predicate: "is about", Object: "Battle of Midway"}}}
	st, _ = ingestPassages(t, []passage{film, passages[0]})
	if _, ok := entity(t, st, "Midway, Floyd County, Iowa"); !ok {
		t.Errorf("the Iowa Midway joined the film's Midway; want it kept apart")
	}
}

// kinds types the Madonna of each passage rec extracts by its document: the book or the person.
type kinds struct {
	rec   recorded
	kinds map[string]string
}

func (k kinds) Extract(ctx context.Context, c graphrag.Chunk) (graphrag.Extraction, error) {
	x, err := k.rec.Extract(ctx, c)
	for i := range x.Entities {
		if x.Entities[i].Name == "Madonna" {
			x.Entities[i].Type = k.kinds[c.DocName]
		}
	}
	return x, err
}
