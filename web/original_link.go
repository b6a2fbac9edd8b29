package web

import (
	"path"
	"strconv"
	"strings"
)

// OriginalURL is where a document's original file is served, opened at page (1-based) when the file is a
// PDF, whose viewers honour #page=N; page 0 opens it at its start.
func OriginalURL(docID, docName string, page int) string {
	u := "/documents/" + docID + "/original"
	if page > 0 && strings.EqualFold(path.Ext(docName), ".pdf") {
		u += "#page=" + strconv.Itoa(page)
	}
	return u
}

// PageLabel names the page a passage starts on the way its format does ("page 3", "slide 3", "sheet 3"),
// "" when it has none.
func PageLabel(docName string, page int) string {
	if page <= 0 {
		return ""
	}
	unit := "page"
	switch strings.ToLower(path.Ext(docName)) {
	case ".pptx":
		unit = "slide"
	case ".xlsx":
		unit = "sheet"
	}
	return unit + " " + strconv.Itoa(page)
}
