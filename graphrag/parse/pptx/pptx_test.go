package pptx

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

var update = flag.Bool("update", false, "write the generated files in testdata again")

const (
	nsP  = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`
	rels = `http://schemas.openxmlformats.org/officeDocument/2006/relationships`
)

// shape is a p:sp with a placeholder type ("" for a plain text box) and one
// a:p per paragraph.
func shape(ph string, paras ...string) string {
	nv := `<p:nvSpPr><p:cNvPr id="2" name="x"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr>`
	if ph != "" {
		nv = `<p:nvSpPr><p:cNvPr id="2" name="x"/><p:cNvSpPr/><p:nvPr><p:ph type="` + ph + `"/></p:nvPr></p:nvSpPr>`
	}
	var b strings.Builder
	for _, p := range paras {
		b.WriteString(`<a:p>`)
		for i, line := range strings.Split(p, "\n") {
			if i > 0 {
				b.WriteString(`<a:br/>`)
			}
			b.WriteString(`<a:r><a:rPr lang="en-GB"/><a:t>` + line + `</a:t></a:r>`)
		}
		b.WriteString(`<a:endParaRPr/></a:p>`)
	}
	return `<p:sp>` + nv + `<p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/>` + b.String() + `</p:txBody></p:sp>`
}

func table(rows ...[]string) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(`<a:tr h="370840">`)
		for _, c := range r {
			b.WriteString(`<a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>` + c + `</a:t></a:r></a:p></a:txBody><a:tcPr/></a:tc>`)
		}
		b.WriteString(`</a:tr>`)
	}
	return `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Table"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>` +
		`<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblGrid><a:gridCol w="1"/></a:tblGrid>` +
		b.String() + `</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
}

func slideXML(kind string, shapes ...string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:` + kind + ` ` + nsP + `><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>` +
		strings.Join(shapes, "") + `</p:spTree></p:cSld></p:` + kind + `>`
}

func relsXML(rs ...[3]string) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(`<Relationship Id="` + r[0] + `" Type="` + rels + `/` + r[1] + `" Target="` + r[2] + `"/>`)
	}
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + b.String() + `</Relationships>`
}

// reviewDeck is testdata/review.pptx: PowerPoint's package layout, with the
// deck's order (presentation.xml) unlike the file names' (slide2.xml comes
// first), slide numbers and dates that must not be read, a table, a group
// shape and speaker notes.
func reviewDeck() []byte {
	return buildZip([][2]string{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>`},
		{"_rels/.rels", relsXML([3]string{"rId1", "officeDocument", "ppt/presentation.xml"})},
		{"docProps/core.xml", `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Quarterly review, Q3 2026</dc:title><dc:creator>Hopwise tests</dc:creator></cp:coreProperties>`},
		{"ppt/presentation.xml", `<?xml version="1.0" encoding="UTF-8"?><p:presentation ` + nsP + `><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst><p:sldIdLst><p:sldId id="256" r:id="rId7"/><p:sldId id="257" r:id="rId8"/><p:sldId id="258" r:id="rId9"/></p:sldIdLst><p:sldSz cx="12192000" cy="6858000"/></p:presentation>`},
		{"ppt/_rels/presentation.xml.rels", relsXML([3]string{"rId1", "slideMaster", "slideMasters/slideMaster1.xml"}, [3]string{"rId7", "slide", "slides/slide2.xml"}, [3]string{"rId8", "slide", "slides/slide1.xml"}, [3]string{"rId9", "slide", "slides/slide3.xml"})},
		{"ppt/slides/slide2.xml", slideXML("sld", shape("ctrTitle", "Quarterly review"), shape("subTitle", "Nexa AI, Q3 2026"), shape("sldNum", "1"), shape("dt", "01/10/2026"))},
		{"ppt/slides/_rels/slide2.xml.rels", relsXML([3]string{"rId1", "slideLayout", "../slideLayouts/slideLayout1.xml"}, [3]string{"rId2", "notesSlide", "../notesSlides/notesSlide1.xml"})},
		{"ppt/notesSlides/notesSlide1.xml", slideXML("notes", shape("sldImg"), shape("body", "Welcome everyone.", "Mention the Munich hub."), shape("sldNum", "1"))},
		{"ppt/slides/slide1.xml", slideXML("sld", shape("title", "Compensation"), shape("body", "250 EUR up to 1,500 km", "600 EUR beyond 3,500 km\nwhatever the airline"),
			table([]string{"From", "To", "km"}, []string{"Munich", "Delhi", "5,921"}),
			`<p:grpSp><p:nvGrpSpPr><p:cNvPr id="5" name="Group"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>`+shape("", "Grouped note &amp; more")+`</p:grpSp>`)},
		{"ppt/slides/_rels/slide1.xml.rels", relsXML([3]string{"rId1", "slideLayout", "../slideLayouts/slideLayout2.xml"})},
		{"ppt/slides/slide3.xml", slideXML("sld", shape("title", "Questions?"))},
	})
}

func buildZip(files [][2]string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range files {
		w, err := zw.Create(f[0])
		if err != nil {
			panic(err)
		}
		w.Write([]byte(f[1]))
	}
	zw.Close()
	return b.Bytes()
}

// bombDeck's only slide inflates about 1000:1 to n bytes.
func bombDeck(n int) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	w, _ := zw.Create("ppt/slides/slide1.xml")
	io.WriteString(w, `<p:sld `+nsP+`><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>`)
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for written := 0; written < n; written += len(chunk) {
		w.Write(chunk)
	}
	io.WriteString(w, `</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`)
	zw.Close()
	return b.Bytes()
}

func TestFixturesUpToDate(t *testing.T) {
	files := map[string][]byte{"review.pptx": reviewDeck(), "bomb.pptx": bombDeck(20 << 20)}
	for name, want := range files {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from its generator or is missing (%v): run go test -update", name, err)
		}
	}
}

func TestReadReview(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "review.pptx"))
	if err != nil {
		t.Fatal(err)
	}
	deck, err := Read(data, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	want := Deck{Title: "Quarterly review, Q3 2026", Slides: []Slide{
		{Number: 1, Title: "Quarterly review", Blocks: []Block{{Lines: []string{"Nexa AI, Q3 2026"}}}, Notes: []string{"Welcome everyone.", "Mention the Munich hub."}},
		{Number: 2, Title: "Compensation", Blocks: []Block{
			{Lines: []string{"250 EUR up to 1,500 km", "600 EUR beyond 3,500 km\nwhatever the airline"}},
			{Rows: [][]string{{"From", "To", "km"}, {"Munich", "Delhi", "5,921"}}},
			{Lines: []string{"Grouped note & more"}},
		}},
		{Number: 3, Title: "Questions?"},
	}}
	if !reflect.DeepEqual(deck, want) {
		t.Errorf("deck = %+v\nwant   %+v", deck, want)
	}
}

func TestReadErrors(t *testing.T) {
	good := reviewDeck()
	bomb, err := os.ReadFile(filepath.Join("testdata", "bomb.pptx"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"not a zip", []byte("slides"), parseerr.ErrMalformed, "not a zip"},
		{"truncated", good[:len(good)/2], parseerr.ErrMalformed, "pptx"},
		{"no slides", buildZip([][2]string{{"word/document.xml", "<x/>"}}), parseerr.ErrMalformed, "no slides"},
		{"slide XML cut short", buildZip([][2]string{{"ppt/slides/slide1.xml", `<p:sld ` + nsP + `><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>x`}}), parseerr.ErrMalformed, "slide1.xml"},
		{"zip bomb", bomb, parseerr.ErrTooLarge, "inflated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(tt.data, 8<<20)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
}

// FuzzRead: any input, as a whole file or as the slide of a valid package,
// ends in a deck or an error wrapping a sentinel.
func FuzzRead(f *testing.F) {
	f.Add([]byte(slideXML("sld", shape("title", "T"), table([]string{"a"}))))
	f.Add([]byte(`<p:sld><p:sp><a:p><a:t>x</a:t><a:br/></a:p></p:sp><a:tbl><a:tc><a:p>y</a:p></a:tc></a:tbl></p:sld>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(data []byte) {
			_, err := Read(data, 1<<20)
			if err != nil && !errors.Is(err, parseerr.ErrMalformed) && !errors.Is(err, parseerr.ErrTooLarge) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
		}
		check(data)
		check(buildZip([][2]string{{"ppt/slides/slide1.xml", string(data)}, {"ppt/slides/_rels/slide1.xml.rels", string(data)}}))
	})
}
