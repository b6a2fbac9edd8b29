package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

type verdict struct {
	Relevant bool   `json:"relevant"`
	Reason   string `json:"reason"`
	Grade    string `json:"grade" enum:"high,low"`
}

func (v verdict) Validate() error {
	if v.Relevant && v.Grade != "high" {
		return errors.New("a relevant document must have grade high")
	}
	return nil
}

const goodVerdict = `{"relevant":true,"reason":"names the distance","grade":"high"}`

func TestStructuredRepairs(t *testing.T) {
	tests := []struct {
		name       string
		replies    []string
		wantCalls  int
		wantRepair string // substring of the first repair prompt; "" when no repair
	}{
		{"valid at once", []string{goodVerdict}, 1, ""},
		{"fenced", []string{"```json\n" + goodVerdict + "\n```"}, 1, ""},
		{"think preamble", []string{"<think>The user wants {json}.</think>\n" + goodVerdict}, 1, ""},
		{"invalid JSON then valid", []string{`{"relevant": tru`, goodVerdict}, 2, "invalid JSON"},
		{"missing field then valid", []string{`{"relevant":true,"grade":"high"}`, goodVerdict}, 2, `missing required field "reason"`},
		{"failing Validate then valid", []string{`{"relevant":true,"reason":"r","grade":"low"}`, goodVerdict}, 2, "a relevant document must have grade high"},
		{"two repairs", []string{"no idea", `{"relevant":1}`, goodVerdict}, 3, "no JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.New(t)
			for _, r := range tt.replies {
				s.Enqueue(llmtest.Reply{Content: r})
			}
			c := newClient(t, s, func(c *llm.Config) { c.StructuredMode = llm.ModeJSONSchema })
			got, err := llm.Structured[verdict](context.Background(), c, llm.Request{Purpose: "grade", Messages: user("grade this")})
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if got != (verdict{Relevant: true, Reason: "names the distance", Grade: "high"}) {
				t.Errorf("got %+v", got)
			}
			reqs := s.Requests()
			if len(reqs) != tt.wantCalls {
				t.Fatalf("calls = %d, want %d", len(reqs), tt.wantCalls)
			}
			if tt.wantRepair == "" {
				return
			}
			msgs := reqs[1].Messages
			if len(msgs) != 4 {
				t.Fatalf("repair request has %d messages, want 4", len(msgs))
			}
			if msgs[2].Role != "assistant" || msgs[2].Content != tt.replies[0] {
				t.Errorf("bad answer not replayed: %+v", msgs[2])
			}
			repair := msgs[3]
			if repair.Role != "user" || !strings.HasPrefix(repair.Content, "your answer was invalid: ") ||
				!strings.Contains(repair.Content, tt.wantRepair) || !strings.HasSuffix(repair.Content, "; reply with only the corrected JSON") {
				t.Errorf("repair prompt = %q, want it to contain %q", repair.Content, tt.wantRepair)
			}
		})
	}
}

func TestStructuredGivesUpAfterTwoRepairs(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: "nope"}, llmtest.Reply{Content: `{"relevant":true}`}, llmtest.Reply{Content: `{"relevant":false,"reason":"x"}`},
		llmtest.Reply{Content: goodVerdict})
	c := newClient(t, s, nil)
	_, err := llm.Structured[verdict](context.Background(), c, llm.Request{Purpose: "grade", Messages: user("grade")})
	if !errors.Is(err, llm.ErrInvalidOutput) {
		t.Fatalf("err = %v, want ErrInvalidOutput", err)
	}
	if !strings.Contains(err.Error(), `llm: structured (grade): invalid structured output after 2 repairs: missing required field "grade"`) {
		t.Errorf("err = %q", err)
	}
	if got := s.ChatCalls(); got != 3 {
		t.Errorf("calls = %d, want 3", got)
	}
	last := s.Requests()[2].Messages
	if len(last) != 6 || !strings.Contains(last[5].Content, `missing required field "reason"`) {
		t.Errorf("second repair prompt = %+v", last)
	}
}

func TestStructuredTruncatedAnswer(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: `{"relevant":true,"rea`, FinishReason: "length"}, llmtest.Reply{Content: goodVerdict})
	c := newClient(t, s, nil)
	if _, err := llm.Structured[verdict](context.Background(), c, llm.Request{Messages: user("g")}); err != nil {
		t.Fatal(err)
	}
	second := s.Requests()[1]
	if repair := second.LastUser(); !strings.Contains(repair, "cut off at the token limit") || !strings.Contains(repair, "shorter") {
		t.Errorf("repair prompt = %q", repair)
	}
	if len(second.Messages) != 3 || strings.Contains(second.Messages[1].Content, `"rea`) {
		t.Errorf("the cut-off answer was sent back (it only lengthens the prompt): %+v", second.Messages)
	}
}

// A model that cannot fit its answer in the limit is asked twice, not three times: each cut-off answer
// costs a whole limit's worth of tokens.
func TestStructuredStopsAfterTwoCutOffs(t *testing.T) {
	s := llmtest.New(t)
	cut := llmtest.Reply{Content: `{"relevant":true,"reason":"aaaa`, FinishReason: "length"}
	s.Enqueue(cut, cut, llmtest.Reply{Content: goodVerdict})
	c := newClient(t, s, nil)
	_, err := llm.Structured[verdict](context.Background(), c, llm.Request{Messages: user("g")})
	if !errors.Is(err, llm.ErrInvalidOutput) || !strings.Contains(err.Error(), "cut off") {
		t.Fatalf("err = %v, want invalid output, cut off", err)
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestStructuredTemperature(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: goodVerdict}, llmtest.Reply{Content: goodVerdict})
	c := newClient(t, s, func(c *llm.Config) { c.Temperature = 0.7 })
	if _, err := llm.Structured[verdict](context.Background(), c, llm.Request{Messages: user("g")}); err != nil {
		t.Fatal(err)
	}
	hot := float32(0.5)
	if _, err := llm.Structured[verdict](context.Background(), c, llm.Request{Messages: user("g"), Temperature: &hot}); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if reqs[0].Temperature == nil || *reqs[0].Temperature != 0 {
		t.Errorf("structured default temperature = %v, want an explicit 0", reqs[0].Temperature)
	}
	if reqs[1].Temperature == nil || *reqs[1].Temperature != 0.5 {
		t.Errorf("request temperature = %v, want 0.5", reqs[1].Temperature)
	}
}

func TestStructuredUnsupportedType(t *testing.T) {
	s := llmtest.New(t)
	c := newClient(t, s, nil)
	_, err := llm.Structured[map[string]int](context.Background(), c, llm.Request{Messages: user("g")})
	if err == nil || s.ChatCalls() != 0 {
		t.Fatalf("err = %v after %d calls, want a schema error before any call", err, s.ChatCalls())
	}
}

type format struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Strict bool            `json:"strict"`
		Schema json.RawMessage `json:"schema"`
	} `json:"json_schema"`
	Schema json.RawMessage `json:"schema"`
}

func TestStructuredDialects(t *testing.T) {
	tests := []struct {
		mode           string
		wantType       string // response_format.type; "" means no response_format
		wantJSONSchema bool   // response_format.json_schema with name and schema
		wantSchemaKey  bool   // response_format.schema (llama-cpp-python)
		wantPrompt     bool   // schema in the system prompt
	}{
		{llm.ModeJSONSchema, "json_schema", true, false, false},
		{llm.ModeAuto, "json_schema", true, false, false},
		{llm.ModeJSONObjectSchema, "json_object", false, true, false},
		{llm.ModeJSONObject, "json_object", false, false, true},
		{llm.ModeNone, "", false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			s := llmtest.New(t)
			s.Enqueue(llmtest.Reply{Content: goodVerdict})
			c := newClient(t, s, func(c *llm.Config) { c.StructuredMode = tt.mode })
			if _, err := llm.Structured[verdict](context.Background(), c, llm.Request{Messages: user("g")}); err != nil {
				t.Fatal(err)
			}
			req := s.Requests()[0]
			if tt.wantType == "" {
				if req.ResponseFormat != nil {
					t.Fatalf("response_format = %s, want none", req.ResponseFormat)
				}
			} else {
				var f format
				if err := json.Unmarshal(req.ResponseFormat, &f); err != nil {
					t.Fatalf("response_format %s: %v", req.ResponseFormat, err)
				}
				if f.Type != tt.wantType {
					t.Errorf("type = %q, want %q", f.Type, tt.wantType)
				}
				if got := f.JSONSchema != nil; got != tt.wantJSONSchema {
					t.Errorf("json_schema present = %v, want %v", got, tt.wantJSONSchema)
				}
				if tt.wantJSONSchema {
					if f.JSONSchema.Name != "verdict" || !f.JSONSchema.Strict || !strings.Contains(string(f.JSONSchema.Schema), `"required":["relevant","reason","grade"]`) {
						t.Errorf("json_schema = %+v %s", f.JSONSchema, f.JSONSchema.Schema)
					}
				}
				if got := f.Schema != nil; got != tt.wantSchemaKey {
					t.Errorf("schema present = %v, want %v", got, tt.wantSchemaKey)
				}
				if tt.wantSchemaKey && !strings.Contains(string(f.Schema), `"enum":["high","low"]`) {
					t.Errorf("schema = %s", f.Schema)
				}
			}
			inPrompt := strings.Contains(req.System(), `"relevant"`)
			if inPrompt != tt.wantPrompt {
				t.Errorf("schema in prompt = %v, want %v; system %q", inPrompt, tt.wantPrompt, req.System())
			}
			if !strings.HasPrefix(req.System(), "You grade documents.") || len(req.Messages) != 2 {
				t.Errorf("messages = %+v", req.Messages)
			}
		})
	}
}

func TestStructuredAutoFallsBack(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(
		llmtest.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "'response_format.type' must be 'text' or 'json_object'"},
		llmtest.Reply{Content: goodVerdict},
		llmtest.Reply{Content: goodVerdict},
	)
	c := newClient(t, s, nil)
	for range 2 {
		if _, err := llm.Structured[verdict](context.Background(), c, llm.Request{Messages: user("g")}); err != nil {
			t.Fatal(err)
		}
	}
	var types []string
	for _, r := range s.Requests() {
		var f format
		_ = json.Unmarshal(r.ResponseFormat, &f)
		types = append(types, f.Type)
	}
	if strings.Join(types, ",") != "json_schema,json_object,json_object" {
		t.Errorf("response_format types = %v, want json_schema then json_object for good", types)
	}
	if !strings.Contains(s.Requests()[1].System(), `"relevant"`) {
		t.Errorf("fallback request has no schema in its prompt")
	}
}

func TestStructuredAutoKeepsOtherErrors(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Status: 400, ErrorMessage: "context length exceeded"}, llmtest.Reply{Content: goodVerdict})
	c := newClient(t, s, nil)
	_, err := llm.Structured[verdict](context.Background(), c, llm.Request{Purpose: "grade", Messages: user("g")})
	if ae, ok := errors.AsType[*llm.APIError](err); !ok || ae.Status != 400 {
		t.Fatalf("err = %v, want the 400", err)
	}
	if s.ChatCalls() != 1 {
		t.Errorf("calls = %d, want 1", s.ChatCalls())
	}
}

type boundedList struct {
	Items []boundedItem `json:"items" maxItems:"3"`
	Notes []string      `json:"notes" maxItems:"2" maxLength:"20"`
}

type boundedItem struct {
	Name string `json:"name" minLength:"1" maxLength:"12"`
	N    int    `json:"n"`
}

// The grammar llama-cpp-python compiles from the schema is what stops a small model writing a string
// or a list without end: the tags' bounds must reach it. OpenAI's strict json_schema does not get them.
func TestStructuredBoundsReachTheGrammarDialect(t *testing.T) {
	for _, mode := range []string{llm.ModeJSONObjectSchema, llm.ModeJSONSchema} {
		t.Run(mode, func(t *testing.T) {
			s := llmtest.New(t)
			s.Enqueue(llmtest.Reply{Content: `{"items":[{"name":"a","n":1}],"notes":[]}`})
			c := newClient(t, s, func(c *llm.Config) { c.StructuredMode = mode })
			if _, err := llm.Structured[boundedList](context.Background(), c, llm.Request{Messages: user("g")}); err != nil {
				t.Fatal(err)
			}
			var f format
			if err := json.Unmarshal(s.Requests()[0].ResponseFormat, &f); err != nil {
				t.Fatal(err)
			}
			raw := f.Schema
			if mode == llm.ModeJSONSchema {
				raw = f.JSONSchema.Schema
			}
			var sch struct {
				Defs struct { // the generator describes the nested struct once, by reference
					Item struct {
						Properties struct {
							Name struct {
								MinLength *int `json:"minLength"`
								MaxLength *int `json:"maxLength"`
							} `json:"name"`
						} `json:"properties"`
					} `json:"boundedItem"`
				} `json:"$defs"`
				Properties struct {
					Items struct {
						MaxItems *int `json:"maxItems"`
					} `json:"items"`
					Notes struct {
						MaxItems *int `json:"maxItems"`
						Items    struct {
							MaxLength *int `json:"maxLength"`
						} `json:"items"`
					} `json:"notes"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(raw, &sch); err != nil {
				t.Fatalf("schema %s: %v", raw, err)
			}
			p := sch.Properties
			name := sch.Defs.Item.Properties.Name
			got := []*int{p.Items.MaxItems, name.MaxLength, p.Notes.MaxItems, p.Notes.Items.MaxLength, name.MinLength}
			want := []int{3, 12, 2, 20, 1}
			for i, g := range got {
				switch {
				case mode == llm.ModeJSONSchema && g != nil:
					t.Errorf("bound %d sent to json_schema: %s", i, raw)
				case mode == llm.ModeJSONObjectSchema && (g == nil || *g != want[i]):
					t.Errorf("bound %d missing or wrong, want %d: %s", i, want[i], raw)
				}
			}
		})
	}
}

type leanGraph struct {
	Nodes []leanNode `json:"nodes" maxItems:"16"`
	Tags  []string   `json:"tags"`
}

type leanNode struct {
	Name        string `json:"name" maxLength:"40"`
	Description string `json:"description,omitempty" maxLength:"80"`
	Weight      []int  `json:"weight,omitempty" maxItems:"2"`
}

// With CompactSchema, the grammar lets a small model write at most that many items per list and no
// optional text; the answer decodes as before. Without it, the schema is the tags' one.
func TestCompactSchemaCapsListsAndDropsOptionalText(t *testing.T) {
	for _, compact := range []int{0, 4} {
		s := llmtest.New(t)
		s.Enqueue(llmtest.Reply{Content: `{"nodes":[{"name":"Munich","weight":[1]}],"tags":[]}`})
		c := newClient(t, s, func(c *llm.Config) { c.StructuredMode, c.CompactSchema = llm.ModeJSONObjectSchema, compact })
		g, err := llm.Structured[leanGraph](context.Background(), c, llm.Request{Messages: user("g")})
		if err != nil || len(g.Nodes) != 1 || g.Nodes[0].Weight[0] != 1 {
			t.Fatalf("compact %d: %+v, %v", compact, g, err)
		}
		var f format
		if err := json.Unmarshal(s.Requests()[0].ResponseFormat, &f); err != nil {
			t.Fatal(err)
		}
		schema := string(f.Schema)
		wantCap := `"maxItems":16`
		if compact > 0 {
			wantCap = `"maxItems":4`
		}
		if !strings.Contains(schema, wantCap) || strings.Contains(schema, "description") != (compact == 0) ||
			!strings.Contains(schema, `"weight"`) || !strings.Contains(schema, `"maxItems":2`) {
			t.Errorf("compact %d: schema %s: want lists capped at %s, description only without compact, weight kept", compact, schema, wantCap)
		}
		if compact > 0 && strings.Count(schema, `"maxItems":4`) != 2 { // nodes and the untagged tags
			t.Errorf("compact %d: schema %s: every list without a smaller bound gets the cap", compact, schema)
		}
	}
}
