package evaltest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hopwise/hopwise/llm/llmtest"
)

// collectionWords mark a question about the documents as a whole; the scripted reader routes those to the
// community summaries as a literal reader of the question would.
var collectionWords = regexp.MustCompile(`(?i)\b(across|all (of )?(the|these|my|our) documents|these documents|the documents as a whole|the collection|overall|main (themes|topics|risks|points|subjects))\b`)

func wholeCollection(question string) bool { return collectionWords.MatchString(question) }

// summarize writes a community's report from its prompt alone: the title names its two most related names;
// the summary is the passages' sentences that name one of the community's names, in order, at most four,
// each ending with the passage's document name as it was given.
func summarize(user string) llmtest.Reply {
	p := prompt(user)
	var names []string
	for _, l := range p.list("Names") {
		name, _, _ := strings.Cut(l, " (")
		name, _, _ = strings.Cut(name, ": ")
		if name = strings.TrimSpace(name); name != "" {
			names = append(names, name)
		}
	}
	title := strings.Join(names[:min(2, len(names))], " and ")
	var picked []string
	_, passages, _ := strings.Cut(user, "\nPassages:\n")
	for _, s := range passageSentences(passages) {
		if len(picked) == 4 {
			break
		}
		for _, n := range names {
			if strings.Contains(strings.ToLower(s), strings.ToLower(n)) {
				picked = append(picked, s)
				break
			}
		}
	}
	if len(picked) == 0 {
		picked = p.list("Facts")[:min(3, len(p.list("Facts")))]
	}
	return jsonReply(map[string]string{"title": title, "summary": strings.Join(picked, " ")})
}

// passageSentences are the sentences of the passages, without the "[n] from ..." lines that introduce
// each passage and without markdown markers.
func passageSentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.Trim(line, "|#*- "))
		if line != "" && !strings.HasPrefix(line, "[") {
			out = append(out, sentences(line)...)
		}
	}
	return out
}

// overview answers a question about the whole collection as a literal reader of topic summaries would:
// each summary's title and first sentence, cited.
func overview(items []item) string {
	if len(items) == 0 {
		return "The documents' topics do not cover this question."
	}
	var b strings.Builder
	b.WriteString("The documents cover these topics:\n\n")
	for _, it := range items {
		first := it.text
		if s := sentences(it.text); len(s) > 1 {
			first = s[0] + " " + s[1]
		}
		fmt.Fprintf(&b, "- %s [%d]\n", strings.TrimSpace(first), it.n)
	}
	return b.String()
}
