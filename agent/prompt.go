package agent

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"

	"github.com/hopwise/hopwise/llm"
)

// System prompts, one job each. Their first line ("Task: ...") names the job; logs and scripted test
// models rely on it.
var (
	//go:embed prompts/decide.txt
	promptDecide string
	//go:embed prompts/direct.txt
	promptDirect string
	//go:embed prompts/condense.txt
	promptCondense string
	//go:embed prompts/hyde.txt
	promptHyDE string
	//go:embed prompts/grade.txt
	promptGrade string
	//go:embed prompts/generate.txt
	promptGenerate string
	//go:embed prompts/audit.txt
	promptAudit string
	//go:embed prompts/revise.txt
	promptRevise string
	//go:embed prompts/transform.txt
	promptTransform string
)

// answerTokens caps each step's answer: enough for what the step asks, so a small model that rambles
// cannot spend the run's time and tokens on one call.
var answerTokens = map[string]int{
	"decide": 300, "condense": 200, "hyde": 300, "grade": 900, "transform": 300, "audit": 600,
	"direct": 900, "generate": 1200, "revise": 1200, "answer": 500, "plan": 200,
}

func request(purpose, system, user string) llm.Request {
	return llm.Request{Purpose: purpose, MaxTokens: answerTokens[purpose], Messages: []llm.Message{
		{Role: "system", Content: strings.TrimSpace(system)},
		{Role: "user", Content: user},
	}}
}

// fenceTag matches the tags that delimit quoted material, so quoted text cannot close its fence early
// or open one of its own.
var fenceTag = regexp.MustCompile(`(?i)<\s*/?\s*(data|answer|notes|conversation)\b[^>]*>`)

// quote makes text safe to put between fences: fence tags inside it are defused.
func quote(text string) string {
	return fenceTag.ReplaceAllStringFunc(strings.TrimSpace(text), func(tag string) string {
		return "[" + strings.Trim(tag, "<>") + "]"
	})
}

// unfence removes the fence tags a model copied from its prompt into an answer (small models echo
// them, "<data n="2" from="...">" on a line of its own), and the lines they leave empty or with only a
// citation marker.
func unfence(text string) string {
	if !fenceTag.MatchString(text) {
		return text
	}
	lines := strings.Split(text, "\n")
	out := lines[:0]
	for _, line := range lines {
		if fenceTag.MatchString(line) {
			line = fenceTag.ReplaceAllString(line, "")
			if strings.TrimSpace(citeMarker.ReplaceAllString(line, "")) == "" {
				continue
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// attr makes s safe as a double-quoted attribute of a fence.
func attr(s string) string {
	return strings.NewReplacer(`"`, "'", "\n", " ", "<", "‹", ">", "›").Replace(s)
}

// writeData writes one fenced, numbered piece of material.
func writeData(b *strings.Builder, n int, from, text string) {
	fmt.Fprintf(b, "<data n=\"%d\" from=\"%s\">\n%s\n</data>\n", n, attr(from), quote(text))
}

// writeSources writes the numbered evidence an answer is written from and checked against.
func writeSources(b *strings.Builder, srcs []source) {
	b.WriteString("Sources:\n")
	for i, s := range srcs {
		writeData(b, i+1, s.origin(), s.text())
	}
}

// writeList writes a titled "- " list; items are model output, so fence tags in them are defused.
func writeList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString(title + ":\n")
	for _, it := range items {
		b.WriteString("- " + oneLine(quote(it)) + "\n")
	}
}

// writeNote writes one titled line of notes, nothing when text is empty.
func writeNote(b *strings.Builder, title, text string) {
	if text = oneLine(quote(text)); text != "" {
		b.WriteString(title + ": " + text + "\n")
	}
}

// writeNotes fences what models wrote about quoted material (a hypothesis, an audit's findings): it may
// repeat that material, instructions hidden in it included, so it is quoted as data too. Empty notes
// write nothing.
func writeNotes(b *strings.Builder, notes string) {
	if notes != "" {
		b.WriteString("<notes>\n" + notes + "</notes>\n")
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip shortens s to about n bytes at a word boundary, for summaries and snippets.
func clip(s string, n int) string {
	s = oneLine(s)
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
	}
	for cut > 0 && !validCut(s, cut) {
		cut--
	}
	return s[:cut] + "…"
}

func validCut(s string, i int) bool { return i >= len(s) || s[i]&0xC0 != 0x80 }
