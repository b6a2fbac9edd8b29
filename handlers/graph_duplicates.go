package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// duplicatesPage lists the possible duplicates with their evidence, and the latest edits of the graph.
func (s *server) duplicatesPage(c echo.Context) error {
	ctx := c.Request().Context()
	p := web.DuplicatesPage{Meta: meta(c, "Possible duplicates", web.NavGraph), Message: c.QueryParam("done")}
	ps, err := s.Store.Edits(ctx, graphrag.EditQuery{Statuses: []graphrag.EditStatus{graphrag.EditProposed}, Limit: duplicatesShown})
	if err != nil {
		return err
	}
	var keys []string
	for _, e := range ps {
		keys = append(keys, e.Keys...)
	}
	views, err := s.entityViews(ctx, keys)
	if err != nil {
		return err
	}
	for _, e := range ps {
		a, okA := views[e.Keys[0]]
		b, okB := views[e.Keys[1]]
		if !okA || !okB { // one of them is gone since (deleted, or merged by hand)
			continue
		}
		p.Pairs = append(p.Pairs, web.DuplicatePair{ID: e.ID, A: a, B: b, Rule: e.Rule, Score: e.Score, Evidence: e.Evidence})
	}
	edits, err := s.Store.Edits(ctx, graphrag.EditQuery{Kinds: shownKinds, Limit: editsShown})
	if err != nil {
		return err
	}
	p.Edits = editRows(edits)
	return render(c, http.StatusOK, web.DuplicatesView(p))
}

// shownKinds are the edits a history lists: what changed the graph or a decision on it.
var shownKinds = []graphrag.EditKind{graphrag.EditMerge, graphrag.EditSplit, graphrag.EditRename, graphrag.EditRetype,
	graphrag.EditAlias, graphrag.EditDeleteEntity, graphrag.EditDeleteRelation, graphrag.EditDistinct, graphrag.EditUndo}

// entityViews reads entities with the documents they were found in.
func (s *server) entityViews(ctx context.Context, keys []string) (map[string]web.EntityView, error) {
	es, err := s.Store.Entities(ctx, keys)
	if err != nil {
		return nil, err
	}
	docs := map[string]string{}
	out := map[string]web.EntityView{}
	for _, e := range es {
		v := entityView(e)
		for _, id := range e.DocIDs[:min(len(e.DocIDs), 3)] {
			if _, ok := docs[id]; !ok {
				d, err := s.Store.Document(ctx, id)
				if err != nil {
					return nil, err
				}
				docs[id] = d.Name
			}
			v.Docs = append(v.Docs, web.DocLink{ID: id, Name: docs[id]})
		}
		out[e.Key] = v
	}
	return out, nil
}

// editRows describes edits for a history, each undoable while in force.
func editRows(es []graphrag.Edit) []web.EditRow {
	rows := make([]web.EditRow, 0, len(es))
	for _, e := range es {
		if e.Status == graphrag.EditProposed {
			continue
		}
		rows = append(rows, web.EditRow{ID: e.ID, What: editSummary(e), By: e.By, Rule: e.Rule, Status: string(e.Status),
			Evidence: e.Evidence, At: e.CreatedAt,
			Undoable: e.Status == graphrag.EditApplied && e.Kind != graphrag.EditUndo && e.Kind != graphrag.EditDistinct})
	}
	return rows
}

// editSummary says in words what an edit did.
func editSummary(e graphrag.Edit) string {
	name := func(i int) string {
		if i < len(e.Names) && e.Names[i] != "" {
			return "“" + e.Names[i] + "”"
		}
		if i < len(e.Keys) {
			return "“" + e.Keys[i] + "”"
		}
		return ""
	}
	switch e.Kind {
	case graphrag.EditMerge:
		into, merged := "“"+e.Keys[0]+"”", name(0)
		if len(e.Names) > 1 {
			into, merged = name(0), name(1)
		}
		if e.Status == graphrag.EditAccepted || e.Status == graphrag.EditRejected {
			return fmt.Sprintf("Proposed: merge %s into %s", merged, into)
		}
		return fmt.Sprintf("Merged %s into %s", merged, into)
	case graphrag.EditSplit:
		return fmt.Sprintf("Split “%s” off “%s” (%d passages)", e.Name, e.Keys[0], len(e.Chunks))
	case graphrag.EditRename:
		return fmt.Sprintf("Renamed “%s” to “%s”", e.Keys[0], e.Name)
	case graphrag.EditRetype:
		return fmt.Sprintf("Made “%s” a %s", e.Keys[0], e.Type)
	case graphrag.EditAlias:
		return fmt.Sprintf("Also called “%s” “%s”", e.Keys[0], e.Name)
	case graphrag.EditDeleteEntity:
		return fmt.Sprintf("Deleted “%s”", e.Keys[0])
	case graphrag.EditDeleteRelation:
		return fmt.Sprintf("Deleted a fact of “%s”", strings.Join(e.Keys, "” and “"))
	case graphrag.EditDistinct:
		return fmt.Sprintf("“%s” and “%s” are not the same", e.Keys[0], e.Keys[min(1, len(e.Keys)-1)])
	case graphrag.EditUndo:
		return "Undid a change of " + name(0)
	}
	return string(e.Kind)
}

// duplicateMerge merges a proposed pair into its first entity.
func (s *server) duplicateMerge(c echo.Context) error {
	return s.decide(c, graphrag.EditMerge, "Merged.")
}

// duplicateDistinct records that a proposed pair is not one thing.
func (s *server) duplicateDistinct(c echo.Context) error {
	return s.decide(c, graphrag.EditDistinct, "Kept apart: they will not be proposed again.")
}

func (s *server) decide(c echo.Context, kind graphrag.EditKind, done string) error {
	ctx := c.Request().Context()
	ps, err := s.Store.Edits(ctx, graphrag.EditQuery{ID: c.Param("id")})
	if err != nil {
		return err
	}
	if len(ps) == 0 || len(ps[0].Keys) < 2 {
		return echo.NewHTTPError(http.StatusNotFound, "This pair is no longer proposed.")
	}
	_, err = s.editor().Apply(ctx, graphrag.EditRequest{Kind: kind, Key: ps[0].Keys[0], Other: ps[0].Keys[1], Proposal: ps[0].ID})
	if err != nil {
		return editError(err)
	}
	return redirect(c, "/graph/duplicates?done="+url.QueryEscape(done))
}

// editUndo undoes an edit from a history and goes back to the page it was on.
func (s *server) editUndo(c echo.Context) error {
	if _, err := s.editor().Undo(c.Request().Context(), c.Param("id")); err != nil {
		return editError(err)
	}
	back := c.FormValue("back")
	if !strings.HasPrefix(back, "/graph/") {
		back = "/graph/duplicates"
	}
	sep := "?"
	if strings.Contains(back, "?") {
		sep = "&"
	}
	return redirect(c, back+sep+"done="+url.QueryEscape("Undone."))
}

// entityEditPage shows the forms that fix one entity, its facts and its edit history.
func (s *server) entityEditPage(c echo.Context) error {
	ctx := c.Request().Context()
	key := graphrag.NormalizeKey(c.QueryParam("key"))
	views, err := s.entityViews(ctx, []string{key})
	if err != nil {
		return err
	}
	v, ok := views[key]
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, "This name is no longer in the graph.")
	}
	found, err := s.Store.Entities(ctx, []string{key})
	if err != nil {
		return err
	}
	v.Docs = nil
	for _, id := range found[0].DocIDs {
		d, err := s.Store.Document(ctx, id)
		if err != nil {
			return err
		}
		v.Docs = append(v.Docs, web.DocLink{ID: id, Name: d.Name})
	}
	p := web.EntityEditPage{Meta: meta(c, "Fix "+v.Name, web.NavGraph), Entity: v, Message: c.QueryParam("done")}
	edges, err := s.Store.Neighborhood(ctx, []string{key}, 1, neighbourEdges)
	if err != nil {
		return err
	}
	for _, e := range edges {
		p.Relations = append(p.Relations, edgeView(e.Relation))
	}
	edits, err := s.Store.Edits(ctx, graphrag.EditQuery{Keys: []string{key}, Kinds: shownKinds, Limit: editsShown})
	if err != nil {
		return err
	}
	p.Edits = editRows(edits)
	return render(c, http.StatusOK, web.EntityEditView(p))
}

// entityEditPost makes one edit of an entity from its page's forms and goes back to the page (or to the
// graph when the entity is gone).
func (s *server) entityEditPost(c echo.Context) error {
	ctx := c.Request().Context()
	key := graphrag.NormalizeKey(c.FormValue("key"))
	r := graphrag.EditRequest{Kind: graphrag.EditKind(c.FormValue("kind")), Key: key, Name: c.FormValue("name"),
		Type: c.FormValue("type"), Relation: c.FormValue("relation")}
	if r.Kind == graphrag.EditSplit {
		chunks, err := s.chunksOfDocs(ctx, key, c.Request().Form["doc"])
		if err != nil {
			return err
		}
		r.Chunks = chunks
	}
	e, err := s.editor().Apply(ctx, r)
	if err != nil {
		return editError(err)
	}
	if e.Kind == graphrag.EditDeleteEntity {
		return redirect(c, "/graph/duplicates?done="+url.QueryEscape("Deleted. Undo it below if that was a mistake."))
	}
	return redirect(c, "/graph/entities/edit?key="+url.QueryEscape(key)+"&done="+url.QueryEscape("Saved."))
}

// chunksOfDocs are the passages of these documents that mention the entity key.
func (s *server) chunksOfDocs(ctx context.Context, key string, docs []string) ([]string, error) {
	found, err := s.Store.Entities(ctx, []string{key})
	if err != nil || len(found) == 0 {
		return nil, err
	}
	chunks, err := s.Store.Chunks(ctx, found[0].ChunkIDs)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ch := range chunks {
		if slices.Contains(docs, ch.DocID) {
			out = append(out, ch.ID)
		}
	}
	return out, nil
}
