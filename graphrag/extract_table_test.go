package graphrag

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// proseRecorder is a prose extractor that records what it was asked and names one entity.
type proseRecorder struct {
	texts []string
	err   error
}

func (p *proseRecorder) Extract(_ context.Context, c Chunk) (Extraction, error) {
	p.texts = append(p.texts, c.Text)
	if p.err != nil {
		return Extraction{}, p.err
	}
	return extractedGraph{
		Entities:  []extractedEntity{{Name: "Munich", Type: "city"}, {Name: "Bavaria", Type: "region"}},
		Relations: []extractedRelation{{Source: "Munich", Target: "Bavaria", Type: "LOCATED_IN"}},
	}.resolve(c), nil
}

func relationByID(x Extraction, src, typ, dst string) (Relation, bool) {
	id := RelationID(NormalizeKey(src), typ, NormalizeKey(dst))
	for _, r := range x.Relations {
		if r.ID == id {
			return r, true
		}
	}
	return Relation{}, false
}

const distancesChunk = `Distances from Munich to major cities

| city | country | distance from Munich |
| --- | --- | --- |
| Paris | France | 684 km |
| Delhi | India | 5,921 km |
| Sao Paulo | Brazil | 9,850 km |
`

func TestTableRowsWithoutTheModel(t *testing.T) {
	prose := &proseRecorder{}
	x, err := NewTableRowExtractor(prose).Extract(context.Background(), Chunk{ID: "c1", DocID: "d1", Text: distancesChunk})
	if err != nil {
		t.Fatal(err)
	}
	if len(prose.texts) != 0 {
		t.Errorf("a passage of a heading and a table was sent to the model: %q", prose.texts)
	}
	if len(x.Relations) != 6 {
		t.Errorf("%d relations from 3 rows of 2 cells, want 6: %v", len(x.Relations), x.Relations)
	}
	r, ok := relationByID(x, "Delhi", "DISTANCE_FROM_MUNICH", "5,921 km")
	if !ok {
		t.Fatalf("no Delhi DISTANCE_FROM_MUNICH 5,921 km among %v", x.Relations)
	}
	if got := FactText(r); got != "Delhi distance from munich 5,921 km" {
		t.Errorf("fact text %q", got)
	}
	if _, ok := relationByID(x, "Delhi", "COUNTRY", "India"); !ok {
		t.Errorf("no Delhi COUNTRY India")
	}
	types := map[string]string{}
	for _, e := range x.Entities {
		types[e.Name] = e.Type
		if len(e.ChunkIDs) != 1 || e.ChunkIDs[0] != "c1" || len(e.DocIDs) != 1 || e.DocIDs[0] != "d1" {
			t.Errorf("%s without the chunk's provenance: %v %v", e.Name, e.ChunkIDs, e.DocIDs)
		}
	}
	if types["Delhi"] != "city" || types["India"] != "country" || types["5,921 km"] != "quantity" {
		t.Errorf("types from the headers: %v", types)
	}
}

func TestTableValuesGoOnTheRowsRelations(t *testing.T) {
	chunk := "Airline registry\n\n| airline | IATA code | licensed in | EU member state |\n| --- | --- | --- | --- |\n" +
		"| Lufthansa | LH | Germany | yes |\n| IndiGo | 6E | India | no |\n| Icelandair | FI | Iceland | no (EEA state) |\n"
	x, err := NewTableRowExtractor(&proseRecorder{}).Extract(context.Background(), Chunk{ID: "c", DocID: "d", Text: chunk})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Relations) != 3 {
		t.Fatalf("codes and yes/no are values, not entities: %v", x.Relations)
	}
	r, ok := relationByID(x, "IndiGo", "LICENSED_IN", "India")
	if !ok {
		t.Fatalf("no IndiGo LICENSED_IN India: %v", x.Relations)
	}
	if r.Values["iata_code"] != "6E" || r.Values["eu_member_state"] != "no" {
		t.Errorf("values %v", r.Values)
	}
	if got := FactSentence(r); !strings.Contains(got, "IndiGo LICENSED_IN India") || !strings.Contains(got, "iata_code: 6E") {
		t.Errorf("fact sentence %q", got)
	}
}

func TestProseAroundATableStillGoesToTheModel(t *testing.T) {
	chunk := "Distances\n\nMunich lies in Bavaria, in the south of Germany, on the river Isar.\n\n" +
		strings.SplitN(distancesChunk, "\n\n", 2)[1] + "\nThese distances are straight lines over the globe.\n"
	prose := &proseRecorder{}
	x, err := NewTableRowExtractor(prose).Extract(context.Background(), Chunk{ID: "c", DocID: "d", Text: chunk})
	if err != nil {
		t.Fatal(err)
	}
	if len(prose.texts) != 1 {
		t.Fatalf("the model was asked %d times, want once", len(prose.texts))
	}
	asked := prose.texts[0]
	if strings.Contains(asked, "|") || !strings.Contains(asked, "river Isar") || !strings.Contains(asked, "straight lines") {
		t.Errorf("the model was asked about %q: want the prose without the table", asked)
	}
	if _, ok := relationByID(x, "Munich", "LOCATED_IN", "Bavaria"); !ok {
		t.Errorf("the prose's relation is missing")
	}
	if _, ok := relationByID(x, "Paris", "COUNTRY", "France"); !ok {
		t.Errorf("the table's relation is missing")
	}
	n := 0
	for _, e := range x.Entities {
		if e.Key == NormalizeKey("Munich") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("Munich listed %d times, want once", n)
	}
}

func TestWithoutATableThePassageIsTheModels(t *testing.T) {
	prose := &proseRecorder{}
	c := Chunk{ID: "c", DocID: "d", Text: "Munich\n\nMunich lies in Bavaria. | Not a table |\n"}
	if _, err := NewTableRowExtractor(prose).Extract(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if len(prose.texts) != 1 || prose.texts[0] != c.Text {
		t.Errorf("asked %q, want the passage unchanged", prose.texts)
	}
	// A table whose cells are all values holds no relation: the model reads it.
	prose = &proseRecorder{}
	c.Text = "Settings\n\n| setting | default |\n| --- | --- |\n| verbose | off |\n"
	if _, err := NewTableRowExtractor(prose).Extract(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if len(prose.texts) != 1 || !strings.Contains(prose.texts[0], "| verbose | off |") {
		t.Errorf("asked %q, want the table kept for the model", prose.texts)
	}
}

func TestTheModelsFailureFailsThePassage(t *testing.T) {
	boom := errors.New("model gone")
	chunk := "Distances\n\nMunich lies in Bavaria, in the south of Germany, on the river Isar.\n\n" + strings.SplitN(distancesChunk, "\n\n", 2)[1]
	_, err := NewTableRowExtractor(&proseRecorder{err: boom}).Extract(context.Background(), Chunk{ID: "c", DocID: "d", Text: chunk})
	if !errors.Is(err, boom) {
		t.Errorf("got %v, want the model's error (the chunk is retried, not half-extracted)", err)
	}
}

func TestCellKinds(t *testing.T) {
	for cell, want := range map[string]cellKind{
		"Germany": cellName, "Air India": cellName, "United Arab Emirates": cellName,
		"5,921 km": cellQuantity, "250 EUR": cellQuantity, "1999": cellQuantity, "12.5%": cellQuantity, "€ 400": cellQuantity,
		"LH": cellValue, "6E": cellValue, "A3": cellValue, "yes": cellValue, "no (EEA state)": cellValue, "": cellValue,
		"none required": cellValue,
	} {
		if got := classifyCell(cell); got != want {
			t.Errorf("%q: kind %d, want %d", cell, got, want)
		}
	}
}

func TestTableRowTexts(t *testing.T) {
	prose, rows := TableRowTexts("Distances\n\nMunich lies in Bavaria.\n\n" + strings.SplitN(distancesChunk, "\n\n", 2)[1] + "\nStraight lines.\n")
	if strings.Contains(prose, "|") || !strings.Contains(prose, "Munich lies in Bavaria.") || !strings.Contains(prose, "Straight lines.") {
		t.Errorf("prose %q", prose)
	}
	want := []string{
		"city Paris · country France · distance from Munich 684 km",
		"city Delhi · country India · distance from Munich 5,921 km",
		"city Sao Paulo · country Brazil · distance from Munich 9,850 km",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if prose, rows := TableRowTexts("No table | here"); prose != "No table | here" || rows != nil {
		t.Errorf("text without a table: %q %q", prose, rows)
	}
}
