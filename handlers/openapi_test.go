package handlers_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/labstack/echo/v4"
)

// The OpenAPI description and the router agree: every route programs call (/api/, /v1/, /mcp) is
// described, and every description is a route the router has, with the same method.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			Summary     string
			OperationID string `json:"operationId"`
			Parameters  []struct{ Name, In string }
			Responses   map[string]json.RawMessage
		}
	}
	if code := getJSON(t, b, "/api/v1/openapi.json", &doc); code != http.StatusOK || doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi.json: %d %q", code, doc.OpenAPI)
	}
	param := regexp.MustCompile(`\{([a-z_]+)\}`)
	var described []string
	ids := map[string]bool{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			described = append(described, strings.ToUpper(method)+" "+param.ReplaceAllString(path, ":$1"))
			if op.Summary == "" || len(op.Responses) == 0 || ids[op.OperationID] {
				t.Errorf("%s %s: summary %q, %d responses, operationId %q (repeated: %v)", method, path, op.Summary, len(op.Responses), op.OperationID, ids[op.OperationID])
			}
			ids[op.OperationID] = true
			for _, m := range param.FindAllStringSubmatch(path, -1) {
				if !slices.ContainsFunc(op.Parameters, func(p struct{ Name, In string }) bool { return p.Name == m[1] && p.In == "path" }) {
					t.Errorf("%s %s: path parameter %s is not described", method, path, m[1])
				}
			}
		}
	}
	var routed []string
	for _, r := range b.app.Handler.(*echo.Echo).Routes() {
		if r.Method == echo.RouteNotFound {
			continue // a group's catch-all, which answers 404 through the group's middleware
		}
		if strings.HasPrefix(r.Path, "/api/") || strings.HasPrefix(r.Path, "/v1/") || r.Path == "/mcp" {
			routed = append(routed, r.Method+" "+r.Path)
		}
	}
	slices.Sort(described)
	slices.Sort(routed)
	for _, r := range routed {
		if !slices.Contains(described, r) {
			t.Errorf("route %s is not described", r)
		}
	}
	for _, d := range described {
		if !slices.Contains(routed, d) {
			t.Errorf("%s is described but not routed", d)
		}
	}
	if len(routed) < 20 {
		t.Errorf("only %d routes: %v", len(routed), routed)
	}
}

// The answers match the schemas the description gives them.
func TestOpenAPISchemasMatchAnswers(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Schema json.RawMessage
				}
			}
		}
	}
	getJSON(t, b, "/api/v1/openapi.json", &doc)
	var found struct{ Passages []struct{ ID string } }
	getJSON(t, b, "/api/v1/search?q=Munich", &found)
	if len(found.Passages) == 0 {
		t.Fatal("no passage found")
	}
	cases := []struct{ path, described string }{
		{"/api/v1/documents?limit=2", "/api/v1/documents"},
		{"/api/v1/search?q=distance+Delhi+Munich", "/api/v1/search"},
		{"/api/v1/passages/" + found.Passages[0].ID, "/api/v1/passages/{id}"},
		{"/api/v1/graph/entities?q=Munich", "/api/v1/graph/entities"},
		{"/api/v1/graph/neighbourhood?entity=Munich&hops=2", "/api/v1/graph/neighbourhood"},
		{"/api/v1/documents/munich-city-distances.md", "/api/v1/documents/{id}"},
		{"/api/v1/conversations", "/api/v1/conversations"},
		{"/v1/models", "/v1/models"},
		{"/api/v1/status", "/api/v1/status"},
		{"/api/documents", "/api/documents"},
	}
	for _, tc := range cases {
		t.Run(tc.described, func(t *testing.T) {
			raw := doc.Paths[tc.described]["get"].Responses["200"].Content["application/json"].Schema
			var schema jsonschema.Schema
			if err := json.Unmarshal(raw, &schema); err != nil {
				t.Fatalf("schema %s: %v", raw, err)
			}
			resolved, err := schema.Resolve(nil)
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			var body any
			if code := getJSON(t, b, tc.path, &body); code != http.StatusOK {
				t.Fatalf("GET %s: %d", tc.path, code)
			}
			if err := resolved.Validate(body); err != nil {
				t.Errorf("GET %s does not match its schema: %v", tc.path, err)
			}
		})
	}
}
