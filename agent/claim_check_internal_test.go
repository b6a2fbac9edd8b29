package agent

import (
	"reflect"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

func TestAnchors(t *testing.T) {
	tests := []struct {
		sentence string
		want     []string
	}{
		{"The chief executive of Lufthansa is Lena Vogt [1].", []string{"lufthansa", "lena vogt"}},
		{"You can receive 600 EUR, because Delhi is 5,921 km from Munich.", []string{"600", "delhi", "5921", "munich"}},
		{"Policy TRV-117 allows business class on flights over 5,000 km.", []string{"policy", "trv-117", "5000"}},
		{"Yes, the S-Bahn lines S1 and S8 run every 10 minutes.", []string{"s-bahn", "s1", "s8", "10"}},
		{"Passengers get nothing.", nil},
	}
	for _, tc := range tests {
		if got := anchors(tc.sentence); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("anchors(%q) = %q, want %q", tc.sentence, got, tc.want)
		}
	}
}

func TestUnsupportedClaims(t *testing.T) {
	srcs := []source{
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "a", DocName: "registry.md", Text: "| Lufthansa | LH | Germany | yes |"}},
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "b", DocName: "history.md", Text: "Nexa AI was founded by Lena Vogt and Arjun Mehta in 2019."}},
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "c", DocName: "distances.md", Text: "| Delhi | India | 5,921 km |"}},
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "d", DocName: "eu261.md", Text: "- all other flights over 3,500 km: 600 EUR"}},
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "e", DocName: "tips.md", Text: "Munich travel tips > Getting into town\n\nThe S-Bahn connects the airport with the centre; the ride takes about 40 minutes."}},
	}
	tests := []struct {
		answer, question, support string
		want                      int
	}{
		{"The chief executive of Lufthansa is Lena Vogt.", "", "", 1},                                                         // joined across documents
		{"Lena Vogt and Arjun Mehta founded Nexa AI [2].", "", "", 0},                                                         // together in one source
		{"You get 600 EUR: Delhi is 5,921 km away, over 3,500 km [3][4].", "", "", 0},                                         // each anchor has a partner
		{"Munich has 1.5 million inhabitants.", "", "", 1},                                                                    // a number no source holds
		{"Lufthansa is licensed in Germany. Its CEO is Carsten Spohr [1].", "", "", 1},                                        // the second sentence names a stranger
		{"No, the documents do not say.", "", "", 0},                                                                          // names nothing
		{"Lena Vogt [2].", "Who is the chief executive of Lufthansa?", "", 1},                                                 // the question's subject is no partner
		{"Lena Vogt and Arjun Mehta [2].", "Who founded Nexa AI?", "", 0},                                                     // partners in the answer and the question
		{"600 EUR [4].", "How much for Delhi to Munich?", "", 1},                                                              // the amount stands on no source of the route
		{"Lena Vogt took 1 day off in 2019 [2].", "", "", 1},                                                                  // a number no source holds
		{"600 EUR [4].", "How much for Delhi to Munich?", "Delhi is 5,921 km from Munich [3]\nOver 3,500 km: 600 EUR [4]", 0}, // the facts carry it
		{"Lena Vogt [2].", "Who is the chief executive of Lufthansa?", "Lena Vogt founded Nexa AI [2]", 1},                    // nothing reaches Lufthansa
		{"The S-Bahn takes 40 minutes from Munich Airport [5].", "How long is the ride from Munich Airport?", "", 0},          // the heading names the place, the text "the airport"
		{"Lena Vogt runs Munich Airport [5].", "", "", 1},                                                                     // a name's words apart in other sources
	}
	for _, tc := range tests {
		if got := unsupportedClaims(tc.answer, tc.question, tc.support, srcs); len(got) != tc.want {
			t.Errorf("unsupportedClaims(%q) = %q, want %d", tc.answer, got, tc.want)
		}
	}
}

func TestScrubInternal(t *testing.T) {
	tests := []struct{ in, want string }{
		{"You receive 600 EUR [1][2]. Critique: The answer does not directly address the question.", "You receive 600 EUR [1][2]."},
		{"Revised answer: You receive 600 EUR [1].", "You receive 600 EUR [1]."},
		{"S1 and S8 [1].\n\n**Hypothesis:** the lines run every 10 minutes.\n\nThe ride takes 40 minutes [1].", "S1 and S8 [1].\n\nThe ride takes 40 minutes [1]."},
		{"Note: the amount may be halved [1].", "Note: the amount may be halved [1]."},
	}
	for _, tc := range tests {
		if got := scrubInternal(tc.in); got != tc.want {
			t.Errorf("scrubInternal(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// In a table, the names that go together are those of one row: a registry passage names every airline and
// every country, and a claim pairing an airline with another row's country does not stand on it.
func TestUnsupportedClaimsReadTablesByRow(t *testing.T) {
	registry := "Airline registry: where carriers are licensed\n\nAustrian Airlines is part of the Lufthansa Group.\n\n" +
		"| airline | IATA code | licensed in | EU member state |\n| --- | --- | --- | --- |\n" +
		"| Lufthansa | LH | Germany | yes |\n| Austrian Airlines | OS | Austria | yes |\n| TAP Air Portugal | TP | Portugal | yes |\n"
	distances := "Distances from Munich to major cities\n\n| city | country | distance from Munich |\n| --- | --- | --- |\n" +
		"| Paris | France | 684 km |\n| Delhi | India | 5,921 km |\n| Tel Aviv | Israel | 2,642 km |\n| Lisbon | Portugal | 1,964 km |\n"
	srcs := []source{
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "a", DocName: "airline-registry.md", Text: registry}},
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "b", DocName: "munich-city-distances.md", Text: distances}},
	}
	tests := []struct {
		answer, question string
		want             int
	}{
		{"Austrian Airlines is licensed in Portugal [1].", "Which airline in the registry is licensed in Portugal?", 1}, // two rows
		{"TAP Air Portugal is licensed in Portugal [1].", "Which airline in the registry is licensed in Portugal?", 0},  // one row
		{"Austrian Airlines is part of the Lufthansa Group [1].", "", 0},                                                // the prose still counts
		{"Delhi is 5,921 km from Munich [2].", "", 0},                                                                   // the heading goes with every row
		{"Lisbon is 2,642 km away from Munich [2].", "How far from Munich is Lisbon?", 1},                               // Tel Aviv's distance
		{"Lisbon is 1,964 km from Munich and Delhi 5,921 km [2].", "", 0},                                               // each number on its own row
	}
	for _, tc := range tests {
		if got := unsupportedClaims(tc.answer, tc.question, "", srcs); len(got) != tc.want {
			t.Errorf("unsupportedClaims(%q) = %q, want %d", tc.answer, got, tc.want)
		}
	}
}

// A code read off a table must share its row with the name it is given to: the 1.5B model answered "Which
// airline has the IATA code AY?" with Lufthansa, whose row is in the same registry table as Finnair's.
func TestUnsupportedClaimsReadACodeOffAnotherRow(t *testing.T) {
	srcs := []source{{kind: KindChunk, chunk: graphrag.Chunk{ID: "a", DocName: "airline-registry.md", Text: "Airline registry\n\n" +
		"| airline | IATA code | licensed in | EU member state |\n| --- | --- | --- | --- |\n| Lufthansa | LH | Germany | yes |\n" +
		"| Finnair | AY | Finland | yes |\n| Turkish Airlines | TK | Turkey | no |\n"}}}
	q := "Which airline has the IATA code AY?"
	tests := []struct {
		answer string
		want   int
	}{
		{"Lufthansa has the IATA code AY [1].", 1},
		{"Finnair has the IATA code AY [1].", 0},
		{"The airline with the IATA code AY is Finnair, licensed in Finland [1].", 0},
		{"Finnair (AY) and Lufthansa (LH) are both EU carriers [1].", 0}, // each code beside its own airline
		{"Turkish Airlines (AY) is licensed in Turkey [1].", 1},
	}
	for _, tc := range tests {
		if got := unsupportedClaims(tc.answer, q, "", srcs); len(got) != tc.want {
			t.Errorf("unsupportedClaims(%q) = %q, want %d", tc.answer, got, tc.want)
		}
	}
}

// An answer that says the question back ("Yes. The EU adopted ...") names only what the question names, so
// the names prove nothing: a source must say it in most of its words.
func TestUnsupportedClaimsThatEchoTheQuestion(t *testing.T) {
	srcs := []source{
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "a", DocName: "eu261.md", Text: "EU261 sets compensation for an arrival delay of three hours or more."}},
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "b", DocName: "airline-registry.md", Text: "Registry\n\n| airline | licensed in |\n| --- | --- |\n| Lufthansa | Germany |\n"}},
	}
	tests := []struct {
		answer, question string
		want             int
	}{
		{"Yes. The EU adopted a reform of EU261 that changes the delay thresholds.", "Has the EU adopted a reform of EU261 that changes the delay thresholds?", 1},
		{"Yes, Lufthansa is licensed in Germany [2].", "Is Lufthansa licensed in Germany?", 0},                                   // the row says it
		{"Yes. EU261 sets compensation for an arrival delay of three hours [1].", "Does EU261 set compensation for a delay?", 0}, // adds words of its source
	}
	for _, tc := range tests {
		if got := unsupportedClaims(tc.answer, tc.question, "", srcs); len(got) != tc.want {
			t.Errorf("unsupportedClaims(%q) = %q, want %d", tc.answer, got, tc.want)
		}
	}
}

// An answer must stand on a source about what the question asks: the travel tips' taxi fare names an
// amount, and Munich, but says nothing of being denied boarding.
func TestUnsupportedClaimsOffTopic(t *testing.T) {
	srcs := []source{
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "a", DocName: "munich-travel-tips.md", Text: "Getting into town\n\nThe Lufthansa Express Bus runs to the central station of Munich. A taxi to the city centre costs roughly 70 to 90 EUR."}},
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "b", DocName: "eu261.md", Text: "A passenger denied boarding receives 250, 400 or 600 EUR by distance; over 3,500 km: 600 EUR."}},
		{kind: KindFact, fact: graphrag.Fact{Sentence: "Delhi DISTANCE_FROM_MUNICH 5,921 km"}},
	}
	q := "How much can I receive if I am denied boarding on a Lufthansa flight from Delhi to Munich?"
	tests := []struct {
		answer, support string
		want            int
	}{
		{"You can receive a taxi fare of roughly 70 to 90 EUR [1].", "A taxi to the city centre costs roughly 70 to 90 EUR [1]", 1},
		{"You can receive 600 EUR [2].", "Delhi distance from munich 5,921 km [3]\nOver 3,500 km: 600 EUR [2]", 0},
		{"Delhi is 5,921 km from Munich [3].", "", 1}, // a step of the answer, alone it does not say what is received
	}
	for _, tc := range tests {
		if got := unsupportedClaims(tc.answer, q, tc.support, srcs); len(got) != tc.want {
			t.Errorf("unsupportedClaims(%q) = %q, want %d", tc.answer, got, tc.want)
		}
	}
	// How far is Delhi from Munich? No source holds "far": the topic is not judged.
	if got := unsupportedClaims("Delhi is 5,921 km from Munich [3].", "How far is Delhi from Munich?", "", srcs); len(got) != 0 {
		t.Errorf("distance answer refused: %q", got)
	}
}

// A question about something no source mentions gets no answer that names things: "What is Lena Vogt's
// home address?" over sources that never say home or address.
func TestUnsupportedClaimsAboutWhatNoSourceMentions(t *testing.T) {
	srcs := []source{
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "a", DocName: "history.md", Text: "Nexa AI was founded in 2019 in Munich by Lena Vogt and Arjun Mehta."}},
	}
	if got := unsupportedClaims("Lena Vogt lives in Munich [1].", "What is Lena Vogt's home address?", "", srcs); len(got) != 1 {
		t.Errorf("an address no source mentions: unsupported %q, want the sentence", got)
	}
	if got := unsupportedClaims("Lena Vogt founded Nexa AI in 2019 [1].", "When was Nexa AI founded by Lena Vogt?", "", srcs); len(got) != 0 {
		t.Errorf("a question whose words a source holds: unsupported %q, want none", got)
	}
}

// A possessive ends a name: "Nexa AI's Series B round" names Nexa AI and Series B, which a source holds
// apart ("The Series B of Nexa AI"); "nexa ai's series b" is in none.
func TestAnchorsSplitAtPossessives(t *testing.T) {
	if got, want := anchors("Northlight Capital led Nexa AI's Series B round."), []string{"northlight capital", "nexa ai", "series b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("anchors = %q, want %q", got, want)
	}
}

// A number keeps its unit: the per diem table's 28 EUR are not 28 vacation days.
func TestUnsupportedClaimsWithAnotherUnit(t *testing.T) {
	srcs := []source{
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "a", DocName: "handbook.md", Text: "Per diem for travel: 28 EUR in Germany, 35 EUR in India. Full-time employees receive 24 paid days off per calendar year."}},
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "b", DocName: "history.md", Text: "Chen Wei, perception engineer, joined Nexa AI in Germany."}},
	}
	tests := []struct {
		answer string
		want   int
	}{
		{"Chen Wei took 28 vacation days in Germany [1].", 1},
		{"The per diem in Germany is 28 EUR [1].", 0},
		{"Employees receive 24 paid days off [1].", 0},
		{"Employees receive 24 days off in Germany [1].", 0},
	}
	for _, tc := range tests {
		if got := unsupportedClaims(tc.answer, "", "", srcs); len(got) != tc.want {
			t.Errorf("unsupportedClaims(%q) = %q, want %d", tc.answer, got, tc.want)
		}
	}
	// An answer in another unit than the one the question counts in does not answer it.
	q := "How many vacation days did Chen Wei take in 2025?"
	if got := unsupportedClaims("Chen Wei took 28 EUR in Germany [1].", q, "", srcs); len(got) != 1 {
		t.Errorf("EUR for a question of days: unsupported %q, want the sentence", got)
	}
	if got := unsupportedClaims("Employees receive 24 paid days off [1].", "How many paid days off do employees receive?", "", srcs); len(got) != 0 {
		t.Errorf("days for a question of days: unsupported %q, want none", got)
	}
}

// Questions that ask for a quantity, and answers that give one.
func TestAsksQuantity(t *testing.T) {
	for q, want := range map[string]bool{
		"How much EU261 compensation is due for a flight of up to 1,500 km?":                                   true,
		"In the US, what is the most an airline must pay a passenger bumped from an oversold domestic flight?": true,
		"Within how many days must expenses be submitted under FIN-EXP-2024-07?":                               true,
		"How far is Tokyo from Munich?":       true,
		"Who led Nexa AI's Series B round?":   false,
		"Which airline is the most punctual?": false,
		"Under EU261, what must an airline do before it denies boarding to passengers against their will?": false,
	} {
		if got := asksQuantity(q); got != want {
			t.Errorf("asksQuantity(%q) = %v, want %v", q, got, want)
		}
	}
	for a, want := range map[string]bool{
		"Capped at 2,150 US dollars [1].":                                 true,
		"Nothing is owed for weather.":                                    true,
		"Within thirty days.":                                             false, // a number in words the list does not hold: asked again, not refused outright
		"The DOT does not require airlines to pay cash compensation [1].": false,
	} {
		if got := givesQuantity(a); got != want {
			t.Errorf("givesQuantity(%q) = %v, want %v", a, got, want)
		}
	}
}
