package agent

import (
	"slices"
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

	// A sentence that shares only numbers and words with the question is not pointed at; a heading that
	// names the question's policy makes its sentences about it.
	rule := source{kind: KindChunk, chunk: graphrag.Chunk{ID: "e", DocName: "eu.md", Text: "Flight compensation > European Union\n\n" +
		"- up to 1,500 km: 250 EUR\n- intra-EU flights over 1,500 km: 400 EUR\n\nThe airline may halve the amount for flights up to 1,500 km."}}
	if lines := keyLines("How much EU261 compensation is due for a flight of up to 1,500 km?", []source{rule}, 4); len(lines) != 0 {
		t.Errorf("prose without the question's names: key lines %+v, want none", lines)
	}
	policy := source{kind: KindChunk, chunk: graphrag.Chunk{ID: "p", DocName: "handbook.md", Text: "Handbook > TRV-117 Class of travel\n\n" +
		"Business class is permitted on long flights over 5,000 km."}}
	if lines := keyLines("What does policy TRV-117 allow for long flights?", []source{policy}, 4); len(lines) != 1 || lines[0].n != 1 {
		t.Errorf("a sentence under the policy's heading: key lines %+v, want it", lines)
	}

	// A list belongs to the sentence that introduces it: pointing at one item hid the others.
	team := source{kind: KindChunk, chunk: graphrag.Chunk{ID: "t", DocName: "history.md", Text: "Nexa AI history > Acquisitions\n\n" +
		"In March 2025 Nexa AI acquired Acme Robotics. Its engineering team consisted of:\n\n- Priya Raman, lead robotics engineer\n" +
		"- Tomas Silva, firmware engineer\n- Chen Wei, perception engineer\n"}}
	lines := keyLines("Which engineers work for the company that Nexa AI acquired in 2025?", []source{team}, 4)
	var all []string
	for _, l := range lines {
		all = append(all, l.text)
	}
	if want := "Its engineering team consisted of: Priya Raman, lead robotics engineer; Tomas Silva, firmware engineer; Chen Wei, perception engineer"; !slices.Contains(all, want) {
		t.Errorf("key lines %q, want the list with its introduction: %q", all, want)
	}
}
