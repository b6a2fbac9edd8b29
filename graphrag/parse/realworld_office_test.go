package parse

import (
	"path/filepath"
	"strings"
	"testing"
)

// realWorldOffice are Office files made here by a real producer (testdata/realworld): LibreOffice 7.4
// converting flat OpenDocument sources written by hand (office-src/fleet.fods, a workbook of two sheets;
// office-src/deck.fodp, two slides, the first with speaker notes) to .xlsx and .pptx, and report.html to
// .docx, with `soffice --headless --convert-to` (office-src/README). Each lists text the reader must yield
// and the sheet or slide it must be found on (0: a format without pages).
var realWorldOffice = []realWorldPDF{
	{"libreoffice.xlsx", 2, map[string]int{
		"Fleet": 1, "Aircraft": 1, "Airbus A320neo": 1, "Boeing 787-9": 1, "14140": 1,
		"Routes": 2, "Distance km": 2, "Delhi": 2, "5921": 2, "600 EUR": 2,
	}},
	{"libreoffice.pptx", 2, map[string]int{
		"Denied boarding in the EU": 1, "250 EUR for flights up to 1,500 km.": 1, "600 EUR for all other flights.": 1,
		"Remind the passengers to keep their boarding passes.": 1,
		"Munich to Delhi": 2, "The flight covers 5,921 km and takes about 8 hours.": 2,
		"Über den Wolken: Fluggäste erhalten eine Ausgleichszahlung.": 2,
	}},
	{"libreoffice.docx", 0, map[string]int{
		"# Denied boarding compensation": 0, "The airline pays within seven days.": 0, "## Amounts": 0,
		"600 EUR for all other flights.": 0, "Delhi": 0, "5,921 km": 0, "Zürich": 0,
		"Über diese Regeln: Fluggäste erhalten eine Ausgleichszahlung.": 0, "The second page ends here.": 0,
	}},
}

func TestRealWorldOffice(t *testing.T) {
	for _, tt := range realWorldOffice {
		t.Run(tt.file, func(t *testing.T) {
			doc := parseFixture(t, filepath.Join("testdata", "realworld", tt.file))
			if len(doc.Pages) != tt.pages {
				t.Errorf("%d sheets or slides recorded, want %d", len(doc.Pages), tt.pages)
			}
			for phrase, page := range tt.phrase {
				if !strings.Contains(oneLine(doc.Markdown), phrase) {
					t.Errorf("%q not found in:\n%s", phrase, doc.Markdown)
					continue
				}
				if page == 0 {
					continue
				}
				found := 0
				for i, p := range doc.Pages {
					end := len(doc.Markdown)
					if i+1 < len(doc.Pages) {
						end = doc.Pages[i+1].Offset
					}
					if strings.Contains(oneLine(doc.Markdown[p.Offset:end]), phrase) {
						found = p.Number
						break
					}
				}
				if found != page {
					t.Errorf("%q found first on sheet or slide %d, want %d:\n%s", phrase, found, page, doc.Markdown)
				}
			}
		})
	}
}
