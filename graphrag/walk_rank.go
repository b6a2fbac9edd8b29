package graphrag

// walkGraph is an undirected weighted graph of entities and chunks for a personalized PageRank.
type walkGraph struct {
	index map[string]int // node name ("e:"+key or "c:"+chunk ID) -> node
	names []string
	adj   [][]walkEdge
}

type walkEdge struct {
	to     int
	weight float64
}

func newWalkGraph() *walkGraph { return &walkGraph{index: map[string]int{}} }

// node returns the node of name, adding it.
func (g *walkGraph) node(name string) int {
	if i, ok := g.index[name]; ok {
		return i
	}
	g.index[name] = len(g.names)
	g.names = append(g.names, name)
	g.adj = append(g.adj, nil)
	return len(g.names) - 1
}

// link adds weight to the undirected edge between a and b.
func (g *walkGraph) link(a, b int, weight float64) {
	if a == b || weight <= 0 {
		return
	}
	g.adj[a] = addWeight(g.adj[a], b, weight)
	g.adj[b] = addWeight(g.adj[b], a, weight)
}

func addWeight(edges []walkEdge, to int, w float64) []walkEdge {
	for i := range edges {
		if edges[i].to == to {
			edges[i].weight += w
			return edges
		}
	}
	return append(edges, walkEdge{to: to, weight: w})
}

// pageRank is the personalized PageRank of every node: a walker that at each step restarts at a node
// drawn from reset (normalised) with probability 1-damping, and otherwise follows an edge in proportion to
// its weight. Mass at a node without edges returns to the reset nodes. It runs at most iters rounds and
// stops early once the scores move less than 1e-6 in total.
func (g *walkGraph) pageRank(reset []float64, damping float64, iters int) []float64 {
	n := len(g.names)
	total := 0.0
	for _, r := range reset {
		total += r
	}
	if n == 0 || total <= 0 {
		return make([]float64, n)
	}
	p := make([]float64, n)
	for i, r := range reset {
		p[i] = r / total
	}
	out := make([]float64, n)
	for i := range g.adj {
		for _, e := range g.adj[i] {
			out[i] += e.weight
		}
	}
	score := append([]float64(nil), p...)
	next := make([]float64, n)
	for range iters {
		dangling := 0.0
		for i := range next {
			next[i] = 0
		}
		for i, s := range score {
			if out[i] == 0 {
				dangling += s
				continue
			}
			for _, e := range g.adj[i] {
				next[e.to] += damping * s * e.weight / out[i]
			}
		}
		restart := 1 - damping + damping*dangling
		delta := 0.0
		for i := range next {
			next[i] += restart * p[i]
			d := next[i] - score[i]
			if d < 0 {
				d = -d
			}
			delta += d
		}
		score, next = next, score
		if delta < 1e-6 {
			break
		}
	}
	return score
}
