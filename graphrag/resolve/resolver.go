package resolve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// Store is what the resolver reads and records.
type Store interface {
	graphrag.EditStore
	Entities(ctx context.Context, keys []string) ([]graphrag.Entity, error)
	SearchEntities(ctx context.Context, query string, k int) ([]graphrag.Entity, error)
	Neighborhood(ctx context.Context, keys []string, hops, limit int) ([]graphrag.Edge, error)
	// Document gives the title of a document an entity is found in (a work named like it: inWorkNamed).
	Document(ctx context.Context, id string) (graphrag.Document, error)
	// SearchVector and Subgraph find the entities of the passages nearest to a name and its description.
	SearchVector(ctx context.Context, vec []float32, k int) ([]graphrag.ScoredChunk, error)
	Subgraph(ctx context.Context, q graphrag.SubgraphQuery) (graphrag.Subgraph, error)
	EmbeddingSpace() graphrag.EmbeddingSpace
}

// BriefStore is what a store reads of its entities for the resolver without their provenance, which grows
// with the corpus: a hub entity named in every passage has as many mentions, and reading them for each
// passage resolved, one resolution at a time, made ingestion quadratic (2,000 scripted files: 35 s before
// the resolver read stored entities' neighbours and resolved one passage at a time, 75-110 s after). Both
// stores have it; a Store without it is read through its full reads (briefsOf).
type BriefStore interface {
	// EntityBriefs and SearchEntityBriefs read entities as Entities and SearchEntities do, with no ChunkIDs
	// and, as DocIDs, only those of docs that mention them.
	EntityBriefs(ctx context.Context, keys, docs []string) ([]graphrag.Entity, error)
	SearchEntityBriefs(ctx context.Context, query string, k int, docs []string) ([]graphrag.Entity, error)
	// NeighbourNames returns the names of both ends of the at most limit best supported relations of key.
	NeighbourNames(ctx context.Context, key string, limit int) ([]string, error)
}

// briefsOf returns the BriefStore of store: itself when it has one, its full reads trimmed otherwise.
func briefsOf(store Store) BriefStore {
	if b, ok := store.(BriefStore); ok {
		return b
	}
	return fullReads{store}
}

// fullReads is a BriefStore over a Store's full reads.
type fullReads struct{ Store }

func (f fullReads) EntityBriefs(ctx context.Context, keys, docs []string) ([]graphrag.Entity, error) {
	es, err := f.Entities(ctx, keys)
	return trimmed(es, docs), err
}

func (f fullReads) SearchEntityBriefs(ctx context.Context, query string, k int, docs []string) ([]graphrag.Entity, error) {
	es, err := f.SearchEntities(ctx, query, k)
	return trimmed(es, docs), err
}

func (f fullReads) NeighbourNames(ctx context.Context, key string, limit int) ([]string, error) {
	edges, err := f.Neighborhood(ctx, []string{key}, 1, limit)
	var out []string
	for _, ed := range edges {
		out = append(out, ed.SourceName, ed.TargetName)
	}
	return out, err
}

// trimmed drops the provenance of es but the documents among docs.
func trimmed(es []graphrag.Entity, docs []string) []graphrag.Entity {
	for i := range es {
		es[i].ChunkIDs = nil
		es[i].DocIDs = slices.DeleteFunc(es[i].DocIDs, func(d string) bool { return !slices.Contains(docs, d) })
	}
	return es
}

// Bounds of one resolution: candidates looked up per new name by its words, passages searched by its
// description's vector and the candidates taken from them, neighbours read as an entity's context, vectors
// kept between extractions, extractions remembered until the store surely holds them.
const (
	maxCandidates = 8
	nearPassages  = 4
	maxNear       = 20
	maxNeighbours = 40
	maxCached     = 20000
	maxRecent     = 64
	maxTitleDocs  = 32
)

// Resolver is the graphrag.Resolver of the ingester: it applies the edits in force, then resolves every
// entity of an extraction against the others of its passage and against the graph. A pair it is sure of
// is merged (the extraction rewritten to one key) and recorded as a merge by the resolver with its rule,
// score and evidence; a pair it is not sure of is proposed for review; a name whose passage's title
// qualifies it otherwise than the entity of that key is kept apart under the title's key. Its writes are
// edits only: the extraction itself is stored by the ingester.
//
// Candidates for a new name are the graph's entities found by its words, and, for a name with a
// description, the entities of the passages nearest to the vector of its name and description ("München"
// for Munich, which no word of it finds): that vector is compared with the store's passage vectors, so embed
// must give vectors in the store's space (graphrag.SpaceEmbedder).
//
// Extractions are resolved one at a time, each against the graph and the extractions resolved before it
// that the store may not hold yet (the ingester stores an extraction after its resolution, and extracts
// several passages at once): two passages read at the same time see each other as they would one after the
// other, so what is merged does not depend on which passages happened to be in flight together.
type Resolver struct {
	store  Store
	briefs BriefStore
	embed  graphrag.Embedder
	logger *slog.Logger

	// order serialises resolutions; recent are the last extractions resolved, newest last.
	order  sync.Mutex
	recent []resolved

	mu      sync.Mutex
	vectors map[string][]float32
	space   graphrag.EmbeddingSpace // the space the cached vectors are of
}

// New returns a resolver over store; embed (nil for none) gives the vectors of names with descriptions, in
// the store's embedding space (graphrag.SpaceEmbedder).
func New(store Store, embed graphrag.Embedder, logger *slog.Logger) *Resolver {
	return &Resolver{store: store, briefs: briefsOf(store), embed: embed, logger: logger, vectors: map[string][]float32{}}
}

var _ graphrag.Resolver = (*Resolver)(nil)

// Resolve rewrites x as described on Resolver.
func (r *Resolver) Resolve(ctx context.Context, c graphrag.Chunk, x graphrag.Extraction) (graphrag.Extraction, error) {
	if len(x.Entities) == 0 {
		return x, nil
	}
	// the vectors of the passage's names are asked for before waiting for the resolutions ahead of this
	// one: resolve finds them cached (an edit that renames an entity has its new name embedded there)
	if _, err := r.mentions(ctx, c, x); err != nil {
		return x, err
	}
	r.order.Lock()
	defer r.order.Unlock()
	// a passage resolved again (a retry, a re-extraction) is not compared with its own earlier resolution
	r.recent = slices.DeleteFunc(r.recent, func(p resolved) bool { return p.chunk == c.ID })
	out, err := r.resolve(ctx, c, x)
	if err == nil {
		r.remember(c, out)
	}
	return out, err
}

func (r *Resolver) resolve(ctx context.Context, c graphrag.Chunk, x graphrag.Extraction) (graphrag.Extraction, error) {
	edits, err := r.store.Edits(ctx, graphrag.EditQuery{Keys: entityKeys(x), Statuses: []graphrag.EditStatus{graphrag.EditApplied}, Limit: 1000})
	if err != nil {
		return x, fmt.Errorf("resolve: read edits: %w", err)
	}
	x = graphrag.RuleSet(edits).Apply(x)
	// a key merged on another passage goes where that merge sent it, whichever passage came first (named
	// as the entity kept once resolved: the comparisons below read the names as written, whose vectors
	// were asked for before)
	x, names, err := r.redirect(ctx, c, x, edits)
	if err != nil {
		return x, err
	}
	distinct := distinctPairs(edits)
	var record []graphrag.Edit
	to := map[string]string{}

	mentions, err := r.mentions(ctx, c, x)
	if err != nil {
		return x, err
	}
	// within the passage: a short form or an abbreviation goes to the fuller name
	for i := range mentions {
		for j := i + 1; j < len(mentions); j++ {
			a, b := mentions[i], mentions[j]
			if to[a.key] != "" || to[b.key] != "" || distinct[pairKey(a.key, b.key)] {
				continue
			}
			d := Score(a.Mention, b.Mention)
			if d.Verdict != Merge {
				continue
			}
			// the fuller name stays ("Alfred Tarski", the Bharatiya Janata Party), but a place stays under
			// its plain name, "Athens, Greece" an alias of Athens (keepsFirst)
			kept, gone := a, b
			if !keepsFirst(a.Mention, b.Mention, d.Rule) {
				kept, gone = b, a
			}
			if settled(gone) {
				continue
			}
			to[gone.key], names[kept.key] = kept.key, kept.Name
			record = append(record, mergeEdit(kept, gone, d, c.ID))
		}
	}
	// against the graph, and the extractions resolved before this one
	stored, err := r.entities(ctx, entityKeys(x), c.DocID)
	if err != nil {
		return x, err
	}
	have := map[string]graphrag.Entity{}
	for _, e := range stored {
		have[e.Key] = e
	}
	for _, m := range mentions {
		if to[m.key] != "" {
			continue
		}
		if e, ok := have[m.key]; ok {
			if k, name, ed, ok := r.homonym(ctx, c, m, e); ok {
				to[m.key], names[k] = k, name
				record = append(record, ed)
			}
			continue
		}
		if settled(m) {
			continue
		}
		ed, k, err := r.candidates(ctx, c, m, distinct)
		if err != nil {
			return x, err
		}
		if ed == nil {
			continue
		}
		if k != "" {
			to[m.key] = k
		}
		record = append(record, *ed)
	}
	for _, e := range record {
		if err := r.store.ApplyEdit(ctx, e, graphrag.GraphPatch{}); err != nil {
			return x, fmt.Errorf("resolve: record %s of %q: %w", e.Kind, e.Keys, err)
		}
	}
	if len(to) == 0 && len(names) == 0 {
		return x, nil
	}
	return graphrag.Rekey(x, to, names), nil
}

// mention is an entity of the extraction as Score sees it.
type mention struct {
	Mention
	key string
}

// settled reports whether an edit in force already sent m to the key of another name (the merges the
// resolver decided, a person's merge or alias): "U.S." under the key of the United States. Its name as
// written is still compared, but no merge decided on that name sends its key elsewhere: the key is the
// entity it was merged into, which every passage naming that entity shares, and a merge of "U.S." into
// "policy of the United States" would take the whole of the United States there (on the MuSiQue bench, a
// hub of 184 passages moved so, then on to "contiguous United States").
func settled(m mention) bool { return key(m.Name) != m.key }

// mentions describes x's entities, with the vectors of those with a description.
func (r *Resolver) mentions(ctx context.Context, c graphrag.Chunk, x graphrag.Extraction) ([]mention, error) {
	out := make([]mention, len(x.Entities))
	for i, e := range x.Entities {
		var ctxNames []string
		for j, o := range x.Entities {
			if j != i {
				ctxNames = append(ctxNames, o.Name)
			}
		}
		out[i] = mention{Mention: Mention{Name: e.Name, Type: e.Type, Description: e.Description, Docs: []string{c.DocID},
			Title: c.DocTitle, Context: ctxNames}, key: e.Key}
	}
	ms := make([]*Mention, len(out))
	for i := range out {
		ms[i] = &out[i].Mention
	}
	return out, r.vectorize(ctx, ms)
}

// vectorize sets the vector of every mention with a description, embedding those not cached in one call.
func (r *Resolver) vectorize(ctx context.Context, ms []*Mention) error {
	if r.embed == nil {
		return nil
	}
	var todo []string
	r.mu.Lock()
	if sp := r.store.EmbeddingSpace(); sp != r.space {
		// the store moved to another embedding model: vectors of the old one compare with nothing now
		clear(r.vectors)
		r.space = sp
	}
	for _, m := range ms {
		if m.Description == "" {
			continue
		}
		if v, ok := r.vectors[m.Text()]; ok {
			m.Vector = v
		} else {
			todo = append(todo, m.Text())
		}
	}
	r.mu.Unlock()
	if len(todo) == 0 {
		return nil
	}
	todo = graphrag.SortedUnion(todo)
	vecs, err := r.embed.Embed(ctx, todo)
	if err != nil {
		return fmt.Errorf("resolve: embed names: %w", err)
	}
	if len(vecs) != len(todo) {
		return fmt.Errorf("resolve: embed names: %d vectors for %d names", len(vecs), len(todo))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.vectors)+len(todo) > maxCached {
		clear(r.vectors)
	}
	for i, t := range todo {
		r.vectors[t] = vecs[i]
	}
	for _, m := range ms {
		if m.Description != "" && m.Vector == nil {
			m.Vector = r.vectors[m.Text()]
		}
	}
	return nil
}

// homonym checks a name whose key the graph holds. When the passage's title qualifies it ("Midway, Floyd
// County, Iowa") and nothing around the stored entity says so, the name is another thing, kept under the
// title's key. When no title says so but both are described, in no common document, with nothing around
// them in common and descriptions that disagree (Homonym), it is kept under its name qualified by its kind
// or its passage's title ("Mercury (element)"), or goes to another entity of that name it does not
// disagree with. Either decision is recorded as a distinct pair.
func (r *Resolver) homonym(ctx context.Context, c graphrag.Chunk, m mention, stored graphrag.Entity) (string, string, graphrag.Edit, bool) {
	q, titled := titleQualifier(c.DocTitle, m.key)
	if !titled && (m.Description == "" || stored.Description == "") {
		return "", "", graphrag.Edit{}, false
	}
	other, err := r.entityMention(ctx, stored)
	if err != nil {
		r.logger.Warn("resolve: read neighbours", "entity", stored.Key, "err", err)
		return "", "", graphrag.Edit{}, false
	}
	if titled {
		k := key(c.DocTitle)
		if names(other, q) || k == m.key {
			return "", "", graphrag.Edit{}, false
		}
		// the stored one may be what a work of that name is named after (Score's workNamesake)
		if !typesConflict(m.Type, stored.Type) {
			work, err := r.inWorkNamed(ctx, c.DocTitle, m.key)
			if err != nil {
				r.logger.Warn("resolve: read the titles of an entity's documents", "entity", stored.Key, "err", err)
			} else if work {
				return "", "", graphrag.Edit{}, false
			}
		}
		return k, c.DocTitle, distinctEdit(m, stored, k, c.DocTitle, "homonym", 0.1, c.ID,
			fmt.Sprintf("the passage is about %s; nothing around %q in the graph says %s", c.DocTitle, stored.Name, q)), true
	}
	if err := r.vectorize(ctx, []*Mention{&other}); err != nil {
		r.logger.Warn("resolve: embed a stored name", "entity", stored.Key, "err", err)
		return "", "", graphrag.Edit{}, false
	}
	d, apart := Homonym(m.Mention, other)
	if !apart {
		return "", "", graphrag.Edit{}, false
	}
	qual := c.DocTitle
	if typesConflict(m.Type, other.Type) {
		qual = m.Type
	}
	name := m.Name + " (" + qual + ")"
	k := key(name)
	if key(qual) == "" || key(qual) == m.key || k == stored.Key {
		return "", "", graphrag.Edit{}, false
	}
	// another entity of that name may be the thing this one is (a third Mercury, the element again)
	if e, ok := r.sameNameElsewhere(ctx, m, stored.Key); ok {
		k, name = e.Key, e.Name
	}
	return k, name, distinctEdit(m, stored, k, name, d.Rule, d.Score, c.ID, d.Evidence...), true
}

// inWorkNamed reports whether the name k of a passage titled titled may be the namesake of a work called k
// (workNamesake: "Madonna (book)") that the entity of key k is found in: among the recent extractions, then
// the documents the store holds it in, the titles of at most maxTitleDocs of them read. It reads the
// entity's provenance, which the briefs leave out, only for a name whose passage's title qualifies it and
// that nothing around the stored one confirms.
func (r *Resolver) inWorkNamed(ctx context.Context, titled, k string) (bool, error) {
	for _, p := range r.recent {
		if workNamesake(titled, p.title, k) && slices.ContainsFunc(p.entities, func(e graphrag.Entity) bool { return e.Key == k }) {
			return true, nil
		}
	}
	es, err := r.store.Entities(ctx, []string{k})
	if err != nil || len(es) == 0 {
		return false, err
	}
	docs := es[0].DocIDs
	for _, id := range docs[:min(len(docs), maxTitleDocs)] {
		doc, err := r.store.Document(ctx, id)
		if errors.Is(err, graphrag.ErrNotFound) {
			continue // deleted since
		}
		if err != nil {
			return false, err
		}
		if workNamesake(titled, doc.Title, k) {
			return true, nil
		}
	}
	return false, nil
}

// sameNameElsewhere looks for an entity other than the one of key skip that is also called m's name and
// does not disagree with it.
func (r *Resolver) sameNameElsewhere(ctx context.Context, m mention, skip string) (graphrag.Entity, bool) {
	found, err := r.briefs.SearchEntityBriefs(ctx, m.Name, maxCandidates, m.Docs)
	if err != nil {
		r.logger.Warn("resolve: search", "name", m.Name, "err", err)
		return graphrag.Entity{}, false
	}
	for _, e := range withEntities(found, r.recentNamed(m.key)) {
		if e.Key == skip || e.Key == m.key || !slices.ContainsFunc(e.Aliases, func(a string) bool { return key(a) == m.key }) {
			continue
		}
		om, err := r.entityMention(ctx, e)
		if err == nil {
			err = r.vectorize(ctx, []*Mention{&om})
		}
		if err != nil {
			r.logger.Warn("resolve: read a stored name", "entity", e.Key, "err", err)
			continue
		}
		if _, apart := Homonym(m.Mention, om); !apart && !typesConflict(m.Type, om.Type) {
			return e, true
		}
	}
	return graphrag.Entity{}, false
}

// distinctEdit records that m, whose key the graph's entity stored has, is another thing, kept under key k
// named name.
func distinctEdit(m mention, stored graphrag.Entity, k, name, rule string, score float64, chunk string, evidence ...string) graphrag.Edit {
	return graphrag.Edit{ID: "d" + hashKeys(m.key, k), Kind: graphrag.EditDistinct, Status: graphrag.EditApplied,
		Keys: []string{m.key, k}, Names: []string{stored.Name, name}, By: graphrag.ByResolver, Rule: rule, Score: score,
		Evidence: evidence, Chunks: []string{chunk}, CreatedAt: time.Now().UTC()}
}

// entityMention describes a stored entity, its neighbours' names and its aliases as its context.
func (r *Resolver) entityMention(ctx context.Context, e graphrag.Entity) (Mention, error) {
	names, err := r.briefs.NeighbourNames(ctx, e.Key, maxNeighbours)
	if err != nil {
		return Mention{}, err
	}
	ctxNames := append(slices.Clone(e.Aliases), names...)
	return Mention{Name: e.Name, Type: e.Type, Description: e.Description, Docs: e.DocIDs, Context: ctxNames}, nil
}

// candidates looks the name up among the graph's names (and those of the extractions resolved just
// before), and among the entities of the passages nearest to its name and description, and decides on the
// best candidate: the key to merge into with the merge recorded, or a proposal for review (no key), or
// nothing.
func (r *Resolver) candidates(ctx context.Context, c graphrag.Chunk, m mention, distinct map[string]bool) (*graphrag.Edit, string, error) {
	found, err := r.briefs.SearchEntityBriefs(ctx, m.Name, maxCandidates, m.Docs)
	if err != nil {
		return nil, "", fmt.Errorf("resolve: search %q: %w", m.Name, err)
	}
	found = withEntities(found, r.recentNamed(m.key))
	near, err := r.near(ctx, c, m)
	if err != nil {
		return nil, "", err
	}
	byMeaning := map[string]bool{}
	for _, e := range near {
		if indexOf(found, e.Key) < 0 {
			found = append(found, e)
			byMeaning[e.Key] = true
		}
	}
	cands := make([]Mention, 0, len(found))
	var keys []string
	for _, e := range found {
		if e.Key == m.key || distinct[pairKey(m.key, e.Key)] {
			continue
		}
		cands = append(cands, Mention{Name: e.Name, Type: e.Type, Description: e.Description, Docs: e.DocIDs, Context: e.Aliases})
		keys = append(keys, e.Key)
	}
	ptrs := make([]*Mention, len(cands))
	for i := range cands {
		ptrs[i] = &cands[i]
	}
	if err := r.vectorize(ctx, ptrs); err != nil {
		return nil, "", err
	}
	best, bestKey := Decision{}, ""
	for i, cand := range cands {
		d := Score(m.Mention, cand)
		for _, a := range found[indexOf(found, keys[i])].Aliases {
			if key(a) == m.key && d.Verdict != Distinct {
				d = decide(0.95, "known alias", fmt.Sprintf("%q is a name of %q already", m.Name, cand.Name))
			}
		}
		if byMeaning[keys[i]] && d.Verdict != Distinct {
			d.Evidence = append(d.Evidence, fmt.Sprintf("found by meaning: %q is named in a passage near the description of %q", cand.Name, m.Name))
		}
		if d.Score > best.Score {
			best, bestKey = d, keys[i]
		}
	}
	switch best.Verdict {
	case Merge:
		// the entity kept is the one keepsFirst says, not the one found first: when it is the new name,
		// the graph's entity is merged into it once both are stored (StoreResolved)
		cand := cands[slices.Index(keys, bestKey)]
		if best.Rule != "known alias" && keepsFirst(m.Mention, cand, best.Rule) {
			e := mergeEdit(m, mention{Mention: cand, key: bestKey}, best, c.ID)
			return &e, "", nil
		}
		e := mergeEdit(mention{Mention: cand, key: bestKey}, m, best, "")
		return &e, bestKey, nil
	case Review:
		e := graphrag.Edit{ID: graphrag.ProposalID(bestKey, m.key), Kind: graphrag.EditMerge, Status: graphrag.EditProposed,
			Keys: []string{bestKey, m.key}, Names: []string{found[indexOf(found, bestKey)].Name, m.Name}, By: graphrag.ByResolver,
			Rule: best.Rule, Score: best.Score, Evidence: best.Evidence, CreatedAt: time.Now().UTC()}
		return &e, "", nil
	}
	return nil, "", nil
}

func indexOf(es []graphrag.Entity, k string) int {
	for i, e := range es {
		if e.Key == k {
			return i
		}
	}
	return -1
}

// mergeEdit records that the resolver merged the name of m into the entity kept (its Name the kept one's,
// which a re-extraction's commit names the entity by: graphrag.StagedEditRules), in chunk (when known).
// Its ID is the pair's, so the same decision on other passages is one record.
func mergeEdit(kept, m mention, d Decision, chunk string) graphrag.Edit {
	e := graphrag.Edit{ID: "m" + hashKeys(kept.key, m.key), Kind: graphrag.EditMerge, Status: graphrag.EditApplied,
		Keys: []string{kept.key, m.key}, Names: []string{m.Name}, Name: kept.Name, By: graphrag.ByResolver, Rule: d.Rule, Score: d.Score,
		Evidence: d.Evidence, CreatedAt: time.Now().UTC()}
	if chunk != "" {
		e.Chunks = []string{chunk}
	}
	return e
}

// distinctPairs are the pairs of keys edits say are not one thing.
func distinctPairs(edits []graphrag.Edit) map[string]bool {
	out := map[string]bool{}
	for _, e := range edits {
		if e.Kind == graphrag.EditDistinct && len(e.Keys) > 1 {
			out[pairKey(e.Keys[0], e.Keys[1])] = true
		}
	}
	return out
}

func pairKey(a, b string) string {
	if a > b {
		a, b = b, a
	}
	return a + "\x00" + b
}

func hashKeys(a, b string) string {
	sum := sha256.Sum256([]byte(a + "\x00" + b))
	return hex.EncodeToString(sum[:8])
}

func entityKeys(x graphrag.Extraction) []string {
	keys := make([]string, len(x.Entities))
	for i, e := range x.Entities {
		keys[i] = e.Key
	}
	return keys
}
