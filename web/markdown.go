package web

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/a-h/templ"
	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown renders model output: raw HTML is never passed through (goldmark without WithUnsafe), images
// become plain links so no outside host is ever contacted, and the HTML is then sanitised by a strict
// allow-list policy. The Content-Security-Policy is the last line behind both.
var markdown = sync.OnceValues(func() (goldmark.Markdown, *bluemonday.Policy) {
	md := goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(imagesToLinks{}, 100))),
	)
	p := bluemonday.NewPolicy()
	p.AllowElements("p", "br", "hr", "em", "strong", "del", "code", "pre", "blockquote", "ul", "ol", "li",
		"h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "sup", "sub")
	p.AllowAttrs("start").Matching(bluemonday.Integer).OnElements("ol")
	p.AllowAttrs("href").OnElements("a")
	p.AllowURLSchemes("http", "https", "mailto")
	p.AllowRelativeURLs(true)
	p.RequireParseableURLs(true)
	p.RequireNoFollowOnFullyQualifiedLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	return md, p
})

// imagesToLinks replaces every image by a link to it labelled with its alt text, so rendering an answer
// never makes the browser fetch anything.
type imagesToLinks struct{}

func (imagesToLinks) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	var images []*ast.Image
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if img, ok := n.(*ast.Image); ok && entering {
			images = append(images, img)
		}
		return ast.WalkContinue, nil
	})
	for _, img := range images {
		link := ast.NewLink()
		link.Destination = img.Destination
		link.Title = img.Title
		label := "image"
		if alt := strings.TrimSpace(inlineText(img, reader.Source())); alt != "" {
			label = "image: " + alt
		}
		link.AppendChild(link, ast.NewString([]byte(label)))
		img.Parent().ReplaceChild(img.Parent(), img, link)
	}
}

// inlineText is the plain text below n.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// RenderMarkdown turns markdown into safe HTML. citePrefix, when set, makes every [n] marker a link to the
// element with id citePrefix+n.
func RenderMarkdown(src, citePrefix string) string {
	md, policy := markdown()
	if citePrefix != "" {
		src = linkCitations(src, citePrefix)
	}
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		return "<p>" + templ.EscapeString(src) + "</p>"
	}
	return policy.Sanitize(buf.String())
}

// Markdown is the component of RenderMarkdown's output.
func Markdown(src, citePrefix string) templ.Component {
	return templ.Raw(RenderMarkdown(src, citePrefix))
}

var citeMarker = regexp.MustCompile(`\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]`)

// linkCitations rewrites [1] and [1, 2] into markdown links to the citations; a marker that is the text of
// a markdown link (followed by "(") is left alone.
func linkCitations(src, prefix string) string {
	var b strings.Builder
	last := 0
	for _, m := range citeMarker.FindAllStringSubmatchIndex(src, -1) {
		if m[1] < len(src) && (src[m[1]] == '(' || src[m[1]] == ':') {
			continue
		}
		b.WriteString(src[last:m[0]])
		for i, n := range strings.Split(src[m[2]:m[3]], ",") {
			n = strings.TrimSpace(n)
			if _, err := strconv.Atoi(n); err != nil {
				continue
			}
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(`[\[` + n + `\]](#` + prefix + n + `)`)
		}
		last = m[1]
	}
	b.WriteString(src[last:])
	return b.String()
}
