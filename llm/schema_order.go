package llm

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// A schema's properties are a JSON object, and Go writes its maps with their keys sorted, so a schema
// generated from a struct lists its fields alphabetically. Servers that decode under the schema write the
// fields in the order the schema lists them (llama.cpp's grammar from a JSON schema, OpenAI's structured
// outputs), and the order is what a model reasons in: {"answer", "answerable", "facts", "reasoning"} has
// the verdict written before the facts and the reasoning it should rest on. So schemas are written with
// each object's properties in the order of the struct's fields.

// fieldOrders records, for every struct type reachable from t, its JSON property names in declaration
// order, keyed by the same names sorted and joined (a properties object is recognised by its key set).
func fieldOrders(t reflect.Type, out map[string][]string, depth int) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || depth > 16 {
		return
	}
	names := jsonFieldNames(t, out, depth)
	if len(names) > 1 {
		key := slices.Clone(names)
		slices.Sort(key)
		out[strings.Join(key, "\x00")] = names
	}
}

// jsonFieldNames are t's JSON property names in declaration order, embedded structs inlined, and records
// the orders of the struct types its fields hold.
func jsonFieldNames(t reflect.Type, out map[string][]string, depth int) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && tag == "" && ft.Kind() == reflect.Struct {
			names = append(names, jsonFieldNames(ft, out, depth+1)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		names = append(names, tag)
		fieldOrders(f.Type, out, depth+1)
	}
	return names
}

// reorder rewrites a marshalled schema with its properties in field order.
func reorder(raw json.RawMessage, orders map[string][]string) (json.RawMessage, error) {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	return marshalOrdered(doc, orders)
}

// marshalOrdered writes a schema document (as decoded into any) with every properties object's keys in
// the order orders holds for its key set; other objects, and keys orders does not know, sorted.
func marshalOrdered(node any, orders map[string][]string) ([]byte, error) {
	var b bytes.Buffer
	if err := writeOrdered(&b, node, orders, false); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeOrdered(b *bytes.Buffer, node any, orders map[string][]string, properties bool) error {
	switch v := node.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if properties {
			if order, ok := orders[strings.Join(keys, "\x00")]; ok {
				keys = order
			} else {
				keys = orderedSubset(keys, orders)
			}
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			name, err := json.Marshal(k)
			if err != nil {
				return err
			}
			b.Write(name)
			b.WriteByte(':')
			if err := writeOrdered(b, v[k], orders, k == "properties" && !properties); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeOrdered(b, e, orders, false); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(raw)
	}
	return nil
}

// orderedSubset orders keys, a struct's properties with some left out (a lean schema drops optional
// text), by the struct order that holds them all and has the fewest other names; sorted if none does.
func orderedSubset(keys []string, orders map[string][]string) []string {
	var best []string
	for _, order := range orders {
		if len(order) < len(keys) || best != nil && len(order) >= len(best) {
			continue
		}
		if !containsAll(order, keys) {
			continue
		}
		best = order
	}
	if best == nil {
		return keys
	}
	out := make([]string, 0, len(keys))
	for _, name := range best {
		if slices.Contains(keys, name) {
			out = append(out, name)
		}
	}
	return out
}

func containsAll(list, want []string) bool {
	for _, w := range want {
		if !slices.Contains(list, w) {
			return false
		}
	}
	return true
}
