package handlers

import (
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/parse"
	"github.com/hopwise/hopwise/web"
)

// documentRow is a document as the list shows it; p, when set, is fresher progress of its current step.
func documentRow(d graphrag.Document, p *graphrag.Progress) web.DocumentRow {
	row := web.DocumentRow{
		ID: d.ID, Name: parse.DisplayName(d.Name), Title: parse.DisplayName(d.Title), State: string(d.Status), Size: web.Bytes(d.Size),
		Chunks: d.Chunks, Entities: d.Entities, Relations: d.Relations, FailedChunks: d.FailedChunks, Error: d.Error,
		NewVersion: d.Replaces != "",
	}
	switch d.Status {
	case graphrag.StatusEmbedding:
		row.Done, row.Total = d.ChunksEmbedded, d.Chunks
	case graphrag.StatusExtracting:
		row.Done, row.Total = d.ChunksExtracted, d.Chunks
	}
	if p != nil && p.Status == d.Status && p.Total > 0 {
		row.Done, row.Total = p.Done, p.Total
	}
	if row.Title == "" {
		row.Title = d.Name
	}
	row.Step = stepText(d.Status, row.Done, row.Total)
	if d.Status == graphrag.StatusFailed && row.Error == "" {
		row.Error = "The file could not be read."
	}
	return row
}

// stepText says what is happening to a document, in plain words.
func stepText(st graphrag.DocStatus, done, total int) string {
	count := ""
	if total > 0 {
		count = fmt.Sprintf(" (%d of %d)", done, total)
	}
	switch st {
	case graphrag.StatusQueued:
		return "Waiting to start"
	case graphrag.StatusParsing:
		return "Reading the file"
	case graphrag.StatusEmbedding:
		return "Indexing passages" + count
	case graphrag.StatusExtracting:
		return "Finding names and facts" + count
	case graphrag.StatusDone:
		return "Ready"
	case graphrag.StatusFailed:
		return "Failed"
	default:
		return string(st)
	}
}
