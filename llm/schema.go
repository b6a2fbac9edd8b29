package llm

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/sashabaranov/go-openai/jsonschema"
)

// schema is the JSON schema of a Go type, generated once per type.
type schema struct {
	def    *jsonschema.Definition // nil when the type has no schema (err says why)
	raw    json.RawMessage        // def marshalled once: Definition.MarshalJSON mutates
	name   string                 // [A-Za-z0-9_-]{1,64}, for response_format
	strict bool                   // every object lists all its properties as required
	open   byte                   // '{' or '[' where the JSON starts; 0 for scalars
	err    error
}

var schemas sync.Map // reflect.Type -> *schema

func schemaFor[T any]() *schema {
	t := reflect.TypeFor[T]()
	if s, ok := schemas.Load(t); ok {
		return s.(*schema)
	}
	s, _ := schemas.LoadOrStore(t, buildSchema(t))
	return s.(*schema)
}

func buildSchema(t reflect.Type) *schema {
	s := &schema{name: schemaName(t), open: openChar(t)}
	if t.Kind() == reflect.Interface {
		s.err = fmt.Errorf("no schema for interface type %s", t)
		return s
	}
	def, err := jsonschema.GenerateSchemaForType(reflect.Zero(t).Interface())
	if err != nil {
		s.err = fmt.Errorf("schema for %s: %w", t, err)
		return s
	}
	raw, err := json.Marshal(def)
	if err != nil {
		s.err = fmt.Errorf("schema for %s: %w", t, err)
		return s
	}
	s.def, s.raw, s.strict = def, raw, strictCompatible(*def, 0)
	return s
}

func openChar(t reflect.Type) byte {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return '{'
	case reflect.Slice, reflect.Array:
		return '['
	default:
		return 0
	}
}

func schemaName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return -1
	}, t.Name())
	if name == "" {
		return "answer"
	}
	return name[:min(len(name), 64)]
}

// strictCompatible reports whether OpenAI's strict mode accepts def: every
// object requires all its properties and allows no others, nothing is nullable.
func strictCompatible(def jsonschema.Definition, depth int) bool {
	if depth > 32 || def.Nullable { // "nullable" is not a keyword strict mode knows
		return false
	}
	if def.Type == jsonschema.Object {
		if def.AdditionalProperties != false || len(def.Required) != len(def.Properties) {
			return false
		}
		for name := range def.Properties {
			if !slices.Contains(def.Required, name) {
				return false
			}
		}
	}
	for _, p := range def.Properties {
		if !strictCompatible(p, depth+1) {
			return false
		}
	}
	for _, d := range def.Defs {
		if !strictCompatible(d, depth+1) {
			return false
		}
	}
	return def.Items == nil || strictCompatible(*def.Items, depth+1)
}
