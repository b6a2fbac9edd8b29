package agent

import (
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

func TestKeyLinesPointAtTheLineThatAnswers(t *testing.T) {
	registry := source{kind: KindChunk, chunk: graphrag.Chunk{ID: "r", DocName: "airline-registry.md", Text: "Airline registry\n\n" +
		"The registry lists carriers that serve Munich.\n\n| airline | IATA code | licensed in |\n| --- | --- | --- |\n" +
		"| Lufthansa | LH | Germany |\n| TAP Air Portugal | TP | Portugal |\n| Finnair | AY | Finland |\n| Aeroflot | SU | Russia |\n"}}
	history := source{kind: KindChunk, chunk: graphrag.Chunk{ID: "h", DocName: "history.md", Text: "Nexa AI history > Funding\n\n" +
		"Bavaria Ventures led the seed round in 2020. The Series B of 40 million EUR in 2024 was led by Northlight Capital, with Bavaria Ventures participating."}}
	fact := source{kind: KindFact, fact: graphrag.Fact{ID: "f", Sentence: "Delhi DISTANCE_FROM_MUNICH 5,921 km"}}
	srcs := []source{history, registry, fact}
	tests := []struct {
		question, first string
		n               int
	}{
		{"Which airline has the IATA code AY?", "IATA code AY", 2},
		{"Which airline in the registry is licensed in Portugal?", "TAP Air Portugal", 2},
		{"Who led Nexa AI's Series B round?", "Northlight Capital", 1},
		{"How far is Delhi from Munich?", "5,921 km", 3},
	}
	for _, tc := range tests {
		lines := keyLines(tc.question, srcs, 4)
		if len(lines) == 0 || !strings.Contains(lines[0].text, tc.first) || lines[0].n != tc.n {
			t.Errorf("keyLines(%q) = %+v, want first a line of source %d holding %q", tc.question, lines, tc.n, tc.first)
		}
		if len(lines) > 4 {
			t.Errorf("keyLines(%q) gave %d lines, want at most 4", tc.question, len(lines))
		}
	}
	if lines := keyLines("What is the weather forecast for tomorrow?", srcs, 4); len(lines) != 0 {
		t.Errorf("a question sharing no words with the sources got key lines %+v", lines)
	}
	var b strings.Builder
	writeKeyLines(&b, keyLines("Which airline has the IATA code AY?", srcs, 1))
	if got := b.String(); !strings.Contains(got, "[2] airline Finnair · IATA code AY · licensed in Finland") {
		t.Errorf("written key lines = %q", got)
	}
}
