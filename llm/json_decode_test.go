package llm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/llm"
)

type entity struct {
	Name string `json:"name"`
	Type string `json:"type" enum:"person,place,organisation"`
}

type extraction struct {
	Entities []entity `json:"entities"`
	Summary  string   `json:"summary,omitempty"`
	Score    *int     `json:"score" nullable:"true"`
}

func (e extraction) Validate() error {
	for _, en := range e.Entities {
		if strings.TrimSpace(en.Name) == "" {
			return errors.New("entity with an empty name")
		}
	}
	return nil
}

func TestDecodeJSON(t *testing.T) {
	const valid = `{"entities":[{"name":"Munich","type":"place"}],"score":3}`
	tests := []struct {
		name    string
		raw     string
		wantErr string // substring; "" means success
	}{
		{"plain", valid, ""},
		{"json fence", "Here you go:\n```json\n" + valid + "\n```\nAnything else?", ""},
		{"bare fence", "```\n" + valid + "\n```", ""},
		{"think preamble with braces", "<think>maybe {\"entities\": []} or not</think>\n" + valid, ""},
		{"text before and after", "Sure! " + valid + " Hope this helps {", ""},
		{"optional field missing", `{"entities":[],"score":null}`, ""},
		{"unknown fields ignored", `{"entities":[],"score":1,"extra":true}`, ""},
		{"no object", "I cannot answer that.", "no JSON object"},
		{"truncated", `{"entities":[{"name":"Mun`, "invalid JSON"},
		{"missing required", `{"score":1}`, `missing required field "entities"`},
		{"required null", `{"entities":null,"score":1}`, `required field "entities" is null`},
		{"missing nested", `{"entities":[{"name":"A","type":"place"},{"type":"place"}],"score":1}`, `missing required field "entities[1].name"`},
		{"bad enum", `{"entities":[{"name":"A","type":"city"}],"score":1}`, `"city" is not one of person, place, organisation`},
		{"wrong type", `{"entities":"Munich","score":1}`, "wrong JSON shape"},
		{"validate fails", `{"entities":[{"name":" ","type":"place"}],"score":1}`, "entity with an empty name"},
		{"unclosed think only", "<think>{\"entities\":", "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := llm.DecodeJSON[extraction](tt.raw)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q (got %+v)", err, tt.wantErr, got)
			}
		})
	}
}

func TestDecodeJSONValues(t *testing.T) {
	got, err := llm.DecodeJSON[extraction]("<think>x</think>```json\n{\"entities\":[{\"name\":\"Delhi\",\"type\":\"place\"}],\"summary\":\"s\",\"score\":5}\n```")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entities) != 1 || got.Entities[0].Name != "Delhi" || got.Summary != "s" || got.Score == nil || *got.Score != 5 {
		t.Errorf("got %+v", got)
	}
	list, err := llm.DecodeJSON[[]entity](`Entities: [{"name":"A","type":"person"}]`)
	if err != nil || len(list) != 1 || list[0].Name != "A" {
		t.Errorf("slice: %+v, %v", list, err)
	}
	if _, err := llm.DecodeJSON[[]entity](`[{"type":"person"}]`); err == nil || !strings.Contains(err.Error(), `"[0].name"`) {
		t.Errorf("slice item missing name: err = %v", err)
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{
		`{"entities":[{"name":"A","type":"place"}],"score":1}`,
		"```json\n{\"entities\":[]}\n```",
		"<think>{</think>{\"entities\":[{}]}",
		`{"entities":[{"name":"A","type":7}]`,
		`[`, `{"entities":null}`, "\x00{\"score\":1e999}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := llm.DecodeJSON[extraction](raw)
		if err == nil {
			if v.Entities == nil {
				t.Fatalf("accepted %q without entities", raw)
			}
			if v.Validate() != nil {
				t.Fatalf("accepted %q that fails Validate", raw)
			}
		}
		_, _ = llm.DecodeJSON[[]entity](raw)
	})
}

// llama-cpp-python's grammar let the local model write a raw line break inside a string (a grading answer
// was repaired twice over it); JSON forbids it, the answer is still read, and its text keeps the break.
func TestDecodeJSONRawControlCharactersInStrings(t *testing.T) {
	raw := "{\"relevant\": true, \"reason\": \"line one\nline\ttwo \\\"quoted\\\"\", \"grade\": \"high\"}"
	v, err := llm.DecodeJSON[verdict](raw)
	if err != nil {
		t.Fatal(err)
	}
	if v.Reason != "line one\nline\ttwo \"quoted\"" {
		t.Errorf("reason = %q", v.Reason)
	}
	// Outside strings a line break is whitespace and stays valid.
	if _, err := llm.DecodeJSON[verdict]("{\n\"relevant\": false,\n\"reason\": \"x\", \"grade\": \"low\"\n}"); err != nil {
		t.Error(err)
	}
}
