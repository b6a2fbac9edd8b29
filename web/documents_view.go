package web

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
}

// DeleteConfirmPage asks before a document is deleted when the request came without JavaScript.
type DeleteConfirmPage struct {
	Meta Meta
	Doc  DocumentRow
}
