package graphrag_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// squadronBases are the camps the squadron report names, one per passage.
var squadronBases = []string{"Nairobi", "Lagos", "Accra", "Dakar", "Kigali", "Lusaka"}

// squadronReport is version v of a report whose every passage names Zebra Squadron, one of its camps and
// v, so that a question about the squadron links it, walks to the camps and searches them again (bridge
// queries): a whole retrieval pass, with reads long after its first searches. Its headings are in lower
// case, so the scripted extraction finds the two names of each passage and the relation between them.
func squadronReport(v int) string {
	var b strings.Builder
	b.WriteString("# report of the squadron\n\n")
	for i, base := range squadronBases {
		fmt.Fprintf(&b, "## camp log %d\n\nZebra Squadron flies from Camp %s. The hangar log was checked in revision %d.\n\n", i+1, base, v)
	}
	return b.String()
}

// TestRetrievalDuringReplacesSeesOneVersion replaces a six-passage report eight times through the Ingester
// while four askers run whole retrieval passes (hybrid search, linking, the walk, its facts with their
// sources, bridge searches): every passage of a pass, in every list it returns, comes from one version of
// the report, and the pass finds all six of it, never a mix and never none. On SQLite and, with NEO4J_URI,
// on Neo4j. Before the passes read the store's generation around themselves, a replace committing between
// a pass's first searches and its bridge searches gave it passages of both versions.
func TestRetrievalDuringReplacesSeesOneVersion(t *testing.T) {
	for kind, open := range reindexStores(t) {
		t.Run(kind, func(t *testing.T) {
			questions := []graphrag.Query{{Text: "Where does Zebra Squadron fly from?"}}
			opt := graphrag.RetrieveOptions{K: 12, Graph: true}
			var retriever *graphrag.Retriever
			var passes, bad atomic.Int64
			versions := sync.Map{}
			runReplaces(t, open, "squadron.md", squadronReport, 9, func(r replaceRig) {
				retriever = graphrag.NewRetriever(r.store, r.client)
				if res, err := retriever.Retrieve(t.Context(), questions, opt); err != nil ||
					len(res.Chunks) != len(squadronBases) || len(res.Bridges) == 0 {
					t.Fatalf("before the replaces: %d passages, bridges %v, %v; want the %d of the report and bridges to its camps",
						len(res.Chunks), res.Bridges, err, len(squadronBases))
				}
			}, func() {
				res, err := retriever.Retrieve(t.Context(), questions, opt)
				passes.Add(1)
				docs := passVersions(res)
				if err != nil || len(docs) != 1 || len(res.Chunks) != len(squadronBases) {
					if bad.Add(1) <= 3 {
						t.Errorf("a pass during the replaces found %d passages, of versions %v (in all its lists), %v, in %d tries; want the %d of one",
							len(res.Chunks), docs, err, res.Passes, len(squadronBases))
					}
					return
				}
				for d := range docs {
					versions.Store(d, true)
				}
			})
			seen := 0
			versions.Range(func(any, any) bool { seen++; return true })
			t.Logf("%d retrieval passes during 8 replaces saw %d versions, %d of them mixed or incomplete", passes.Load(), seen, bad.Load())
			if seen < 2 {
				t.Errorf("the passes saw %d versions, want several", seen)
			}
		})
	}
}

// passVersions counts the passages of a pass by document, over every list it returns: the fused
// passages, the BM25, vector, hybrid and walk lists and the facts' sources.
func passVersions(res graphrag.Retrieval) map[string]int {
	docs := map[string]int{}
	for _, list := range [][]graphrag.ScoredChunk{res.Chunks, res.Keyword, res.Dense, res.Hybrid, res.Walk} {
		for _, c := range list {
			docs[c.DocID]++
		}
	}
	for _, f := range res.Facts {
		for _, c := range f.Sources {
			docs[c.DocID]++
		}
	}
	return docs
}
