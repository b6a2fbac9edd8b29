package web

import "net/url"

// ChatPage is the view of /: the conversations, the open one's turns and the question form.
type ChatPage struct {
	Meta           Meta
	Conversations  []ConversationLink // one page of them
	ConvPager      Pager
	ConversationID string
	Title          string
	Turns          []TurnView
	Examples       []string // example questions built from the documents, shown while a conversation is empty
	HasDocuments   bool
	MaxQuestion    int
}

// ConversationLink is one conversation in the list.
type ConversationLink struct {
	ID, Title, When string
	Current         bool
}

// TurnView is one question with its answer, sources and trace; Running turns stream over SSE from
// /chat/stream/{RunID}.
type TurnView struct {
	ID             string
	ConversationID string
	Question       string
	AnswerMD       string // markdown of the answer
	Running        bool
	RunID          string
	Notice         string // stopped, failed, not found: said plainly
	NoticeBad      bool
	Badges         []Badge
	Citations      []CitationView
	Steps          []StepView
	Cost           string
	GraphURL       string // the graph behind this answer, when it used graph facts
	CitePrefix     string // id prefix of the citations, so [n] in the answer links to them
	// Retry offers to ask the question again (the answer failed, or its server stopped); CSRF is the token
	// its form sends without JavaScript.
	Retry bool
	CSRF  string
}

// StreamURL is where a running turn's answer streams from.
func (t TurnView) StreamURL() string {
	return "/chat/stream/" + url.PathEscape(t.RunID) + "?c=" + url.QueryEscape(t.ConversationID)
}

// StopURL stops a running turn's answer.
func (t TurnView) StopURL() string {
	return "/chat/stop/" + url.PathEscape(t.RunID) + "?c=" + url.QueryEscape(t.ConversationID)
}

// RetryURL asks a finished turn's question again.
func (t TurnView) RetryURL() string {
	return "/chat/retry/" + url.PathEscape(t.ID) + "?c=" + url.QueryEscape(t.ConversationID)
}

// Badge is a short label on an answer (grounding, web use).
type Badge struct{ Text, Kind string }

// CitationView is one source an answer cites as [N].
type CitationView struct {
	N          int
	Anchor     string
	Kind       string // chunk, fact, web
	DocName    string
	Section    string
	Snippet    string
	PassageURL string
	PageLabel  string // "page 3", "slide 3", "sheet 3": where the passage starts in the original
	// OriginalURL opens the uploaded file, at the passage's page for a PDF; "" for web sources.
	OriginalURL string
	Sentence    string
	Entities    []Link
	GraphURL    string
	Title       string
	WebURL      string
}

// Link is a label and where it leads.
type Link struct{ Text, URL string }

// StepView is one line of "How I found this".
type StepView struct {
	Kind     string // step, search, docs, hypothesis, queries, facts, web, error
	Title    string
	Items    []StepItem
	Dropped  []StepItem // passages read and set aside
	GraphURL string
}

// StepItem is a detail of a step: a passage kept and why, a query, a fact.
type StepItem struct {
	Text, Note, URL string
}
