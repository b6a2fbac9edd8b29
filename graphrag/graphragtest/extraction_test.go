package graphragtest

import "testing"

func TestExtractDistanceTable(t *testing.T) {
	passage := "| city | country | distance from Munich |\n| --- | --- | --- |\n| Delhi | India | 5,921 km |\n"
	g := Extract("Distances", passage)
	var found bool
	for _, r := range g.Relations {
		if r.Source == "Munich" && r.Target == "Delhi" && r.Type == "DISTANCE_FROM" && len(r.Values) == 1 && r.Values[0].Value == "5921" {
			found = true
		}
	}
	if !found {
		t.Fatalf("no Munich DISTANCE_FROM Delhi 5921 in %+v", g.Relations)
	}
}

func TestExtractRegistryRow(t *testing.T) {
	passage := "| airline | IATA code | licensed in | EU member state |\n| --- | --- | --- | --- |\n| Lufthansa | LH | Germany | yes |\n"
	g := Extract("Registry", passage)
	var found bool
	for _, r := range g.Relations {
		if r.Source == "Lufthansa" && r.Target == "Germany" && r.Type == "LICENSED_IN" {
			found = true
		}
	}
	if !found {
		t.Fatalf("no Lufthansa LICENSED_IN Germany in %+v", g.Relations)
	}
}

func TestExtractProse(t *testing.T) {
	g := Extract("History", "Nexa AI was founded in 2019 in Munich by Lena Vogt and Arjun Mehta.")
	names := map[string]bool{}
	for _, e := range g.Entities {
		names[e.Name] = true
	}
	for _, want := range []string{"Nexa AI", "Munich", "Lena Vogt", "Arjun Mehta"} {
		if !names[want] {
			t.Errorf("entity %q missing from %v", want, names)
		}
	}
	if len(g.Relations) != 3 {
		t.Errorf("relations %+v, want Nexa AI RELATED_TO each of the 3 others", g.Relations)
	}
}
