// Package graphragtest helps tests of anything built on graphrag: a scripted extraction model that reads
// the passage in Hopwise's extraction prompt and answers with a deterministic graph, so ingestion, the agent,
// the web app and the evaluation can run end to end against llm/llmtest.
package graphragtest

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/hopwise/hopwise/llm/llmtest"
)

// ExtractionMarker is a phrase of the extraction system prompt; requests containing it are extraction calls.
const ExtractionMarker = "You build a knowledge graph"

// Extraction answers extraction calls (ok=false for any other request) with the graph Extract finds in the
// passage. Use it with llmtest.Server.Handle.
func Extraction(req llmtest.Request) (llmtest.Reply, bool) {
	if !strings.Contains(req.System(), ExtractionMarker) {
		return llmtest.Reply{}, false
	}
	var prompt string
	for _, m := range req.Messages {
		if m.Role == "user" && strings.Contains(m.Content, "<passage>") {
			prompt = m.Content
		}
	}
	b, err := json.Marshal(Extract(between(prompt, `document "`, `"`), between(prompt, "<passage>", "</passage>")))
	if err != nil {
		return llmtest.Reply{Status: 500, ErrorMessage: err.Error()}, true
	}
	return llmtest.Reply{Content: string(b)}, true
}

// Graph is the extraction answer, in the JSON shape the extraction prompt asks for.
type Graph struct {
	Entities  []Entity   `json:"entities"`
	Relations []Relation `json:"relations"`
}

// Entity is one extracted entity.
type Entity struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
}

// Relation is one extracted relation.
type Relation struct {
	Source      string  `json:"source"`
	Target      string  `json:"target"`
	Type        string  `json:"type"`
	Description string  `json:"description"`
	Values      []Value `json:"values"`
}

// Value is a typed value of a relation.
type Value struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

var (
	capitalised = regexp.MustCompile(`\b[A-Z][\p{L}0-9]*(?:[ -](?:of |de |al )?[A-Z][\p{L}0-9]*)*\b`)
	distanceCol = regexp.MustCompile(`(?i)distance from ([A-Z][\p{L}]+)`)
	kmCell      = regexp.MustCompile(`^([\d,]+) km$`)
	sentenceEnd = regexp.MustCompile(`[.!?]\s+`)
)

// common sentence-initial words that are not names.
var notNames = map[string]bool{"The": true, "A": true, "An": true, "In": true, "If": true, "When": true,
	"Each": true, "This": true, "It": true, "Its": true, "Up": true, "Like": true, "Unlike": true, "For": true,
	"Passengers": true, "Passenger": true, "Card": true, "Rounding": true, "Full": true, "Part": true,
	"Employees": true, "Expenses": true, "Claims": true, "Flights": true, "Business": true, "Premium": true,
	"Multi": true, "Passwords": true, "Lost": true, "Requests": true, "Working": true, "Meals": true,
	"An employee": true, "Distances": true, "Whether": true, "Overbooking": true, "Norway": false}

// Extract finds a deterministic graph in a passage: capitalised phrases are entities; in a markdown table the
// first cell of each row is an entity related to the capitalised cells of its row (relation type from the
// column header), and a "distance from X" column gives X DISTANCE_FROM row {distance_km}; in prose, the
// first name of a sentence is RELATED_TO the other names of that sentence.
func Extract(title, passage string) Graph {
	g := Graph{Entities: []Entity{}, Relations: []Relation{}}
	seen := map[string]bool{}
	addEntity := func(name, typ, desc string) {
		if name == "" || seen[name] || notNames[name] {
			return
		}
		seen[name] = true
		g.Entities = append(g.Entities, Entity{Name: name, Type: typ, Description: desc})
	}
	var header []string
	var prose []string
	for _, line := range strings.Split(passage, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			header = nil
			prose = append(prose, line)
			continue
		}
		cells := splitRow(line)
		if header == nil {
			header = cells
			continue
		}
		if len(cells) > 0 && strings.Trim(cells[0], "-: ") == "" {
			continue // separator row
		}
		g.tableRow(header, cells, addEntity)
	}
	for _, s := range sentenceEnd.Split(strings.Join(prose, " "), -1) {
		var names []string
		for _, m := range capitalised.FindAllString(s, -1) {
			if !notNames[m] {
				names = append(names, m)
			}
		}
		for _, n := range names {
			addEntity(n, "thing", strings.TrimSpace(s))
		}
		for _, n := range names[min(1, len(names)):] {
			if n != names[0] {
				g.Relations = append(g.Relations, Relation{Values: []Value{}, Source: names[0], Target: n, Type: "RELATED_TO", Description: strings.TrimSpace(s)})
			}
		}
	}
	return g
}

func (g *Graph) tableRow(header, cells []string, addEntity func(name, typ, desc string)) {
	if len(cells) == 0 || cells[0] == "" {
		return
	}
	subject := cells[0]
	addEntity(subject, strings.ToLower(headerAt(header, 0)), strings.Join(cells, ", "))
	for i := 1; i < len(cells); i++ {
		h, cell := headerAt(header, i), cells[i]
		if m := distanceCol.FindStringSubmatch(h); m != nil {
			if km := kmCell.FindStringSubmatch(cell); km != nil {
				addEntity(m[1], "city", "")
				g.Relations = append(g.Relations, Relation{
					Source: m[1], Target: subject, Type: "DISTANCE_FROM",
					Description: "distance from " + m[1] + " to " + subject + " is " + cell,
					Values:      []Value{{Name: "distance_km", Value: strings.ReplaceAll(km[1], ",", "")}},
				})
			}
			continue
		}
		if capitalised.MatchString(cell) && capitalised.FindString(cell) == cell {
			addEntity(cell, strings.ToLower(h), "")
			g.Relations = append(g.Relations, Relation{
				Values: []Value{}, Source: subject, Target: cell, Type: strings.ToUpper(strings.ReplaceAll(h, " ", "_")),
				Description: subject + " " + h + " " + cell,
			})
		}
	}
}

func headerAt(h []string, i int) string {
	if i < len(h) {
		return h[i]
	}
	return "column"
}

func splitRow(line string) []string {
	parts := strings.Split(strings.Trim(line, "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func between(s, open, close string) string {
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	s = s[i+len(open):]
	if j := strings.Index(s, close); j >= 0 {
		return s[:j]
	}
	return s
}
