package agent

import "time"

// EventType names what an Event reports.
type EventType string

// Event types, in the order a run usually emits them.
const (
	EventNodeStarted  EventType = "node_started"  // a step began (Node, Summary)
	EventNodeFinished EventType = "node_finished" // a step ended (Node, Summary says what it found)
	EventQueries      EventType = "queries"       // new search queries (Queries)
	EventDocuments    EventType = "documents"     // passages and web pages graded, kept or dropped (Docs)
	EventFacts        EventType = "facts"         // graph facts kept as evidence (Facts)
	EventHypothesis   EventType = "hypothesis"    // how the question can be answered, what is missing
	EventWeb          EventType = "web"           // the web was searched with the question (Docs: results)
	EventToken        EventType = "token"         // a piece of the streamed answer (Delta)
	EventAnswerReset  EventType = "answer_reset"  // the streamed text restarts: a new answer or a revision follows
	EventUsage        EventType = "usage"         // cost so far (Usage)
	EventAnswer       EventType = "answer"        // the final answer (Result)
	EventError        EventType = "error"         // something failed (Error); a run may continue after it
	// EventQueued: the model is busy and the question waits for its turn (Queue: how many are served first,
	// then that the wait is over). Not kept in the trace; Usage.Queued sums the waits.
	EventQueued EventType = "queued"
)

// Node names, as in Event.Node.
const (
	NodeCondense  = "condense"
	NodeDecide    = "decide_retrieval"
	NodeDirect    = "direct_answer"
	NodeRetrieve  = "retrieve"
	NodeGrade     = "grade_documents"
	NodeGenerate  = "generate"
	NodeAudit     = "audit"
	NodeTransform = "transform_query"
	NodeWeb       = "web_search"
	NodeRevise    = "revise"
	NodeAttribute = "attribute" // sources matched to an answer that cites none
	NodeNotFound  = "not_found"
)

// Event is one step of a run, for people (Summary is one plain-language line) and for programs.
type Event struct {
	Type       EventType    `json:"type"`
	Node       string       `json:"node,omitempty"`
	Summary    string       `json:"summary,omitempty"`
	At         time.Time    `json:"at"`
	Docs       []DocVerdict `json:"docs,omitempty"`
	Hypothesis string       `json:"hypothesis,omitempty"`
	Queries    []string     `json:"queries,omitempty"`
	Facts      []FactRef    `json:"facts,omitempty"`
	Delta      string       `json:"delta,omitempty"`
	Usage      *Usage       `json:"usage,omitempty"`
	Result     *Result      `json:"result,omitempty"`
	Error      string       `json:"error,omitempty"`
	Queue      *Queue       `json:"queue,omitempty"`
}

// Queue is a question's place in line for the model (llm.Place): while Waiting, Ahead other questions (or
// other work, such as reading documents) get a model call before it; when the wait is over, Waiting is
// false and Waited says how long it lasted.
type Queue struct {
	Waiting bool          `json:"waiting"`
	Ahead   int           `json:"ahead"`
	Waited  time.Duration `json:"waited,omitempty"`
}

// DocVerdict is a passage or web page and what grading made of it.
type DocVerdict struct {
	ID      string `json:"id"` // chunk ID, or the URL of a web page
	DocName string `json:"doc_name,omitempty"`
	Snippet string `json:"snippet,omitempty"`
	Useful  bool   `json:"useful"`
	Reason  string `json:"reason,omitempty"`
	Web     bool   `json:"web,omitempty"`
	URL     string `json:"url,omitempty"`
}

// FactRef is a graph fact: a relation as a sentence, its entities and the chunks it was extracted from.
type FactRef struct {
	ID       string   `json:"id"`
	Sentence string   `json:"sentence"`
	Entities []string `json:"entities,omitempty"`
	ChunkIDs []string `json:"chunk_ids,omitempty"`
}

// Usage is what a run cost. Rounds counts model calls that had to wait for one another: calls made
// concurrently (grading batches, HyDE beside the decision) are one round. Queued is the part of Elapsed
// spent waiting in line while the model was busy with other questions.
type Usage struct {
	Calls            int           `json:"calls"`
	Rounds           int           `json:"rounds"`
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	Elapsed          time.Duration `json:"elapsed"`
	Queued           time.Duration `json:"queued,omitempty"`
}

// Citation is a source an answer cites as [N]: a passage (chunk), a graph fact or a web page.
type Citation struct {
	N        int      `json:"n"`
	Kind     string   `json:"kind"` // chunk, fact or web
	ChunkID  string   `json:"chunk_id,omitempty"`
	DocID    string   `json:"doc_id,omitempty"`
	DocName  string   `json:"doc_name,omitempty"`
	Section  string   `json:"section,omitempty"`
	Snippet  string   `json:"snippet,omitempty"`
	Page     int      `json:"page,omitempty"` // the PDF page, PPTX slide or XLSX sheet the passage starts on
	FactID   string   `json:"fact_id,omitempty"`
	Sentence string   `json:"sentence,omitempty"`
	Entities []string `json:"entities,omitempty"`
	URL      string   `json:"url,omitempty"`
	Title    string   `json:"title,omitempty"`
}

// Citation kinds.
const (
	KindChunk = "chunk"
	KindFact  = "fact"
	KindWeb   = "web"
)

// Grounding verdicts of an audit.
const (
	GroundedFully     = "fully"
	GroundedPartially = "partially"
	GroundedNot       = "not"
)

// Result is the outcome of a run. Grounded is empty when the answer was not audited (direct answers,
// refusals, audit off, or an audit that failed); Useful is the audit's verdict.
type Result struct {
	Question   string     `json:"question"`
	Standalone string     `json:"standalone,omitempty"` // the question the loop worked on (follow-ups condensed)
	Answer     string     `json:"answer"`
	Citations  []Citation `json:"citations,omitempty"`
	Grounded   string     `json:"grounded,omitempty"`
	Useful     bool       `json:"useful"`
	NotFound   bool       `json:"not_found,omitempty"` // an honest "the sources do not answer this"
	UsedWeb    bool       `json:"used_web,omitempty"`  // web results were among the evidence
	Direct     bool       `json:"direct,omitempty"`    // answered from general knowledge, no retrieval
	// Attributed: the model cited no source, so the citations were matched by wording; Unmatched are the
	// answer's sentences that match no source (or state a number none contains).
	Attributed bool     `json:"attributed,omitempty"`
	Unmatched  []string `json:"unmatched,omitempty"`
	Usage      Usage    `json:"usage"`
	Trace      []Event  `json:"trace,omitempty"` // every event but the tokens
}
