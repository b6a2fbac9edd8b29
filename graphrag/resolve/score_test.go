package resolve

import "testing"

func TestScore(t *testing.T) {
	in := func(doc string) []string { return []string{doc} }
	cases := []struct {
		name string
		a, b Mention
		want Verdict
	}{
		{"legal suffix: one key", Mention{Name: "Nexa AI", Docs: in("a")}, Mention{Name: "Nexa AI GmbH", Docs: in("b")}, Merge},
		{"homonyms by their passages' titles", Mention{Name: "Midway", Title: "Midway, Floyd County, Iowa", Docs: in("a")},
			Mention{Name: "Midway", Title: "Midway, Copiah County, Mississippi", Docs: in("b")}, Distinct},
		{"a title qualifier the other passage confirms", Mention{Name: "Rochester", Title: "Rochester, New York", Docs: in("a")},
			Mention{Name: "Rochester", Title: "Rochester Jeffersons", Context: []string{"Rochester, New York"}, Docs: in("b")}, Merge},
		{"the namesake of a work called so", Mention{Name: "Madonna", Title: "Madonna (entertainer)", Context: []string{"MTV"}, Docs: in("a")},
			Mention{Name: "Madonna", Title: "Madonna (book)", Context: []string{"Andrew Morton"}, Docs: in("b")}, Merge},
		{"a work called so in other kinds", Mention{Name: "Madonna", Type: "person", Title: "Madonna (entertainer)", Docs: in("a")},
			Mention{Name: "Madonna", Type: "book", Title: "Madonna (book)", Docs: in("b")}, Distinct},
		{"a place titled with its region is not a work's namesake", Mention{Name: "Midway", Title: "Midway, Floyd County, Iowa", Docs: in("a")},
			Mention{Name: "Midway", Title: "Midway (film)", Docs: in("b")}, Distinct},
		{"a work of another name says nothing of the title's", Mention{Name: "Rochester", Title: "Rochester, Iowa", Docs: in("a")},
			Mention{Name: "Rochester", Title: "Orodruin (band)", Context: []string{"New York"}, Docs: in("b")}, Distinct},
		{"a title with its legal form qualifies nothing", Mention{Name: "Tesla, Inc.", Title: "Tesla, Inc.", Docs: in("a")},
			Mention{Name: "Tesla", Title: "Tesla Supercharger", Docs: in("b")}, Merge},
		{"abbreviation written out beside it", Mention{Name: "BJP", Context: []string{"Bharatiya Janata Party"}, Docs: in("a")},
			Mention{Name: "Bharatiya Janata Party", Docs: in("b")}, Merge},
		{"abbreviation alone is only proposed", Mention{Name: "CMA", Docs: in("a")}, Mention{Name: "Country Music Association", Docs: in("b")}, Review},
		{"a short country before the name is not abbreviated", Mention{Name: "DOT", Docs: in("a")},
			Mention{Name: "US Department of Transportation", Docs: in("a")}, Merge},
		{"U.S. does not abbreviate a thing of the United States", Mention{Name: "U.S.", Docs: in("a")},
			Mention{Name: "policy of the United States", Docs: in("a")}, Distinct},
		{"U.S. does not abbreviate a part of the United States", Mention{Name: "U.S.", Docs: in("a")},
			Mention{Name: "contiguous United States", Docs: in("a")}, Distinct},
		{"two names turned round in two documents are only proposed", Mention{Name: "Liang Ji", Context: []string{"Emperor Huan"}, Docs: in("a")},
			Mention{Name: "Ji Liang", Context: []string{"humanism"}, Docs: in("b")}, Review},
		{"two names turned round in one document", Mention{Name: "Chen Wei", Docs: in("a")}, Mention{Name: "Wei Chen", Docs: in("a")}, Merge},
		{"two names turned round with a name around both", Mention{Name: "Dan Iosif", Context: []string{"Romania"}, Docs: in("a")},
			Mention{Name: "Iosif Dan", Context: []string{"Romania"}, Docs: in("b")}, Merge},
		{"two letters alone are no abbreviation", Mention{Name: "NT", Docs: in("a")}, Mention{Name: "New Territories", Docs: in("b")}, Distinct},
		{"a date in a month", Mention{Name: "July", Docs: in("a")}, Mention{Name: "July 3, 2004", Docs: in("b")}, Distinct},
		{"a thing named after it", Mention{Name: "Boulder Dam", Docs: in("a")}, Mention{Name: "Boulder Dam Hotel", Docs: in("a")}, Distinct},
		{"qualified otherwise", Mention{Name: "Germany", Docs: in("a")}, Mention{Name: "East Germany", Docs: in("b")}, Distinct},
		{"family name in the same passage", Mention{Name: "Tarski", Docs: in("a")}, Mention{Name: "Alfred Tarski", Docs: in("a")}, Merge},
		{"a name in capitals is no family name", Mention{Name: "MTV", Docs: in("a")}, Mention{Name: "American MTV", Docs: in("a")}, Distinct},
		{"other numbers", Mention{Name: "FIN-EXP-2024-07", Docs: in("a")}, Mention{Name: "FIN-EXP-2024-08", Docs: in("a")}, Distinct},
		{"other kinds", Mention{Name: "Emirates", Type: "airline"}, Mention{Name: "Emirates", Type: "country"}, Distinct},
		{"a spelling variant by its name alone is only proposed", Mention{Name: "Bharatiya Janta Party", Docs: in("a")}, Mention{Name: "Bharatiya Janata Party", Docs: in("b")}, Review},
		{"names a letter apart, two places", Mention{Name: "South America", Docs: in("a")}, Mention{Name: "South Africa", Docs: in("b")}, Review},
		{"a thing of it, with agreeing descriptions", Mention{Name: "Acme Robotics", Type: "organization", Description: "Acme Robotics kept its brand", Vector: []float32{1, 0}, Docs: in("a")},
			Mention{Name: "Acquisition of Acme Robotics", Type: "organization", Description: "Acme Robotics kept its brand", Vector: []float32{1, 0}, Docs: in("a")}, Distinct},
		{"a qualifier makes another place", Mention{Name: "Honolulu", Docs: in("a")}, Mention{Name: "Downtown Honolulu", Docs: in("a")}, Distinct},
		{"similar names, nothing more", Mention{Name: "Austria", Type: "country", Docs: in("a")}, Mention{Name: "Australia", Type: "country", Docs: in("b")}, Distinct},
		{"a common noun in two documents", Mention{Name: "journal", Docs: in("a")}, Mention{Name: "Journal", Docs: in("b")}, Review},
		{"a shared place name with nothing around it in common", Mention{Name: "Essex County", Context: []string{"Massachusetts"}, Docs: in("a")},
			Mention{Name: "Essex County", Context: []string{"New Jersey"}, Docs: in("b")}, Review},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Score(tc.a, tc.b)
			if d.Verdict != tc.want {
				t.Errorf("Score(%q, %q) = %s (%.2f, %s %v), want %s", tc.a.Name, tc.b.Name, d.Verdict, d.Score, d.Rule, d.Evidence, tc.want)
			}
			if r := Score(tc.b, tc.a); r.Verdict != d.Verdict {
				t.Errorf("Score is not symmetric: %s one way, %s the other", d.Verdict, r.Verdict)
			}
		})
	}
}
