// Package static holds the web app's stylesheet, scripts and the front-end libraries that vendor.sh copies
// from npm, embedded so the binary serves them itself and nothing loads from a CDN.
package static

import "embed"

// FS holds css/, js/ and vendor/ (never node_modules/).
//
//go:embed css js vendor
var FS embed.FS
