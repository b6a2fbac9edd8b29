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

// markdown renders model output: raw HTML is never passed through (goldmark without WithUnsafe), every
// link or image that leads outside Hopwise becomes plain text showing its full address (outsideLinksToText),
// and the HTML is then sanitised by a strict allow-list policy. The Content-Security-Policy is the last
// line behind all three.
var markdown = sync.OnceValues(func() (goldmark.Markdown, *bluemonday.Policy) {
	md := goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(outsideLinksToText{}, 100))),
	)
	p := bluemonday.NewPolicy()
	p.AllowElements("p", "br", "hr", "em", "strong", "del", "code", "pre", "blockquote", "ul", "ol", "li",
		"h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "sup", "sub")
	p.AllowAttrs("start").Matching(bluemonday.Integer).OnElements("ol")
	p.AllowAttrs("href").Matching(inAppHref).OnElements("a")
	p.AllowRelativeURLs(true)
	p.RequireParseableURLs(true)
	return md, p
})

// inAppHref is what the policy lets a link point at: a fragment or a path of this server, never a
// scheme or another host (not "//host", nor "/\\host", which browsers read as "//host").
var inAppHref = regexp.MustCompile(`^(#|/([^/\\]|$))[^\\\s\x00-\x1f]*$`)

// outsideLinksToText turns every link whose destination is not in the app, every autolink and every
// image into text: the label, then the full address in brackets, so a person sees where it would
// have led and no click or image load reaches another host. An answer the model wrote after reading an
// injected document ("[Claim your money here](http://evil.example/...)", "[9](http://evil.example/)"
// dressed as a citation, a tracking image) can then neither lure a click nor leak anything. Citations
// and in-app links (/documents/...) stay links.
type outsideLinksToText struct{}

func (outsideLinksToText) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	var outside []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := n.(type) {
		case *ast.Link:
			if !inAppHref.Match(l.Destination) {
				outside = append(outside, n)
			}
		case *ast.Image, *ast.AutoLink:
			outside = append(outside, n)
		}
		return ast.WalkContinue, nil
	})
	src := reader.Source()
	for i := len(outside) - 1; i >= 0; i-- { // inner nodes first: an image inside a link
		n := outside[i]
		label, dest := strings.TrimSpace(inlineText(n, src)), ""
		switch l := n.(type) {
		case *ast.Link:
			dest = string(l.Destination)
		case *ast.Image:
			dest, label = string(l.Destination), "image: "+label
			if label == "image: " {
				label = "image"
			}
		case *ast.AutoLink:
			dest, label = string(l.URL(src)), ""
		}
		replaceWithText(n, label, dest)
	}
}

// replaceWithText puts the text "label (dest)" in n's place; just dest when the label is empty or the
// address itself.
func replaceWithText(n ast.Node, label, dest string) {
	parent := n.Parent()
	if parent == nil {
		return
	}
	t := dest
	if label != "" && label != dest {
		t = label + " (" + dest + ")"
	}
	str := ast.NewString([]byte(t))
	str.SetRaw(true) // HTML-escaped, but entities and backslashes in the address are not read again
	parent.ReplaceChild(parent, n, str)
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
