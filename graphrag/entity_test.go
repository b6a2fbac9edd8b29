package graphrag

import "testing"

func TestNormalizeKey(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "Lufthansa", "lufthansa"},
		{"legal suffix", "Deutsche Lufthansa AG", "deutsche lufthansa"},
		{"dotted suffix", "Deutsche Lufthansa, A.G.", "deutsche lufthansa"},
		{"case and spaces", "  deutsche   LUFTHANSA ", "deutsche lufthansa"},
		{"diacritics", "München", "munchen"},
		{"gmbh", "Nexa AI GmbH", "nexa ai"},
		{"leading the", "The Technical University of Munich", "technical university of munich"},
		{"suffix alone is kept", "AG", "ag"},
		{"hyphen becomes space", "Air-India", "air india"},
		{"apostrophe", "O'Hare", "ohare"},
		{"punctuation only", "!!!", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NormalizeKey(tt.in); got != tt.want {
				t.Errorf("NormalizeKey(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizeKeyVariantsShareKey(t *testing.T) {
	variants := []string{"Lufthansa", "lufthansa", "LUFTHANSA", "Lufthansa AG", "Lufthansa, Inc."}
	for _, v := range variants {
		if got := NormalizeKey(v); got != "lufthansa" {
			t.Errorf("%q -> %q", v, got)
		}
	}
}

func TestNormalizeRelationType(t *testing.T) {
	tests := []struct{ in, want string }{
		{"distance from", "DISTANCE_FROM"},
		{"distanceFrom", "DISTANCE_FROM"},
		{"DISTANCE_FROM", "DISTANCE_FROM"},
		{"  licensed-in ", "LICENSED_IN"},
		{"", "RELATED_TO"},
		{"founded in 2019", "FOUNDED_IN_2019"},
	}
	for _, tt := range tests {
		if got := NormalizeRelationType(tt.in); got != tt.want {
			t.Errorf("NormalizeRelationType(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
