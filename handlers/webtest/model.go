package webtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// DelhiQuestion is the reference question of the design: its answer needs a rule from one document and a
// distance from another, found through the graph.
const DelhiQuestion = "How much can I receive if I am denied boarding on a Lufthansa flight from Delhi to Munich?"

// script answers every task of the agent's prompts (named by their "Task: " first line) and the
// extraction calls of ingestion. The Delhi-Munich question takes the two-hop path: the first pass keeps
// the EU261 tiers and asks for the distance, the second finds it; every other question gets a short
// answer citing the passages that share its words. tokenDelay slows the streamed answer down.
type script struct {
	gate         <-chan struct{} // when set, a streamed answer starts only once it is closed
	waiting      atomic.Int32    // streamed answers held at the gate
	tokenDelay   time.Duration
	extractDelay time.Duration
	summaryDelay time.Duration
	answers      map[string]string // question substring -> answer markdown, for tests that need a payload
}

func (s *script) reply(req llmtest.Request) (llmtest.Reply, bool) {
	if req.IsEmbed() {
		return llmtest.Reply{}, false
	}
	if rp, ok := graphragtest.Extraction(req); ok {
		rp.Delay = s.extractDelay
		return rp, true
	}
	sys := req.System()
	task, _, _ := strings.Cut(strings.TrimPrefix(sys, "Task: "), ".")
	if !strings.HasPrefix(sys, "Task: ") {
		return llmtest.Reply{}, false
	}
	user := req.LastUser()
	switch task {
	case "decide retrieval":
		return jsonReply(map[string]any{"retrieve": true, "queries": []string{}, "whole_collection": collectionQuestion.MatchString(question(user))}), true
	case "summarize community":
		rp := summarizeCommunity(user)
		rp.Delay = s.summaryDelay
		return rp, true
	case "answer about the collection":
		return s.stream(collectionOverview(user)), true
	case "condense follow-up":
		_, latest, _ := strings.Cut(user, "Latest message: ")
		return jsonReply(map[string]any{"question": strings.TrimSpace(latest)}), true
	case "hypothetical passage":
		return llmtest.Reply{Content: "A passage about " + question(user)}, true
	case "grade documents":
		return s.grade(user), true
	case "answer from sources":
		return s.generate(user), true
	case "audit answer":
		if strings.Contains(user, "Delhi") && !strings.Contains(user, "**600 EUR**") {
			return jsonReply(map[string]any{"grounded": "fully", "unsupported": []string{}, "useful": false,
				"critique": "It does not say which amount applies: the distance from Delhi to Munich is missing."}), true
		}
		return jsonReply(map[string]any{"grounded": "fully", "unsupported": []string{}, "useful": true, "critique": ""}), true
	case "plan sub-questions":
		if strings.Contains(user, "Delhi") {
			return jsonReply(map[string]any{"queries": []string{"distance between Delhi and Munich"}}), true
		}
		return jsonReply(map[string]any{"queries": []string{}}), true
	case "revise answer", "answer directly":
		return s.stream("I can only answer from what your documents say."), true
	}
	return llmtest.Reply{}, false
}

// collectionQuestion marks a question about the documents as a whole, which the decision sends to the
// community summaries.
var collectionQuestion = regexp.MustCompile(`(?i)\b(across|these documents|main (themes|topics))\b`)

// summarizeCommunity writes a topic's report from its prompt: titled by its first two names, summarised by
// its first facts.
func summarizeCommunity(user string) llmtest.Reply {
	var names, facts []string
	section := ""
	for _, line := range strings.Split(user, "\n") {
		switch {
		case strings.HasSuffix(line, ":") && !strings.HasPrefix(line, "- "):
			section = line
		case strings.HasPrefix(line, "- ") && section == "Names:":
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "- "), " (")
			name, _, _ = strings.Cut(name, ": ")
			names = append(names, name)
		case strings.HasPrefix(line, "- ") && section == "Facts:":
			facts = append(facts, strings.TrimPrefix(line, "- "))
		}
	}
	return jsonReply(map[string]string{"title": strings.Join(names[:min(2, len(names))], " and "),
		"summary": "A topic of " + strings.Join(names[:min(4, len(names))], ", ") + ". " + strings.Join(facts[:min(2, len(facts))], " ")})
}

// collectionOverview answers from topic summaries: one line a summary, cited.
func collectionOverview(user string) string {
	its := items(user)
	if len(its) == 0 {
		return "The documents' topics do not cover this question."
	}
	var b strings.Builder
	b.WriteString("The documents cover these topics:\n\n")
	for _, it := range its {
		title, _, _ := strings.Cut(it.text, ". ")
		fmt.Fprintf(&b, "- %s [%d]\n", strings.TrimSpace(title), it.n)
	}
	return b.String()
}

var dataFence = regexp.MustCompile(`(?s)<data n="(\d+)" from="([^"]*)">\n(.*?)\n</data>`)

type item struct {
	n    int
	text string
}

func items(user string) []item {
	var out []item
	for _, m := range dataFence.FindAllStringSubmatch(user, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, item{n, m[3]})
	}
	return out
}

func question(user string) string {
	for _, line := range strings.Split(user, "\n") {
		if q, ok := strings.CutPrefix(line, "Question: "); ok {
			return q
		}
	}
	return ""
}

func (s *script) grade(user string) llmtest.Reply {
	q := question(user)
	askedDistance := strings.Contains(user, "distance between Delhi and Munich")
	type verdict struct {
		N      int    `json:"n"`
		Useful bool   `json:"useful"`
		Reason string `json:"reason"`
	}
	var vs []verdict
	for _, it := range items(user) {
		v := verdict{N: it.n, Reason: "not about the question"}
		switch {
		case strings.Contains(q, "Delhi") && strings.Contains(it.text, "600 EUR") && strings.Contains(it.text, "3,500 km"):
			v.Useful, v.Reason = true, "EU261 amounts by flight distance"
		case strings.Contains(q, "Delhi") && strings.Contains(it.text, "Delhi") && (strings.Contains(it.text, "5921") || strings.Contains(it.text, "5,921")):
			v.Useful, v.Reason = askedDistance, "the distance from Munich to Delhi"
		case !strings.Contains(q, "Delhi") && sharesWord(q, it.text):
			v.Useful, v.Reason = true, "mentions what the question asks"
		}
		vs = append(vs, v)
	}
	hyp, missing := "The documents answer this directly.", ""
	if strings.Contains(q, "Delhi") {
		hyp, missing = "EU261 pays 250, 400 or 600 EUR depending on the flight distance; the distance from Delhi to Munich is needed.", "the distance between Delhi and Munich"
		if askedDistance {
			hyp, missing = "Delhi is 5,921 km from Munich, over 3,500 km, so the EU261 amount is 600 EUR.", ""
		}
	}
	return jsonReply(map[string]any{"documents": vs, "hypothesis": hyp, "missing": missing})
}

func sharesWord(q, text string) bool {
	for _, w := range strings.Fields(strings.ToLower(q)) {
		w = strings.Trim(w, "?.,!\"'“”")
		if len(w) > 4 && strings.Contains(strings.ToLower(text), w) {
			return true
		}
	}
	return false
}

func (s *script) generate(user string) llmtest.Reply {
	q := question(user)
	for needle, answer := range s.answers {
		if strings.Contains(q, needle) {
			return s.stream(answer)
		}
	}
	var tiers, dist int
	for _, it := range items(user) {
		if tiers == 0 && strings.Contains(it.text, "600 EUR") && strings.Contains(it.text, "3,500 km") {
			tiers = it.n
		}
		if dist == 0 && strings.Contains(it.text, "Delhi") && (strings.Contains(it.text, "5921") || strings.Contains(it.text, "5,921")) {
			dist = it.n
		}
	}
	switch {
	case strings.Contains(q, "Delhi") && dist > 0 && tiers > 0:
		return s.stream(fmt.Sprintf("You can receive **600 EUR**.\n\n- EU261 pays 600 EUR for flights over 3,500 km [%d].\n- Delhi is 5,921 km from Munich [%d].", tiers, dist))
	case strings.Contains(q, "Delhi") && tiers > 0:
		return s.stream(fmt.Sprintf("EU261 pays 250, 400 or 600 EUR depending on the distance [%d].", tiers))
	case len(items(user)) > 0:
		return s.stream("Here is what your documents say about it [1].")
	}
	return s.stream("Your documents do not say.")
}

func (s *script) stream(text string) llmtest.Reply {
	if s.gate != nil {
		s.waiting.Add(1)
		<-s.gate
		s.waiting.Add(-1)
	}
	return llmtest.Reply{Content: text, ChunkDelay: s.tokenDelay}
}

func jsonReply(v any) llmtest.Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return llmtest.Reply{Content: string(b)}
}
