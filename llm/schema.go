package llm

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sashabaranov/go-openai/jsonschema"
)

// schema is the JSON schema of a Go type, generated once per type.
type schema struct {
	def *jsonschema.Definition // nil when the type has no schema (err says why)
	raw json.RawMessage        // def marshalled once: Definition.MarshalJSON mutates
	// bounded is raw with the maxLength and maxItems of the type's struct tags: servers that compile
	// the schema into a grammar (llama.cpp) then cannot let a small model write a string or a list
	// without end. Sent only where the schema drives decoding and no strict validator may refuse the
	// keywords.
	bounded json.RawMessage
	name    string // [A-Za-z0-9_-]{1,64}, for response_format
	strict  bool   // every object lists all its properties as required
	open    byte   // '{' or '[' where the JSON starts; 0 for scalars
	err     error

	orders    map[string][]string // each struct's property names in field order (schema_order.go)
	compactMu sync.Mutex
	compact   map[int]json.RawMessage // bounded made lean, by list cap (Config.CompactSchema)
}

// grammar is the schema sent where it drives a grammar: bounded, or, with maxItems above 0, its lean
// form (see Config.CompactSchema).
func (s *schema) grammar(maxItems int) json.RawMessage {
	if maxItems <= 0 {
		return s.bounded
	}
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	if raw, ok := s.compact[maxItems]; ok {
		return raw
	}
	raw := s.bounded
	var doc any
	if err := json.Unmarshal(s.bounded, &doc); err == nil {
		lean(doc, maxItems, 0)
		if b, err := marshalOrdered(doc, s.orders); err == nil {
			raw = b
		}
	}
	if s.compact == nil {
		s.compact = map[int]json.RawMessage{}
	}
	s.compact[maxItems] = raw
	return raw
}

// lean caps every list of a schema node at maxItems and drops the optional properties of type string,
// $defs included.
func lean(node any, maxItems, depth int) {
	obj, ok := node.(map[string]any)
	if !ok || depth > 32 {
		return
	}
	if obj["type"] == "array" {
		if n, ok := obj["maxItems"].(float64); !ok || int(n) > maxItems {
			obj["maxItems"] = maxItems
		}
	}
	if props, ok := obj["properties"].(map[string]any); ok {
		required := map[string]bool{}
		if req, ok := obj["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					required[name] = true
				}
			}
		}
		for name, p := range props {
			if pm, ok := p.(map[string]any); ok && !required[name] && pm["type"] == "string" {
				delete(props, name)
			}
		}
	}
	for _, v := range obj {
		switch child := v.(type) {
		case map[string]any:
			lean(child, maxItems, depth+1)
			for _, d := range child { // properties and $defs hold schemas by name
				lean(d, maxItems, depth+1)
			}
		}
	}
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
	bounded, err := addBounds(raw, t)
	if err != nil {
		s.err = fmt.Errorf("schema for %s: %w", t, err)
		return s
	}
	s.orders = map[string][]string{}
	fieldOrders(t, s.orders, 0)
	if raw, err = reorder(raw, s.orders); err == nil {
		bounded, err = reorder(bounded, s.orders)
	}
	if err != nil {
		s.err = fmt.Errorf("schema for %s: %w", t, err)
		return s
	}
	s.def, s.raw, s.bounded, s.strict = def, raw, bounded, strictCompatible(*def, 0)
	return s
}

// addBounds copies the struct tags minLength:"N" and maxLength:"N" (a string, or each string of a
// list) and maxItems:"N" (a list) of t's fields into the schema raw, which jsonschema.Definition has no fields
// for.
func addBounds(raw json.RawMessage, t reflect.Type) (json.RawMessage, error) {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	root, _ := doc.(map[string]any)
	defs, _ := root["$defs"].(map[string]any)
	changed, err := boundType(doc, t, defs, 0)
	if err != nil || !changed {
		return raw, err
	}
	return json.Marshal(doc)
}

// boundType walks node, the schema of t, following references into defs (the generator describes a
// nested struct type once, in $defs).
func boundType(node any, t reflect.Type, defs map[string]any, depth int) (bool, error) {
	obj, ok := node.(map[string]any)
	if !ok || depth > 16 {
		return false, nil
	}
	if ref, ok := obj["$ref"].(string); ok {
		if obj, ok = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any); !ok {
			return false, nil
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return boundType(obj["items"], t.Elem(), defs, depth+1)
	case reflect.Struct:
	default:
		return false, nil
	}
	props, _ := obj["properties"].(map[string]any)
	changed := false
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		prop, ok := props[name].(map[string]any)
		if !f.IsExported() || name == "-" || !ok {
			continue
		}
		for _, key := range []string{"minLength", "maxLength", "maxItems"} {
			v := f.Tag.Get(key)
			if v == "" {
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return false, fmt.Errorf("field %s: %s:%q is not a count", f.Name, key, v)
			}
			target := prop
			if key != "maxItems" && (f.Type.Kind() == reflect.Slice || f.Type.Kind() == reflect.Array) {
				if target, ok = prop["items"].(map[string]any); !ok { // a list of strings: each item
					return false, fmt.Errorf("field %s: %s on a list without items", f.Name, key)
				}
			}
			target[key] = n
			changed = true
		}
		c, err := boundType(prop, f.Type, defs, depth+1)
		if err != nil {
			return false, err
		}
		changed = changed || c
	}
	return changed, nil
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
