package web

import (
	"strings"
	"time"
)

// DuplicatesPage is the view of /graph/duplicates: the pairs the resolver was not sure of, with their
// evidence, and the latest edits of the graph, which can be undone.
type DuplicatesPage struct {
	Meta    Meta
	Pairs   []DuplicatePair
	Edits   []EditRow
	Message string
}

// DuplicatePair is one proposal: two entities that may be one.
type DuplicatePair struct {
	ID       string
	A, B     EntityView // A is the one a merge keeps
	Rule     string
	Score    float64
	Evidence []string
}

// EditRow is one edit of the graph in a history.
type EditRow struct {
	ID, What, By, Rule, Status string
	Evidence                   []string
	At                         time.Time
	Undoable                   bool
}

// EntityEditPage is the view of /graph/entities/edit: the forms that fix one entity, its relations with
// a delete button each, and its edit history.
type EntityEditPage struct {
	Meta      Meta
	Entity    EntityView
	Relations []EdgeView
	Edits     []EditRow
	Message   string
}

// docNames lists documents by name.
func docNames(docs []DocLink) string {
	names := make([]string, len(docs))
	for i, d := range docs {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}
