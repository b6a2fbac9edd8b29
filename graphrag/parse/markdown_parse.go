package parse

import (
	"io"
	"strings"
)

// parseMarkdown keeps a Markdown file as it is, minus any YAML ("---") or
// TOML ("+++") front matter.
func parseMarkdown(name string, r io.Reader, lim Limits) (Parsed, error) {
	s, err := readText(r, lim.MaxBytes)
	if err != nil {
		return Parsed{}, err
	}
	body, front := stripFrontMatter(s)
	title := markdownTitle(body)
	if title == "" {
		title = frontMatterTitle(front)
	}
	if title == "" {
		title = titleFromName(name)
	}
	return Parsed{Title: title, Format: "markdown", Markdown: body}, nil
}

// stripFrontMatter splits a leading front matter block from the body. The
// block must open on the first line and close with the same fence ("..."
// also closes YAML); without a closing fence nothing is stripped.
func stripFrontMatter(s string) (body, front string) {
	first, rest, ok := strings.Cut(s, "\n")
	fence := strings.TrimRight(first, " \t")
	if !ok || fence != "---" && fence != "+++" {
		return s, ""
	}
	for off := 0; off < len(rest); {
		line, _, _ := strings.Cut(rest[off:], "\n")
		end := off + len(line) + 1
		if t := strings.TrimRight(line, " \t"); t == fence || fence == "---" && t == "..." {
			return rest[min(end, len(rest)):], rest[:off]
		}
		off = end
	}
	return s, ""
}

// markdownTitle is the text of the first level-1 ATX heading outside code fences.
func markdownTitle(s string) string {
	fence := ""
	for line := range strings.Lines(s) {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		if len(line)-len(strings.TrimLeft(line, " ")) > 3 {
			continue
		}
		if t == "#" || strings.HasPrefix(t, "# ") || strings.HasPrefix(t, "#\t") {
			h := strings.TrimSpace(strings.TrimLeft(t, "#"))
			h = strings.TrimSpace(strings.TrimRight(h, "#"))
			if h != "" {
				return cleanTitle(h)
			}
		}
	}
	return ""
}

// frontMatterTitle reads a top-level `title: ...` or `title = "..."` entry.
func frontMatterTitle(front string) string {
	for line := range strings.Lines(front) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			k, v, ok = strings.Cut(line, "=")
		}
		if ok && strings.TrimSpace(k) == "title" && k == strings.TrimLeft(k, " \t") {
			return cleanTitle(strings.Trim(strings.TrimSpace(v), `"'`))
		}
	}
	return ""
}
