package web

import (
	"net/url"
	"strings"
)

// DocumentsPage is the view of /documents.
type DocumentsPage struct {
	Meta    Meta
	Docs    []DocumentRow // one page of them
	Pager   Pager
	Results []UploadResult // set after an upload sent without JavaScript
	Live    bool           // some document is still being processed: the list listens for progress
	MaxFile string         // largest file accepted, for people ("25.0 MB")
	Accept  string         // file input accept attribute
}

// DocumentRow is one document in the list, or one progress update of it.
type DocumentRow struct {
	ID, Name, Title string
	State           string // queued, parsing, embedding, extracting, done, failed
	Step            string // what is happening, in plain words
	Done, Total     int    // progress of the current step
	Size            string
	Chunks          int
	Entities        int
	Relations       int
	FailedChunks    int
	Error           string
	// NewVersion: the document replaces another once read; Replaced: a new version of it is being read,
	// so its row listens for the progress that removes it.
	NewVersion, Replaced bool
}

// EventsURL is the progress stream of a list: it names the rows being replaced, so the stream removes
// those whose replacement finished before it opened.
func EventsURL(docs []DocumentRow) string {
	var ids []string
	for _, d := range docs {
		if d.Replaced {
			ids = append(ids, d.ID)
		}
	}
	if len(ids) == 0 {
		return "/documents/events"
	}
	return "/documents/events?replaced=" + url.QueryEscape(strings.Join(ids, ","))
}

// Working reports whether the document is still being processed.
func (d DocumentRow) Working() bool { return d.State != "done" && d.State != "failed" }

// Retryable reports whether something in the document failed that a retry could fix: the whole job, or
// the extraction of some passages.
func (d DocumentRow) Retryable() bool {
	return d.State == "failed" || d.State == "done" && d.FailedChunks > 0
}

// UploadResult says what became of one uploaded file.
type UploadResult struct {
	Name    string
	Kind    string // ok, same, bad
	Message string
}

// DocumentPage is the view of /documents/{id}: the document's passages in order.
type DocumentPage struct {
	Meta   Meta
	Doc    DocumentRow
	Chunks []ChunkView
}

// ChunkView is one passage of a document.
type ChunkView struct {
	ID      string
	Ordinal int
	Section string
	Text    string
	Failed  string // why its extraction failed, if it did
	Page    string // "page 3", "slide 3", "sheet 3": where it starts in the original; "" for formats without pages
	PageURL string // the original opened there
}

// DeleteConfirmPage asks before a document is deleted when the request came without JavaScript.
type DeleteConfirmPage struct {
	Meta Meta
	Doc  DocumentRow
}
