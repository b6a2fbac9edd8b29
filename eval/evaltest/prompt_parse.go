package evaltest

import (
	"regexp"
	"strconv"
	"strings"
)

// prompt is the user message of one agent request, read the way the agent writes it (agent/prompt.go):
// "Question: ..." lines, titled "- " lists, and numbered material between <data> fences.
type prompt string

// item is one numbered piece of material.
type item struct {
	n          int
	from, text string
}

var dataFence = regexp.MustCompile(`(?s)<data n="(\d+)" from="([^"]*)">\n(.*?)\n</data>`)

func (p prompt) items() []item {
	var out []item
	for _, m := range dataFence.FindAllStringSubmatch(string(p), -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, item{n: n, from: m[2], text: m[3]})
	}
	return out
}

// line returns the rest of the first line starting with prefix, or "".
func (p prompt) line(prefix string) string {
	for _, l := range strings.Split(string(p), "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// list returns the "- " lines under the line title+":".
func (p prompt) list(title string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(string(p), "\n") {
		switch {
		case l == title+":":
			in = true
		case in && strings.HasPrefix(l, "- "):
			out = append(out, l[2:])
		case in:
			return out
		}
	}
	return out
}

// answer is the draft between <answer> fences.
func (p prompt) answer() string {
	s := string(p)
	i := strings.Index(s, "<answer>\n")
	j := strings.LastIndex(s, "\n</answer>")
	if i < 0 || j < i {
		return ""
	}
	return s[i+len("<answer>\n") : j]
}

// citation matches [n] markers.
var citation = regexp.MustCompile(`\s*\[\d+(?:\s*[,;]\s*\d+)*\]`)

func stripCitations(s string) string { return citation.ReplaceAllString(s, "") }
