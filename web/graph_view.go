package web

// GraphPage is the view of /graph.
type GraphPage struct {
	Meta    Meta
	Query   string
	Results []EntityView // entities matching Query
	Start   []string     // keys of the entities drawn first
	Facts   []string     // relation IDs of "the graph behind this answer"; empty: whole neighbourhoods
	Edges   []EdgeView   // what the canvas shows, also as a list for people who do not use the drawing
	Message string
}

// EntityView is an entity in search results and in the detail panel.
type EntityView struct {
	Key, Name, Type, Description string
	Aliases                      []string
	Docs                         []DocLink
	Sources                      []SourceView
}

// EdgeView is a relation in the list and the detail panel.
type EdgeView struct {
	ID, Type, Description  string
	Source, Target         string // entity keys
	SourceName, TargetName string
	Values                 []Setting
	Docs                   []DocLink
	Sources                []SourceView
}

// DocLink links to a document.
type DocLink struct{ ID, Name string }

// SourceView is a passage something was found in, linking to its place in its document.
type SourceView struct {
	DocID, DocName, ChunkID, Section, Text string
}

// PassageURL is where a passage is shown: its document's page, scrolled to it.
func PassageURL(docID, chunkID string) string { return "/documents/" + docID + "#chunk-" + chunkID }
