package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hopwise/hopwise/agent"
	"github.com/labstack/echo/v4"
)

// apiOp describes one route of the programs' interfaces for the OpenAPI document. The schemas are made
// from the Go types the handlers encode and decode, so the description follows the code.
type apiOp struct {
	Method, Path string // the route as Echo has it (":id" for a path parameter)
	Tag, Summary string
	Description  string
	Query        []apiParam
	Body         any  // a value of the JSON request body's type; nil: no JSON body
	Upload       bool // the body is a multipart form of files
	Result       any  // a value of the JSON answer's type; nil: no JSON answer
	Status       int  // the status of success (200 when zero)
	Stream       string
	Binary       bool   // the answer is a file's bytes
	Replaced     string // a route kept for old clients: the one that replaces it
	OpenAIErrors bool   // errors in OpenAI's shape
	// Account marks an operation of the server or the account rather than of a workspace: it takes no
	// workspace header.
	Account bool
}

// workspaceParam is the header that picks the workspace an operation acts in (workspaceHeader, read by
// chooseWorkspace), declared on every operation of a workspace.
func workspaceParam() map[string]any {
	return map[string]any{"name": workspaceHeader, "in": "header", "required": false,
		"description": "The workspace to act in (its ID, as the Admin page lists it). Without it: the token's own workspace, " +
			"else the default workspace, else the first of the caller's. A workspace the caller is no member of is 403.",
		"schema": map[string]any{"type": "string", "pattern": "^[a-z][a-z0-9_]{0,31}$"}}
}

// apiParam is a query parameter.
type apiParam struct {
	Name, Type, Description string // Type: string or integer
	Required, Repeated      bool
}

type errorJSON struct {
	Error string `json:"error" jsonschema:"what went wrong, in plain words"`
}

var pathParam = regexp.MustCompile(`:([a-z_]+)`)

// openAPIPath is an Echo path in OpenAPI's form: /documents/:id is /documents/{id}.
func openAPIPath(p string) string { return pathParam.ReplaceAllString(p, "{$1}") }

// eventSchema stands for an agent event, whose answer event holds a result that holds events (a cycle
// a schema cannot unroll).
var eventSchema = &jsonschema.Schema{Type: "object", Description: "a step of the agent's run: type, node, summary and what the step found",
	Required: []string{"type"}, Properties: map[string]*jsonschema.Schema{"type": {Type: "string"}, "summary": {Type: "string"}}}

func schemaOf(v any) any {
	s, err := jsonschema.ForType(reflect.TypeOf(v), &jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[agent.Event](): eventSchema}})
	if err != nil {
		panic(fmt.Sprintf("openapi: schema of %T: %v", v, err))
	}
	return s
}

func jsonContent(v any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schemaOf(v)}}
}

func (op apiOp) operation() map[string]any {
	out := map[string]any{"summary": op.Summary, "tags": []string{op.Tag},
		"operationId": strings.ToLower(op.Method) + strings.NewReplacer("/", "_", ":", "", ".", "_", "-", "_").Replace(op.Path)}
	if op.Description != "" {
		out["description"] = op.Description
	}
	if op.Replaced != "" {
		out["deprecated"] = true
		out["description"] = "Kept for older clients; use " + op.Replaced + "."
	}
	var params []any
	for _, m := range pathParam.FindAllStringSubmatch(op.Path, -1) {
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
	}
	for _, q := range op.Query {
		var schema any = map[string]any{"type": q.Type}
		if q.Repeated {
			schema = map[string]any{"type": "array", "items": map[string]any{"type": q.Type}}
		}
		params = append(params, map[string]any{"name": q.Name, "in": "query", "required": q.Required,
			"description": q.Description, "schema": schema})
	}
	if !op.Account {
		params = append(params, workspaceParam())
	}
	if params != nil {
		out["parameters"] = params
	}
	switch {
	case op.Upload:
		out["requestBody"] = map[string]any{"required": true, "content": map[string]any{"multipart/form-data": map[string]any{
			"schema": map[string]any{"type": "object", "required": []string{"files"}, "properties": map[string]any{
				"files": map[string]any{"type": "array", "items": map[string]any{"type": "string", "contentMediaType": "application/octet-stream"}},
			}}}}}
	case op.Body != nil:
		out["requestBody"] = map[string]any{"required": true, "content": jsonContent(op.Body)}
	}
	out["responses"] = op.responses()
	return out
}

func (op apiOp) responses() map[string]any {
	status := op.Status
	if status == 0 {
		status = http.StatusOK
	}
	ok := map[string]any{"description": http.StatusText(status)}
	content := map[string]any{}
	if op.Result != nil {
		content = jsonContent(op.Result)
	}
	if op.Stream != "" {
		content["text/event-stream"] = map[string]any{"schema": map[string]any{"type": "string", "description": op.Stream}}
	}
	if op.Binary {
		content["application/octet-stream"] = map[string]any{"schema": map[string]any{"type": "string", "contentMediaType": "application/octet-stream"}}
	}
	if len(content) > 0 {
		ok["content"] = content
	}
	var errShape any = errorJSON{}
	if op.OpenAIErrors {
		errShape = openAIErrorBody{}
	}
	return map[string]any{fmt.Sprint(status): ok,
		"default": map[string]any{"description": "An error, in plain words", "content": jsonContent(errShape)}}
}

// openAPIDocument is the OpenAPI 3.1 description of every operation in apiOperations.
func openAPIDocument() map[string]any {
	paths := map[string]map[string]any{}
	for _, op := range apiOperations() {
		p := openAPIPath(op.Path)
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		paths[p][strings.ToLower(op.Method)] = op.operation()
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "Hopwise", "version": "1.0.0",
			"description": "Hopwise answers questions from your own documents, with citations, and says when they do not " +
				"answer. /api/v1 is its JSON API; /v1 speaks OpenAI's chat completions protocol; /mcp is its MCP server " +
				"(streamable HTTP). Once the server has accounts, every call sends an API token (created on the " +
				"Settings page) as Authorization: Bearer hwt_...; it acts with the token's role (reader, editor or " +
				"admin) and gets 401 without one, 403 above its role. A laptop install without accounts needs none. " +
				"Every call acts in one workspace, whose documents, graph and conversations alone it reads and changes: " +
				"the header " + workspaceHeader + " names it (else the default workspace, or the first of the caller's); a " +
				"token limited to one workspace acts in it; a workspace the caller is no member of is 403. " +
				"Pages of other sites in a browser are refused."},
		"servers": []any{map[string]any{"url": "/"}},
		"paths":   paths,
		"components": map[string]any{"securitySchemes": map[string]any{
			"token": map[string]any{"type": "http", "scheme": "bearer", "description": "An API token hwt_... from the Settings page"},
		}},
		// An empty requirement beside the token: a laptop install without accounts takes calls without one.
		"security": []any{map[string]any{"token": []any{}}, map[string]any{}},
	}
}

var openAPIJSON = sync.OnceValue(func() []byte {
	b, err := json.MarshalIndent(openAPIDocument(), "", "  ")
	if err != nil {
		panic(fmt.Sprintf("openapi: %v", err))
	}
	return b
})

func (s *server) openAPI(c echo.Context) error {
	return c.JSONBlob(http.StatusOK, openAPIJSON())
}
