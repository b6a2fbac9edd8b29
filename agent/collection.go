package agent

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

// CollectionReader is what the whole-collection route reads: the graph's communities with the summaries
// the model wrote of them (graphrag.Communities), and the passages those cite.
type CollectionReader interface {
	Communities(ctx context.Context) ([]graphrag.Community, error)
	Chunks(ctx context.Context, ids []string) ([]graphrag.Chunk, error)
}

// WithCollection lets the decision step send questions about the whole collection ("what are the main
// risks across these reports?") to the community summaries of c instead of a search for passages. It
// returns a.
func (a *Agent) WithCollection(c CollectionReader) *Agent {
	a.collection = c
	return a
}

//go:embed prompts/collection.txt
var promptCollection string

// collectionSources bounds the community summaries one answer is written from.
const collectionSources = 8

// wholeCollection answers from community summaries when the decision asked for the whole collection and
// summaries exist; ok is false when the question goes on to the usual search (no summaries yet, or none
// was asked for). Each summary is a source that cites its community's most used passage, so a citation
// opens where the summary comes from.
func (r *run) wholeCollection(ctx context.Context, d decision) (ok bool, err error) {
	if !d.Collection || r.a.collection == nil {
		return false, nil
	}
	r.started(NodeRetrieve, "Reading the summaries of the collection's topics")
	all, err := r.a.collection.Communities(ctx)
	if err != nil {
		return false, fmt.Errorf("agent: communities: %w", err)
	}
	picked := pickCommunities(r.st.question, all, collectionSources)
	if len(picked) == 0 {
		r.finished(NodeRetrieve, "No summaries of the collection's topics have been written yet (Graph page, or `hopwise communities --summarize`); searching passages instead")
		return false, nil
	}
	srcs, err := r.communitySources(ctx, picked)
	if err != nil {
		return false, err
	}
	r.st.keep(srcs)
	titles := make([]string, len(picked))
	for i, c := range picked {
		titles[i] = c.Title
	}
	r.finished(NodeRetrieve, fmt.Sprintf("Read %d of %d topic summaries: %s", len(picked), len(all), clip(strings.Join(titles, "; "), 200)))
	if err := r.generateWith(ctx, promptCollection); err != nil {
		return true, err
	}
	return true, r.audit(ctx)
}

// pickCommunities ranks the summarised communities by the question's words in their title and summary,
// then by weight (their order), and keeps at most n.
func pickCommunities(question string, cs []graphrag.Community, n int) []graphrag.Community {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(question), notWordRune) {
		if len(w) > 3 {
			words[w] = true
		}
	}
	type scored struct {
		c     graphrag.Community
		score int
		order int
	}
	var out []scored
	for i, c := range cs {
		if !c.Summarized() {
			continue
		}
		s := 0
		for _, w := range strings.FieldsFunc(strings.ToLower(c.Title+" "+c.Summary), notWordRune) {
			if words[w] {
				s++
			}
		}
		out = append(out, scored{c, s, i})
	}
	slices.SortStableFunc(out, func(a, b scored) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.order, b.order)) })
	picked := make([]graphrag.Community, 0, min(n, len(out)))
	for _, s := range out[:min(n, len(out))] {
		picked = append(picked, s.c)
	}
	return picked
}

func notWordRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
}

// communitySources turns summaries into sources: the summary is the text the model reads, the community's
// most used passage is where its citation leads.
func (r *run) communitySources(ctx context.Context, cs []graphrag.Community) ([]source, error) {
	var ids []string
	for _, c := range cs {
		if len(c.ChunkIDs) > 0 {
			ids = append(ids, c.ChunkIDs[0])
		}
	}
	chunks, err := r.a.collection.Chunks(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("agent: passages of the summaries: %w", err)
	}
	byID := map[string]graphrag.Chunk{}
	for _, ch := range chunks {
		byID[ch.ID] = ch
	}
	srcs := make([]source, 0, len(cs))
	for _, c := range cs {
		ch, ok := graphrag.Chunk{}, false
		if len(c.ChunkIDs) > 0 {
			ch, ok = byID[c.ChunkIDs[0]]
		}
		if !ok {
			continue // the passage is gone: the summary will be recomputed, and cannot be cited meanwhile
		}
		ch.Text = c.Title + ". " + c.Summary
		ch.Section = []string{"summary of the topic “" + c.Title + "”"}
		srcs = append(srcs, source{kind: KindChunk, chunk: ch})
	}
	return srcs, nil
}
