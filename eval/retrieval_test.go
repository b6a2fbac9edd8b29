package eval_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/eval"
	"github.com/hopwise/hopwise/graphrag"
)

// TestRetrievalRecallOnDemo measures retrieval alone on the demo corpus (llmtest's hashing vectors,
// graphragtest's extraction), logs the table, and checks what holds for any ranked list: recall grows
// with k and stays within [0, 1], and every list ranks documents of the corpus.
func TestRetrievalRecallOnDemo(t *testing.T) {
	set := sampleSet(t)
	var multiHop []eval.Question
	for _, q := range set {
		if q.Category == eval.MultiHop {
			multiHop = append(multiHop, q)
		}
	}
	srv, client := readerModel(t)
	retriever := graphrag.NewRetriever(demoStore(t, client), client)
	chats := srv.ChatCalls()
	results, err := eval.RetrievalRecall(context.Background(), retriever, multiHop, []int{1, 3, 5, 10})
	if err != nil {
		t.Fatal(err)
	}
	if srv.ChatCalls() != chats {
		t.Errorf("retrieval made %d chat calls, want none", srv.ChatCalls()-chats)
	}
	var b strings.Builder
	if err := eval.WriteRetrievalTable(&b, results); err != nil {
		t.Fatal(err)
	}
	t.Logf("retrieval on the demo corpus, scripted vectors and extraction:\n\n%s", b.String())
	if len(results) != 3 {
		t.Fatalf("%d methods, want hybrid, graph, hybrid + graph", len(results))
	}
	for _, r := range results {
		for i, v := range r.Recall {
			if v < 0 || v > 1 || i > 0 && v < r.Recall[i-1] {
				t.Errorf("%s: recall %v is not a growing share", r.Method, r.Recall)
			}
		}
		for _, item := range r.Questions {
			for _, d := range item.Documents {
				if !strings.HasSuffix(d, ".md") {
					t.Errorf("%s %s: ranked %q, not a corpus document", r.Method, item.ID, d)
				}
			}
		}
	}
}
