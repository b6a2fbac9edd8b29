package llm

import "testing"

type strictOK struct {
	A string   `json:"a"`
	B []nested `json:"b"`
}

type nested struct {
	C int `json:"c"`
}

type withOptional struct {
	A string `json:"a,omitempty"`
}

type withNullable struct {
	A *string `json:"a" nullable:"true"`
}

type withOptionalNested struct {
	N []struct {
		D string `json:"d,omitempty"`
	} `json:"n"`
}

type generic[T any] struct {
	V T `json:"v"`
}

func TestSchemaFor(t *testing.T) {
	tests := []struct {
		name       string
		s          *schema
		wantStrict bool
		wantName   string
		wantOpen   byte
	}{
		{"all required", schemaFor[strictOK](), true, "strictOK", '{'},
		{"pointer to struct", schemaFor[*strictOK](), true, "strictOK", '{'},
		{"optional field", schemaFor[withOptional](), false, "withOptional", '{'},
		{"nullable field", schemaFor[withNullable](), false, "withNullable", '{'},
		{"optional nested field", schemaFor[withOptionalNested](), false, "withOptionalNested", '{'},
		{"generic name sanitised", schemaFor[generic[int]](), true, "genericint", '{'},
		{"slice", schemaFor[[]nested](), true, "answer", '['},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.s.err != nil {
				t.Fatal(tt.s.err)
			}
			if tt.s.strict != tt.wantStrict || tt.s.name != tt.wantName || tt.s.open != tt.wantOpen {
				t.Errorf("strict %v name %q open %q; want %v %q %q", tt.s.strict, tt.s.name, tt.s.open, tt.wantStrict, tt.wantName, tt.wantOpen)
			}
		})
	}
	first, second := schemaFor[strictOK](), schemaFor[strictOK]()
	if first != second {
		t.Errorf("schema not cached per type")
	}
	if s := schemaFor[map[string]int](); s.err == nil {
		t.Errorf("map type got a schema")
	}
	if s := schemaFor[error](); s.err == nil {
		t.Errorf("interface type got a schema")
	}
}
