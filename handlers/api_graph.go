package handlers

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/labstack/echo/v4"
)

// nodeJSON and edgeJSON are the graph as the explorer's drawing and scripts read it. Names are data: the
// page sets them as text, never as HTML.
type nodeJSON struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	Type string `json:"type"`
}

type edgeJSON struct {
	ID     string         `json:"id"`
	Source string         `json:"source"`
	Target string         `json:"target"`
	Type   string         `json:"type"`
	Label  string         `json:"label"`
	Values map[string]any `json:"values,omitempty"`
	Docs   []string       `json:"documents,omitempty"`
}

func (s *server) apiEntities(c echo.Context) error {
	q := strings.TrimSpace(c.QueryParam("q"))
	if q == "" {
		return echo.NewHTTPError(http.StatusBadRequest, "Give a name to search with q=.")
	}
	found, err := s.Store.SearchEntities(c.Request().Context(), q, searchResults)
	if err != nil {
		return err
	}
	out := make([]nodeJSON, len(found))
	for i, e := range found {
		out[i] = nodeJSON{Key: e.Key, Name: e.Name, Type: e.Type}
	}
	return c.JSON(http.StatusOK, map[string]any{"entities": out})
}

// maxNeighbourEdges bounds ?limit=: the most relations one drawing asks for.
const maxNeighbourEdges = 400

// apiNeighborhood returns the relations around ?entity= keys (1 or 2 hops), at most ?limit= of them
// (neighbourEdges by default, up to maxNeighbourEdges), with more=true when the limit cut them; or only
// ?facts= relation IDs.
func (s *server) apiNeighborhood(c echo.Context) error {
	ctx := c.Request().Context()
	keys := queryKeys(c)
	if len(keys) == 0 {
		return echo.NewHTTPError(http.StatusBadRequest, "Give at least one entity=.")
	}
	hops, _ := strconv.Atoi(c.QueryParam("hops"))
	limit := neighbourEdges
	if l := c.QueryParam("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			return echo.NewHTTPError(http.StatusBadRequest, "limit= must be a positive number.")
		}
		limit = min(n, maxNeighbourEdges)
	}
	facts := splitList(c.QueryParam("facts"))
	var edges []graphrag.Edge
	var err error
	switch {
	case len(facts) > 0:
		edges, err = s.graphEdges(ctx, keys, facts)
	case hops == 2:
		edges, err = s.Store.Neighborhood(ctx, keys, 2, limit+1)
	default:
		edges, err = s.Store.Neighborhood(ctx, keys, 1, limit+1)
	}
	if err != nil {
		return err
	}
	more := len(facts) == 0 && len(edges) > limit
	edges = edges[:min(len(edges), limit)]
	nodeKeys := append([]string(nil), keys...)
	out := struct {
		Nodes []nodeJSON `json:"nodes"`
		Edges []edgeJSON `json:"edges"`
		More  bool       `json:"more"`
	}{Nodes: []nodeJSON{}, Edges: []edgeJSON{}, More: more}
	for _, e := range edges {
		out.Edges = append(out.Edges, edgeJSON{ID: e.ID, Source: e.Source, Target: e.Target, Type: e.Type,
			Label: strings.ToLower(strings.ReplaceAll(e.Type, "_", " ")), Values: e.Values, Docs: e.DocIDs})
		nodeKeys = append(nodeKeys, e.Source, e.Target)
	}
	ents, err := s.Store.Entities(ctx, dedupe(nodeKeys))
	if err != nil {
		return err
	}
	for _, e := range ents {
		out.Nodes = append(out.Nodes, nodeJSON{Key: e.Key, Name: e.Name, Type: e.Type})
	}
	return c.JSON(http.StatusOK, out)
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
