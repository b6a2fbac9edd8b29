// Package evaltest holds a scripted model for evaluations and benchmarks that need the agent to behave
// like a careful but literal reader, without a language model: Reader answers each of the agent's prompts
// from the text the prompt gives it (the question, the queries, the numbered sources), never from
// knowledge of a particular question or corpus.
package evaltest

import (
	"encoding/json"
	"strings"

	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// Install scripts srv as the reader for the agent's prompts and as graphragtest's deterministic
// extraction model for ingestion.
func Install(srv *llmtest.Server) {
	srv.Handle(graphragtest.Extraction)
	srv.Handle(Reader)
}

// Reader answers the agent's requests, recognised by the first line of their system prompt
// ("Task: grade documents."); ok is false for any other request.
//
//   - decide retrieval: search whenever the question has content words; the expansion queries are the
//     question's content words and its names, each as one query; the whole collection when the question
//     says so ("across", "these documents", "main themes", ...).
//   - summarize community: the title names the community's first two names, the summary is the sentences
//     of its passages that name one of its names.
//   - grade documents: a document is useful when it shares a name and a content word with the question,
//     or most of the words of one of the queries; the hypothesis names the question's words no useful
//     document mentions.
//   - answer from sources: the answer is the units (sentences, a sentence with its list, table rows read
//     with their header) that best cover the question's words, starting from one that mentions a name of
//     the question together with what is asked about it, then units that link a name those introduce
//     back to the question (Lisbon in "headquartered in Lisbon" to "distance from Munich: Lisbon"); each
//     unit cites its source. Without such a unit, or when a name of the question is in no source, the
//     answer says the sources do not answer.
//   - audit answer: a claim is supported when every word of it is in the sources; the answer is useful when
//     it mentions every name of the question and something asked about them.
//   - plan sub-questions: ask for the question's words not found yet, for the names the best passage
//     introduced, and for what the critique says is missing.
func Reader(req llmtest.Request) (llmtest.Reply, bool) {
	if req.IsEmbed() {
		return llmtest.Reply{}, false
	}
	first, _, _ := strings.Cut(req.System(), "\n")
	task := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(first), "Task: "), ".")
	p := prompt(req.LastUser())
	switch task {
	case "decide retrieval":
		return decide(p), true
	case "answer directly":
		return llmtest.Reply{Content: "I cannot answer this question without information I do not have."}, true
	case "condense follow-up":
		return jsonReply(map[string]string{"question": p.line("Latest message: ")}), true
	case "hypothetical passage":
		return hyde(p), true
	case "grade documents":
		return grade(p), true
	case "answer from sources":
		return llmtest.Reply{Content: compose(p.line("Question: "), p.items())}, true
	case "audit answer":
		return audit(p), true
	case "revise answer":
		return revise(p), true
	case "plan sub-questions":
		return plan(p), true
	case "answer about the collection":
		return llmtest.Reply{Content: overview(p.items())}, true
	case "summarize community":
		return summarize(req.LastUser()), true
	}
	return llmtest.Reply{}, false
}

func jsonReply(v any) llmtest.Reply {
	b, err := json.Marshal(v)
	if err != nil {
		return llmtest.Reply{Status: 500, ErrorMessage: err.Error()}
	}
	return llmtest.Reply{Content: string(b)}
}

func decide(p prompt) llmtest.Reply {
	q := p.line("Question: ")
	names, content := split(terms(q))
	queries := []string{}
	if len(content) >= 2 {
		queries = append(queries, strings.Join(texts(content), " "))
	}
	if len(names) > 0 && len(content) > 0 {
		queries = append(queries, strings.Join(texts(names), " "))
	}
	return jsonReply(map[string]any{"retrieve": len(names)+len(content) > 0, "queries": queries, "whole_collection": wholeCollection(q)})
}

func hyde(p prompt) llmtest.Reply {
	names, content := split(terms(p.line("Question: ")))
	return llmtest.Reply{Content: "This passage is about " + strings.Join(texts(names), " ") + ": it states the " +
		strings.Join(texts(content), ", ") + "."}
}

// relevant reports whether text answers to query: a name and a content word of it when it has both,
// else at least half of its words.
func relevant(text, query string) bool {
	ts := terms(query)
	names, content := split(ts)
	cn, cc := covered(names, text), covered(content, text)
	if len(names) > 0 && len(content) > 0 {
		return len(cn) > 0 && len(cc) > 0
	}
	return 2*(len(cn)+len(cc)) >= len(ts) && len(ts) > 0
}

type verdict struct {
	N      int    `json:"n"`
	Useful bool   `json:"useful"`
	Reason string `json:"reason"`
}

func grade(p prompt) llmtest.Reply {
	q := p.line("Question: ")
	queries := p.list("Queries asked so far")
	qt := terms(q)
	var vs []verdict
	var useful []string
	for _, it := range p.items() {
		ok := relevant(it.text, q)
		for _, sub := range queries {
			ok = ok || relevant(it.text, sub)
		}
		reason := "does not mention what is asked"
		if ok {
			reason = "mentions " + strings.Join(texts(covered(qt, it.text)), ", ")
			useful = append(useful, it.text)
		}
		vs = append(vs, verdict{N: it.n, Useful: ok, Reason: reason})
	}
	found := covered(qt, strings.Join(useful, "\n"))
	missing := minus(qt, found)
	hypothesis := "The documents state what the question asks about (" + strings.Join(texts(found), ", ") + ")."
	need := ""
	if len(missing) > 0 {
		need = "what the documents say about " + strings.Join(texts(missing), ", ")
		hypothesis = "The answer depends on " + strings.Join(texts(found), ", ") + "; still needed: " + need + "."
		if len(found) == 0 {
			hypothesis = "Nothing found yet; needed: " + need + "."
		}
	}
	return jsonReply(map[string]any{"documents": vs, "hypothesis": hypothesis, "missing": need})
}
