package handlers

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/labstack/echo/v4"
)

// Bounds of the edit views.
const (
	duplicatesShown = 100
	editsShown      = 50
)

// editJSON is an edit as the API shows it (without the patches it made).
type editJSON struct {
	ID       string    `json:"id"`
	Kind     string    `json:"kind"`
	Status   string    `json:"status"`
	Entities []string  `json:"entities"`
	Names    []string  `json:"names,omitempty"`
	Name     string    `json:"name,omitempty"`
	Type     string    `json:"type,omitempty"`
	Relation string    `json:"relation,omitempty"`
	Passages []string  `json:"passages,omitempty"`
	By       string    `json:"by"`
	Rule     string    `json:"rule,omitempty"`
	Score    float64   `json:"score,omitempty"`
	Evidence []string  `json:"evidence,omitempty"`
	Target   string    `json:"target,omitempty"`
	At       time.Time `json:"at"`
}

func toEditJSON(e graphrag.Edit) editJSON {
	return editJSON{ID: e.ID, Kind: string(e.Kind), Status: string(e.Status), Entities: e.Keys, Names: e.Names, Name: e.Name,
		Type: e.Type, Relation: e.Relation, Passages: e.Chunks, By: e.By, Rule: e.Rule, Score: e.Score, Evidence: e.Evidence,
		Target: e.Target, At: e.CreatedAt}
}

func toEditsJSON(es []graphrag.Edit) []editJSON {
	out := make([]editJSON, len(es))
	for i, e := range es {
		out[i] = toEditJSON(e)
	}
	return out
}

// editRequestJSON is an edit asked for through the API.
type editRequestJSON struct {
	Kind     string   `json:"kind" jsonschema:"merge, split, rename, retype, alias, delete_entity, delete_relation or distinct"`
	Entity   string   `json:"entity" jsonschema:"the entity edited (key or name); a merge keeps it"`
	Other    string   `json:"other,omitempty" jsonschema:"merge and distinct: the other entity"`
	Name     string   `json:"name,omitempty" jsonschema:"rename, alias, split: the new name"`
	Type     string   `json:"type,omitempty" jsonschema:"retype, split: the kind"`
	Relation string   `json:"relation,omitempty" jsonschema:"delete_relation: the relation's id"`
	Passages []string `json:"passages,omitempty" jsonschema:"split: the passages (chunk ids) to move"`
	Proposal string   `json:"proposal,omitempty" jsonschema:"merge, distinct: the proposal this decides"`
}

func (s *server) editor() graphrag.Editor { return graphrag.Editor{Store: s.Store} }

// apiDuplicates lists the possible duplicates waiting for review, with their evidence.
func (s *server) apiDuplicates(c echo.Context) error {
	ps, err := s.Store.Edits(c.Request().Context(), graphrag.EditQuery{Statuses: []graphrag.EditStatus{graphrag.EditProposed},
		Limit: duplicatesShown})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, duplicatesJSON{Duplicates: toEditsJSON(ps)})
}

// apiEdits lists the edits of the graph, newest first: of one entity (?entity=) or all.
func (s *server) apiEdits(c echo.Context) error {
	q := graphrag.EditQuery{Limit: editsShown, Keys: queryKeys(c)}
	es, err := s.Store.Edits(c.Request().Context(), q)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, editsJSON{Edits: toEditsJSON(es)})
}

// apiEditCreate makes an edit (editRequestJSON).
func (s *server) apiEditCreate(c echo.Context) error {
	var in editRequestJSON
	if err := c.Bind(&in); err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "Send the edit as JSON: {\"kind\": ..., \"entity\": ...}.")
	}
	e, err := s.editor().Apply(c.Request().Context(), graphrag.EditRequest{
		Kind: graphrag.EditKind(in.Kind), Key: graphrag.NormalizeKey(in.Entity), Other: graphrag.NormalizeKey(in.Other),
		Name: in.Name, Type: in.Type, Relation: in.Relation, Chunks: in.Passages, Proposal: in.Proposal,
	})
	if err != nil {
		return editError(err)
	}
	return c.JSON(http.StatusCreated, toEditJSON(e))
}

// apiEditUndo undoes an edit.
func (s *server) apiEditUndo(c echo.Context) error {
	e, err := s.editor().Undo(c.Request().Context(), c.Param("id"))
	if err != nil {
		return editError(err)
	}
	return c.JSON(http.StatusCreated, toEditJSON(e))
}

// editError turns an edit refused into a 400 that says why.
func editError(err error) error {
	if errors.Is(err, graphrag.ErrEdit) {
		msg := strings.TrimPrefix(err.Error(), graphrag.ErrEdit.Error()+": ")
		return echo.NewHTTPError(http.StatusBadRequest, strings.ToUpper(msg[:1])+msg[1:]+".")
	}
	return err
}

// duplicatesJSON and editsJSON are the lists the API answers with.
type duplicatesJSON struct {
	Duplicates []editJSON `json:"duplicates"`
}

type editsJSON struct {
	Edits []editJSON `json:"edits"`
}
