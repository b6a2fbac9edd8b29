package handlers

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// Limits of the graph views: enough to read, few enough to draw.
const (
	searchResults   = 20
	neighbourEdges  = 60
	factEdgesSearch = 400
	detailSources   = 5
)

// graphPage searches entities by name (?q=), draws the neighbourhood of entities (?entity=, repeatable) or
// the facts behind an answer (?facts=ID,ID with the entities they join).
func (s *server) graphPage(c echo.Context) error {
	ctx := c.Request().Context()
	p := web.GraphPage{Meta: meta(c, "Graph", web.NavGraph), Query: strings.TrimSpace(c.QueryParam("q"))}
	p.Meta.Scripts = []string{"/static/vendor/cytoscape.min.js", "/static/js/graph.js"}
	p.Start = queryKeys(c)
	p.Facts = splitList(c.QueryParam("facts"))
	if p.Query != "" {
		found, err := s.Store.SearchEntities(ctx, p.Query, searchResults)
		if err != nil {
			return err
		}
		for _, e := range found {
			p.Results = append(p.Results, entityView(e))
			if e.Key == graphrag.NormalizeKey(p.Query) && len(p.Start) == 0 {
				p.Start = []string{e.Key}
			}
		}
		if len(found) == 0 {
			p.Message = fmt.Sprintf("No name matches “%s”. Try a shorter or different spelling.", p.Query)
		}
	}
	if len(p.Start) > 0 {
		edges, err := s.graphEdges(ctx, p.Start, p.Facts)
		if err != nil {
			return err
		}
		for _, e := range edges {
			p.Edges = append(p.Edges, edgeView(e.Relation))
		}
		if len(edges) == 0 && p.Message == "" {
			p.Message = "No facts link these names to others yet."
		}
	}
	return render(c, http.StatusOK, web.GraphView(p))
}

// graphEdges is the one-hop neighbourhood of keys, or only the facts when fact IDs are given.
func (s *server) graphEdges(ctx context.Context, keys, facts []string) ([]graphrag.Edge, error) {
	if len(facts) == 0 {
		return s.Store.Neighborhood(ctx, keys, 1, neighbourEdges)
	}
	edges, err := s.Store.Neighborhood(ctx, keys, 1, factEdgesSearch)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(edges, func(e graphrag.Edge) bool { return !slices.Contains(facts, e.ID) }), nil
}

// queryKeys are the entity keys of the request's entity parameters, normalised so a name works too.
func queryKeys(c echo.Context) []string {
	var keys []string
	for _, v := range c.QueryParams()["entity"] {
		for _, name := range splitList(v) {
			if k := graphrag.NormalizeKey(name); k != "" && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func entityView(e graphrag.Entity) web.EntityView {
	return web.EntityView{Key: e.Key, Name: e.Name, Type: e.Type, Description: e.Description, Aliases: e.Aliases}
}

func edgeView(r graphrag.Relation) web.EdgeView {
	v := web.EdgeView{ID: r.ID, Type: r.Type, Description: r.Description, Source: r.Source, Target: r.Target,
		SourceName: r.SourceName, TargetName: r.TargetName}
	names := make([]string, 0, len(r.Values))
	for k := range r.Values {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v.Values = append(v.Values, web.Setting{Name: strings.ReplaceAll(k, "_", " "), Value: fmt.Sprint(r.Values[k])})
	}
	return v
}
