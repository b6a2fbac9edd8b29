package main

import (
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	in := `{"Action":"run","Package":"github.com/hopwise/hopwise/graphrag/neo4j","Test":"TestContract"}
{"Action":"output","Package":"github.com/hopwise/hopwise/graphrag/neo4j","Test":"TestContract","Output":"=== RUN   TestContract\n"}
{"Action":"output","Package":"github.com/hopwise/hopwise/graphrag/neo4j","Test":"TestContract","Output":"    store_test.go:21: NEO4J_URI not set: start the dev Neo4j with make neo4j\n"}
{"Action":"output","Package":"github.com/hopwise/hopwise/graphrag/neo4j","Test":"TestContract","Output":"--- SKIP: TestContract (0.00s)\n"}
{"Action":"skip","Package":"github.com/hopwise/hopwise/graphrag/neo4j","Test":"TestContract"}
{"Action":"output","Package":"github.com/hopwise/hopwise/graphrag/neo4j","Test":"TestOpen","Output":"    open_test.go:9: NEO4J_URI not set: start the dev Neo4j with make neo4j\n"}
{"Action":"skip","Package":"github.com/hopwise/hopwise/graphrag/neo4j","Test":"TestOpen"}
{"Action":"output","Package":"github.com/hopwise/hopwise/agent","Test":"TestA","Output":"chatter of a passing test\n"}
{"Action":"pass","Package":"github.com/hopwise/hopwise/agent","Test":"TestA"}
{"Action":"output","Package":"github.com/hopwise/hopwise/agent","Test":"TestB","Output":"    b_test.go:3: got 1, want 2\n"}
{"Action":"fail","Package":"github.com/hopwise/hopwise/agent","Test":"TestB"}
{"Action":"output","Package":"github.com/hopwise/hopwise/agent","Output":"FAIL\tgithub.com/hopwise/hopwise/agent\t0.1s\n"}
{"Action":"fail","Package":"github.com/hopwise/hopwise/agent"}
`
	var out strings.Builder
	s := &summary{out: &out, logs: map[key][]string{}, skips: map[string][]string{}}
	if err := s.read(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	s.print()
	got := out.String()
	for _, want := range []string{
		"    b_test.go:3: got 1, want 2\n",
		"FAIL\tgithub.com/hopwise/hopwise/agent\t0.1s\n",
		"- NEO4J_URI not set: start the dev Neo4j with make neo4j\n    2: graphrag/neo4j TestContract, graphrag/neo4j TestOpen\n",
		"1 package(s) failed\n",
		"tests: 1 passed, 1 failed, 2 skipped\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "chatter of a passing test") {
		t.Errorf("a passing test's output is printed:\n%s", got)
	}
}
