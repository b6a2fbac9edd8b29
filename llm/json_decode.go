package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/sashabaranov/go-openai/jsonschema"
)

// DecodeJSON extracts the JSON value from a model answer and decodes it
// strictly into T. It tolerates a <think>...</think> preamble, a ```json
// fence, text before the first '{' (or '[' for slices) and text after the
// value. Strict means: the value decodes into T without type errors; every
// field T's schema requires is present and not null (unless nullable); string
// enums hold one of their values; and T's Validate() error, if it has one,
// passes. Unknown fields are ignored. The required-field check is skipped
// when no schema can be generated for T (a map or interface field).
func DecodeJSON[T any](raw string) (T, error) {
	v, err := decodeAnswer[T](raw, schemaFor[T]())
	if err != nil {
		return v, fmt.Errorf("llm: decode json: %w", err)
	}
	return v, nil
}

// decodeAnswer is DecodeJSON with errors worded for the model to read.
func decodeAnswer[T any](raw string, s *schema) (T, error) {
	var zero, v T
	text, err := extractJSON(raw, s.open)
	if err != nil {
		return zero, err
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return zero, fmt.Errorf("wrong JSON shape: %w", err)
	}
	if s.def != nil {
		var generic any
		if err := json.Unmarshal([]byte(text), &generic); err != nil {
			return zero, fmt.Errorf("invalid JSON: %w", err)
		}
		if err := checkValue(*s.def, s.def.Defs, generic, "", 0); err != nil {
			return zero, err
		}
	}
	if err := validate(&v); err != nil {
		return zero, err
	}
	return v, nil
}

type validator interface{ Validate() error }

func validate[T any](v *T) error {
	if val, ok := any(v).(validator); ok {
		return val.Validate()
	}
	if val, ok := any(*v).(validator); ok {
		return val.Validate()
	}
	return nil
}

// extractJSON returns the first JSON value of the answer: after the last
// </think>, inside the first code fence if that holds one, starting at the
// first open character.
func extractJSON(raw string, open byte) (string, error) {
	s := raw
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		s = s[i+len("</think>"):]
	}
	if inner, ok := fenced(s); ok && (open == 0 || strings.IndexByte(inner, open) >= 0) {
		s = inner
	}
	if open != 0 {
		i := strings.IndexByte(s, open)
		if i < 0 {
			return "", fmt.Errorf("no JSON %s in the answer", map[byte]string{'{': "object", '[': "array"}[open])
		}
		s = s[i:]
	}
	var value json.RawMessage
	if err := json.NewDecoder(strings.NewReader(escapeControls(s))).Decode(&value); err != nil {
		return "", fmt.Errorf("invalid JSON: %w", err)
	}
	return string(value), nil
}

// escapeControls escapes the raw control characters (a line break, a tab) that some servers' grammars let
// a model write inside a JSON string, which JSON forbids; everything else is left as it is.
func escapeControls(s string) string {
	var b strings.Builder
	in, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case !in:
			in = c == '"'
		case esc:
			esc = false
		case c == '\\':
			esc = true
		case c == '"':
			in = false
		case c < 0x20:
			if b.Len() == 0 {
				b.Grow(len(s) + 16)
				b.WriteString(s[:i])
			}
			fmt.Fprintf(&b, "\\u%04x", c)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(c)
		}
	}
	if b.Len() == 0 {
		return s
	}
	return b.String()
}

// fenced returns the body of the first ``` fence; an unclosed fence runs to the end.
func fenced(s string) (string, bool) {
	start := strings.Index(s, "```")
	if start < 0 {
		return "", false
	}
	body := s[start+3:]
	if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "{[") {
		body = body[nl+1:] // skip the language tag
	}
	if end := strings.Index(body, "```"); end >= 0 {
		body = body[:end]
	}
	return body, true
}

// checkValue walks v along def: required fields present and not null
// (unless nullable), enum strings among their values. Types are checked by
// the decode into the Go type.
func checkValue(def jsonschema.Definition, defs map[string]jsonschema.Definition, v any, path string, depth int) error {
	if depth > 64 {
		return nil
	}
	if def.Ref != "" {
		ref, ok := defs[strings.TrimPrefix(def.Ref, "#/$defs/")]
		if !ok {
			return nil
		}
		ref.Nullable = ref.Nullable || def.Nullable
		return checkValue(ref, defs, v, path, depth+1)
	}
	switch val := v.(type) {
	case map[string]any:
		return checkObject(def, defs, val, path, depth)
	case []any:
		if def.Items == nil {
			return nil
		}
		for i, item := range val {
			if err := checkValue(*def.Items, defs, item, path+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
				return err
			}
		}
	case string:
		if len(def.Enum) > 0 && !slices.Contains(def.Enum, val) {
			return fmt.Errorf("field %s: %q is not one of %s", fieldName(path), val, strings.Join(def.Enum, ", "))
		}
	}
	return nil
}

func checkObject(def jsonschema.Definition, defs map[string]jsonschema.Definition, obj map[string]any, path string, depth int) error {
	var problems []string
	for _, name := range def.Required {
		val, ok := obj[name]
		switch {
		case !ok:
			problems = append(problems, "missing required field "+fieldName(join(path, name)))
		case val == nil && !nullable(def.Properties[name], defs):
			problems = append(problems, "required field "+fieldName(join(path, name))+" is null")
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	for _, name := range slices.Sorted(maps.Keys(def.Properties)) {
		if val, ok := obj[name]; ok && val != nil {
			if err := checkValue(def.Properties[name], defs, val, join(path, name), depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func nullable(def jsonschema.Definition, defs map[string]jsonschema.Definition) bool {
	if def.Nullable || def.Type == jsonschema.Null {
		return true
	}
	for _, alt := range def.AnyOf {
		if alt.Type == jsonschema.Null {
			return true
		}
	}
	if def.Ref != "" {
		return defs[strings.TrimPrefix(def.Ref, "#/$defs/")].Nullable
	}
	return false
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func fieldName(path string) string { return strconv.Quote(path) }
