package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// collection is a CollectionReader over the demo store's passages with the given communities.
type collection struct {
	chunks      func(ctx context.Context, ids []string) ([]graphrag.Chunk, error)
	communities []graphrag.Community
	reads       int
}

func (c *collection) Communities(context.Context) ([]graphrag.Community, error) {
	c.reads++
	return c.communities, nil
}

func (c *collection) Chunks(ctx context.Context, ids []string) ([]graphrag.Chunk, error) {
	return c.chunks(ctx, ids)
}

// demoCommunities are two summarised communities citing real demo passages, and one not summarised.
func demoCommunities(t *testing.T) *collection {
	t.Helper()
	store := demoStore(t)
	docs, err := store.Documents(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	chunkOf := map[string]string{}
	for _, d := range docs {
		cs, err := store.DocumentChunks(t.Context(), d.ID)
		if err != nil || len(cs) == 0 {
			t.Fatalf("chunks of %s: %v", d.Name, err)
		}
		chunkOf[d.Name] = cs[0].ID
	}
	return &collection{chunks: store.Chunks, communities: []graphrag.Community{
		{ID: "com-1", Signature: "s1", Entities: []string{"nexa ai", "lisbon"}, ChunkIDs: []string{chunkOf["nexa-ai-company-history.md"]},
			Title: "Nexa AI's history", Summary: "Nexa AI was founded in Lisbon and acquired Acme Robotics."},
		{ID: "com-2", Signature: "s2", Entities: []string{"eu261", "lufthansa"}, ChunkIDs: []string{chunkOf["flight-compensation-eu-vs-us.md"]},
			Title: "Flight compensation rules", Summary: "EU261 pays 250 to 600 EUR for denied boarding; the US rules differ."},
		{ID: "com-3", Signature: "s3", Entities: []string{"munich", "delhi"}, ChunkIDs: []string{chunkOf["munich-city-distances.md"]}},
	}}
}

// taskCollection is the task of the whole-collection answer's prompt.
const taskCollection = "answer about the collection"

func TestWholeCollectionQuestionIsAnsweredFromCommunitySummaries(t *testing.T) {
	m := newModel(t)
	m.on(taskDecide, func(c call) llmtest.Reply {
		return reply(map[string]any{"retrieve": true, "queries": []string{}, "whole_collection": true})
	})
	m.on(taskCollection, func(c call) llmtest.Reply {
		return say(fmt.Sprintf("The documents cover Nexa AI's history [%d] and flight compensation rules [%d].",
			c.find("Nexa AI was founded"), c.find("EU261 pays")))
	})
	m.on(taskAudit, func(c call) llmtest.Reply { return audit("fully", true, "") })
	coll := demoCommunities(t)
	res, _ := ask(t, m.agent(agent.Config{}, nil, nil).WithCollection(coll), "What are the main topics across these documents?")

	if got, want := path(res.Trace), []string{agent.NodeDecide, agent.NodeRetrieve, agent.NodeGenerate, agent.NodeAudit}; !equal(got, want) {
		t.Fatalf("path = %v, want %v", got, want)
	}
	if m.count(taskGrade) != 0 || m.count(taskTransform) != 0 || m.count(taskGenerate) != 0 {
		t.Errorf("grade %d, transform %d, generate %d calls: the summaries are the evidence, nothing is searched", m.count(taskGrade), m.count(taskTransform), m.count(taskGenerate))
	}
	prompt := m.prompts(taskCollection)[0]
	if !strings.Contains(prompt, "Nexa AI was founded in Lisbon") || !strings.Contains(prompt, "EU261 pays") {
		t.Errorf("the answer prompt does not hold the summaries:\n%s", prompt)
	}
	if strings.Contains(prompt, "Munich to Delhi") {
		t.Errorf("a community without a summary (or a passage) reached the prompt:\n%s", prompt)
	}
	if len(res.Citations) != 2 {
		t.Fatalf("citations %+v, want the two summaries", res.Citations)
	}
	for i, want := range []string{"nexa-ai-company-history.md", "flight-compensation-eu-vs-us.md"} {
		c := res.Citations[i]
		if c.DocName != want || c.ChunkID != coll.communities[i].ChunkIDs[0] || !strings.Contains(c.Section, coll.communities[i].Title) {
			t.Errorf("citation %d = %+v: want the passage of %s, named as the summary of %q", i+1, c, want, coll.communities[i].Title)
		}
	}
	if res.Grounded != agent.GroundedFully || res.NotFound {
		t.Errorf("result grounded %q not found %v", res.Grounded, res.NotFound)
	}
}

func TestWholeCollectionWithoutSummariesSearchesPassages(t *testing.T) {
	m := newModel(t)
	m.on(taskDecide, func(c call) llmtest.Reply {
		return reply(map[string]any{"retrieve": true, "queries": []string{}, "whole_collection": true})
	})
	m.on(taskGrade, func(c call) llmtest.Reply {
		return grades(c, "", "", func(it item) (bool, string) { return strings.Contains(it.Text, "Nexa"), "about Nexa" })
	})
	m.on(taskGenerate, func(c call) llmtest.Reply { return say(fmt.Sprintf("Nexa AI [%d].", c.find("Nexa"))) })
	m.on(taskAudit, func(c call) llmtest.Reply { return audit("fully", true, "") })
	m.on(taskTransform, func(c call) llmtest.Reply { return queries() })
	coll := demoCommunities(t)
	for i := range coll.communities {
		coll.communities[i].Summary = ""
	}
	res, _ := ask(t, m.agent(agent.Config{}, nil, nil).WithCollection(coll), "What are the main topics across these documents about Nexa?")
	if m.count(taskGrade) == 0 || coll.reads != 1 {
		t.Errorf("grade calls %d, community reads %d: without summaries the passages are searched", m.count(taskGrade), coll.reads)
	}
	var said bool
	for _, e := range res.Trace {
		said = said || strings.Contains(e.Summary, "No summaries of the collection's topics")
	}
	if !said {
		t.Errorf("the trace does not say why the summaries were not used")
	}
}

func TestParticularQuestionNeverReadsCommunities(t *testing.T) {
	m := newModel(t)
	m.on(taskDecide, func(c call) llmtest.Reply { return decide(false) })
	m.on(taskDirect, func(c call) llmtest.Reply { return say("84.") })
	coll := demoCommunities(t)
	ask(t, m.agent(agent.Config{}, nil, nil).WithCollection(coll), "What is 12 times 7?")
	if coll.reads != 0 {
		t.Errorf("communities read %d times for a question that needs no documents", coll.reads)
	}
}
