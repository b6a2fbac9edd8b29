package urlfetch

import (
	"net/url"
	"path"
	"strings"
)

// pageName makes a file name from the page's host and last path segment, with the extension of its
// content type: https://example.org/wiki/Graph_theory.php -> example.org-Graph_theory.html.
func pageName(u *url.URL, ext string) string {
	seg := path.Base(u.EscapedPath())
	if s, err := url.PathUnescape(seg); err == nil {
		seg = s
	}
	seg = strings.TrimSuffix(seg, path.Ext(seg))
	name := safeName(u.Hostname())
	if s := safeName(seg); s != "" {
		name += "-" + s
	}
	if len(name) > 100 {
		name = name[:100]
	}
	return name + ext
}

// safeName keeps letters, digits, dots, dashes and underscores, turning runs of anything else into one
// dash, so the name is a plain file name on every system.
func safeName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		ok := r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), ".-")
}
