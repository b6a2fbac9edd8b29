package handlers

import (
	"github.com/hopwise/hopwise/apiv1"
)

var (
	pageQuery = []apiParam{
		{Name: "offset", Type: "integer", Description: "items to skip (default 0)"},
		{Name: "limit", Type: "integer", Description: "items to return (default 50, at most 200)"},
	}
	askStream = "With Accept: text/event-stream: server-sent events named by the agent's event types (node_started, " +
		"queries, documents, facts, token, usage, answer, error, ...), each's data the event as JSON and its id the number of the " +
		"run's event, then \"done\" with the answer as JSON. The response's Content-Location is the turn's events " +
		"(GET /api/v1/conversations/{id}/turns/{turn}/events): after a dropped connection, any Hopwise process sharing the store " +
		"streams the rest from there, from the event after Last-Event-ID. The answer goes on while a stream follows it and is " +
		"cancelled 10 s after the last one left."
)

type uploadJSON struct {
	Files []uploaded `json:"files"`
}

type entitiesJSON struct {
	Entities []apiv1.Entity `json:"entities"`
}

// jsonRPCMessage is a message of MCP's JSON-RPC 2.0.
type jsonRPCMessage struct {
	JSONRPC string         `json:"jsonrpc" jsonschema:"2.0"`
	ID      any            `json:"id,omitempty"`
	Method  string         `json:"method,omitempty" jsonschema:"initialize, tools/list, tools/call, ..."`
	Params  map[string]any `json:"params,omitempty"`
	Result  map[string]any `json:"result,omitempty"`
	Error   map[string]any `json:"error,omitempty"`
}

type legacyDocumentsJSON struct {
	Documents []apiv1.Document `json:"documents"`
}

type legacyEntitiesJSON struct {
	Entities []nodeJSON `json:"entities"`
}

type legacyNeighborhoodJSON struct {
	Nodes []nodeJSON `json:"nodes"`
	Edges []edgeJSON `json:"edges"`
}

// apiOperations describes every route under /api/ and /v1/ and /mcp; TestOpenAPIDescribesEveryRoute holds
// this list and the router to each other.
func apiOperations() []apiOp {
	return []apiOp{
		{Method: "GET", Path: "/api/v1/openapi.json", Tag: "meta", Summary: "This description", Result: map[string]any{}, Account: true},
		{Method: "DELETE", Path: "/api/v1/workspaces/:id", Tag: "workspaces", Summary: "Delete a workspace with everything in it (admins)",
			Description: "Removes the workspace's documents, passages, graph, conversations, runs and jobs, its memberships and the tokens " +
				"limited to it; the audit log keeps what happened in it. confirm must repeat the ID; the default workspace is never deleted (400).",
			Query:  []apiParam{{Name: "confirm", Type: "string", Required: true, Description: "the workspace's ID again"}},
			Status: 204, Account: true},
		{Method: "GET", Path: "/api/v1/status", Tag: "meta", Summary: "What Hopwise depends on and whether it answers", Result: Status{}},

		{Method: "GET", Path: "/api/v1/documents", Tag: "documents", Summary: "List the documents, newest first, a page at a time",
			Query: pageQuery, Result: apiv1.DocumentPage{}},
		{Method: "POST", Path: "/api/v1/documents", Tag: "documents", Summary: "Upload files",
			Description: "Each file is accepted, found to be a duplicate or rejected on its own; accepted files are read in the background (follow their status). " +
				"With replace=true a file replaces the document of its name once read (until then questions see the old version; unchanged passages are reused).",
			Query:  []apiParam{{Name: "replace", Type: "string", Description: "true: replace the document with the same file name"}},
			Upload: true, Result: uploadJSON{}},
		{Method: "POST", Path: "/api/v1/documents/url", Tag: "documents", Summary: "Add a web page by its address",
			Body: addURLRequest{}, Result: fetchedPage{}},
		{Method: "GET", Path: "/api/v1/documents/:id", Tag: "documents", Summary: "One document and its ingest status",
			Description: "id is a document's ID or its file name (409 when several documents carry that name).", Result: apiv1.Document{}},
		{Method: "DELETE", Path: "/api/v1/documents/:id", Tag: "documents", Summary: "Delete a document and what only it supports",
			Description: "id is a document's ID or its file name.", Status: 204},
		{Method: "POST", Path: "/api/v1/documents/:id/retry", Tag: "documents", Summary: "Retry what failed in a document",
			Description: "A failed document resumes from the step it failed in; a finished one's failed passages are extracted again. " +
				"409 when nothing in it failed or it is still being read. Follow its status as after an upload.",
			Status: 202, Result: apiv1.Document{}},
		{Method: "GET", Path: "/api/v1/documents/:id/original", Tag: "documents", Summary: "Download the file as it was uploaded",
			Binary: true},
		{Method: "GET", Path: "/api/v1/passages/:id", Tag: "search", Summary: "One passage in full (citations' chunk_id)", Result: apiv1.Passage{}},
		{Method: "GET", Path: "/api/v1/search", Tag: "search", Summary: "Hybrid search and graph facts, as `hopwise search`",
			Description: "BM25 and vector search fused with a walk of the knowledge graph; no model writes anything.",
			Query: []apiParam{{Name: "q", Type: "string", Required: true, Description: "the query"},
				{Name: "k", Type: "integer", Description: "passages to return (default 10, at most 50)"}},
			Result: apiv1.SearchResult{}},
		{Method: "GET", Path: "/api/v1/graph/entities", Tag: "graph", Summary: "Find entities by name",
			Query: []apiParam{{Name: "q", Type: "string", Required: true, Description: "a name or part of one"},
				{Name: "k", Type: "integer", Description: "entities to return (default 20, at most 50)"}},
			Result: entitiesJSON{}},
		{Method: "GET", Path: "/api/v1/graph/neighbourhood", Tag: "graph", Summary: "The relations around entities",
			Query: []apiParam{{Name: "entity", Type: "string", Required: true, Repeated: true, Description: "an entity's key or name"},
				{Name: "hops", Type: "integer", Description: "1 (default) or 2"},
				{Name: "limit", Type: "integer", Description: "relations to return (default 60, at most 200)"}},
			Result: apiv1.Neighbourhood{}},
		{Method: "GET", Path: "/api/v1/graph/duplicates", Tag: "graph", Summary: "Possible duplicates waiting for review",
			Description: "Pairs of entities the resolver proposed at ingest without merging them, with its rule, confidence and evidence. " +
				"Decide one with POST /api/v1/graph/edits (kind merge or distinct, proposal its id).", Result: duplicatesJSON{}},
		{Method: "GET", Path: "/api/v1/graph/edits", Tag: "graph", Summary: "The edits of the graph, newest first",
			Description: "Merges (the resolver's and people's), splits, renames, retypes, aliases, deletions, decisions and undos.",
			Query:       []apiParam{{Name: "entity", Type: "string", Repeated: true, Description: "only those of this entity (key or name)"}},
			Result:      editsJSON{}},
		{Method: "POST", Path: "/api/v1/graph/edits", Tag: "graph", Summary: "Edit the graph",
			Description: "kind: merge (other into entity), split (passages of entity to a new entity name), rename, retype, alias, " +
				"delete_entity, delete_relation (relation, a fact of entity), distinct (entity and other are not one). Edits are kept: " +
				"re-extraction and re-ingest do not undo them. 400 says why an edit cannot be made.",
			Body: editRequestJSON{}, Result: editJSON{}, Status: 201},
		{Method: "POST", Path: "/api/v1/graph/edits/:id/undo", Tag: "graph", Summary: "Undo an edit",
			Description: "Puts back what the edit changed, keeping what was ingested since; a merge undone is not made again by the resolver.",
			Result:      editJSON{}, Status: 201},
		{Method: "POST", Path: "/api/v1/ask", Tag: "ask", Summary: "Ask a question; the answer cites its sources",
			Description: "Without conversation_id a new conversation starts, the token's account's own; another account's conversation_id is 404. " +
				"result.not_found is true when the documents do not answer.",
			Body: askRequest{}, Result: askResponse{}, Stream: askStream},
		{Method: "GET", Path: "/api/v1/conversations", Tag: "conversations", Summary: "List the conversations, most recent first",
			Description: "With sign-in on, the conversations of the token's account (an admin's also those from before sign-in, which have no owner).",
			Query:       pageQuery, Result: apiv1.ConversationPage{}},
		{Method: "GET", Path: "/api/v1/conversations/:id", Tag: "conversations", Summary: "A conversation with its questions and answers",
			Description: "Another account's conversation is 404, as one that does not exist.", Result: apiv1.Conversation{}},
		{Method: "GET", Path: "/api/v1/conversations/:id/turns/:turn/events", Tag: "ask", Summary: "Stream a question's answer",
			Description: "The events of a turn as POST /api/v1/ask streams them, from whichever process writes the answer: with " +
				"Last-Event-ID only those after that event, then \"done\" with the answer (at once for a finished turn). " +
				"Another account's conversation is 404.",
			Result: askResponse{}, Stream: "server-sent events as POST /api/v1/ask's stream"},
		{Method: "DELETE", Path: "/api/v1/conversations/:id", Tag: "conversations", Summary: "Delete a conversation", Status: 204,
			Description: "Another account's conversation is 404 and stays."},

		{Method: "GET", Path: "/v1/models", Tag: "openai", Summary: "The models: one, hopwise", Result: modelListJSON{}, OpenAIErrors: true},
		{Method: "POST", Path: "/v1/chat/completions", Tag: "openai", Summary: "Ask in OpenAI's chat completions protocol",
			Description: "The last message is the question (the user's); the user and assistant messages before it are the " +
				"conversation. The answer cites its sources as [n], lists them under the text and gives them as data in citations; " +
				"hopwise.not_found is true when the documents do not answer. Sampling settings are ignored.",
			Body: chatRequest{}, Result: completionJSON{}, OpenAIErrors: true,
			Stream: "With stream: true, chat.completion.chunk events ending in data: [DONE]; the last chunk before it holds " +
				"finish_reason, citations, usage and hopwise. Meanwhile the agent's steps come as delta.reasoning_content (unless hopwise_reasoning " +
				"is false) and, with hopwise_steps, as chunks with no choices and a hopwise_event."},
		{Method: "POST", Path: "/mcp", Tag: "mcp", Summary: "The MCP server (streamable HTTP, stateless)",
			Description: "Model Context Protocol over streamable HTTP: tools search, ask, list_documents, get_passage and " +
				"graph_neighbourhood. Send JSON-RPC with Accept: application/json, text/event-stream; point an MCP client at this URL.",
			Body: jsonRPCMessage{}, Result: jsonRPCMessage{}, Stream: "JSON-RPC messages as server-sent events: progress notifications, then the response."},

		{Method: "GET", Path: "/api/status", Tag: "legacy", Summary: "Status", Result: Status{}, Replaced: "GET /api/v1/status"},
		{Method: "GET", Path: "/api/documents", Tag: "legacy", Summary: "Every document", Result: legacyDocumentsJSON{}, Replaced: "GET /api/v1/documents"},
		{Method: "POST", Path: "/api/documents", Tag: "legacy", Summary: "Upload files", Upload: true, Result: uploadJSON{}, Replaced: "POST /api/v1/documents"},
		{Method: "POST", Path: "/api/documents/url", Tag: "legacy", Summary: "Add a web page", Body: addURLRequest{}, Result: fetchedPage{}, Replaced: "POST /api/v1/documents/url"},
		{Method: "GET", Path: "/api/documents/:id", Tag: "legacy", Summary: "One document", Result: apiv1.Document{}, Replaced: "GET /api/v1/documents/{id}"},
		{Method: "DELETE", Path: "/api/documents/:id", Tag: "legacy", Summary: "Delete a document", Status: 204, Replaced: "DELETE /api/v1/documents/{id}"},
		{Method: "GET", Path: "/api/graph/entities", Tag: "legacy", Summary: "Find entities",
			Query: []apiParam{{Name: "q", Type: "string", Required: true}}, Result: legacyEntitiesJSON{}, Replaced: "GET /api/v1/graph/entities"},
		{Method: "GET", Path: "/api/graph/neighborhood", Tag: "legacy", Summary: "Relations around entities",
			Query: []apiParam{{Name: "entity", Type: "string", Required: true, Repeated: true}, {Name: "hops", Type: "integer"},
				{Name: "facts", Type: "string", Description: "relation IDs, comma-separated"}},
			Result: legacyNeighborhoodJSON{}, Replaced: "GET /api/v1/graph/neighbourhood"},
		{Method: "POST", Path: "/api/ask", Tag: "legacy", Summary: "Ask a question", Body: askRequest{}, Result: askResponse{},
			Stream: askStream, Replaced: "POST /api/v1/ask"},
	}
}
