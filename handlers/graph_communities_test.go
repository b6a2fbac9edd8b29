package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

func summaryRequests(m *llmtest.Server) int {
	n := 0
	for _, r := range m.Requests() {
		if strings.HasPrefix(r.System(), "Task: summarize community.") {
			n++
		}
	}
	return n
}

// waitCommunities waits until the app's refresher has recomputed the communities more than after times,
// and returns its counts.
func waitCommunities(t *testing.T, app *webtest.App, after int) graphrag.CommunityCounts {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if runs, counts := app.Refresher.Refreshes(); runs > after {
			return counts
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the communities were not recomputed")
	return graphrag.CommunityCounts{}
}

var (
	estimateText = regexp.MustCompile(`Summarising (\d+) topics takes (\d+) model calls: about (\d+) prompt tokens and at most (\d+) answer tokens`)
	runningText  = regexp.MustCompile(`Writing summaries: (\d+) of (\d+) topics, (\d+) of about (\d+) model calls, (\d+) of about (\d+) tokens`)
	doneText     = regexp.MustCompile(`Done: (\d+) of (\d+) summaries written in (\d+) model calls and (\d+) tokens`)
)

func atoiAll(t *testing.T, m []string) []int {
	t.Helper()
	out := make([]int, len(m)-1)
	for i, s := range m[1:] {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = n
	}
	return out
}

// TestCommunitySummariesFromTheGraphPage: the graph page counts the topics the app recomputed on its own,
// shows what summarising costs before any model call, runs it in the background with progress read
// without reloading, and the whole-collection question is then answered from the summaries in the chat.
// Deleting a document takes the summaries of the topics it changed away, and only those.
func TestCommunitySummariesFromTheGraphPage(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true, SummaryDelay: 120 * time.Millisecond})
	counts := waitCommunities(t, b.app, 0)
	if counts.Communities < 4 || counts.Summarized != 0 {
		t.Fatalf("counts %+v: want the demo's communities, none summarised", counts)
	}
	_, page := b.get("/graph")
	if page.Find(`#communities [hx-get="/graph/communities"][hx-trigger="load"]`).Length() != 1 {
		t.Fatal("the graph page does not load the topics section")
	}
	_, doc := b.get("/graph/communities")
	want := fmt.Sprintf("%d topics (groups of names the facts relate), 0 with a summary", counts.Communities)
	if got := strings.Join(strings.Fields(doc.Find("#communities-counts").Text()), " "); !strings.Contains(got, want) {
		t.Errorf("counts %q, want %q", got, want)
	}
	if doc.Find("#summaries-estimate").Length() != 1 {
		t.Fatal("no button to estimate the summaries")
	}

	_, doc = b.get("/graph/communities?estimate=1")
	m := estimateText.FindStringSubmatch(strings.Join(strings.Fields(doc.Find("#summary-estimate").Text()), " "))
	if m == nil {
		t.Fatalf("no estimate in %q", doc.Find("#communities-panel").Text())
	}
	est := atoiAll(t, m)
	if calls := min(counts.Communities, graphrag.DefaultMaxSummaries); est[0] != calls || est[1] != calls || est[2] < 50*calls || est[3] != calls*graphrag.SummaryMaxTokens {
		t.Errorf("estimate %v: want %d calls, their prompts' tokens and %d answer tokens each", est, calls, graphrag.SummaryMaxTokens)
	}
	if n := summaryRequests(b.app.Model); n != 0 {
		t.Fatalf("%d summary calls before the run was started", n)
	}
	if doc.Find(`form[hx-post="/graph/communities/summaries"] #summaries-start`).Length() != 1 {
		t.Fatal("no button to start")
	}

	resp, doc := b.post("/graph/communities/summaries", url.Values{}, true)
	if resp.StatusCode != http.StatusOK || doc.Find(`#communities-panel[hx-trigger="every 1s"]`).Length() != 1 {
		t.Fatalf("start: %d, %q: want the progress, polling", resp.StatusCode, doc.Text())
	}
	var inBetween bool
	var final []int
	deadline := time.Now().Add(30 * time.Second)
	for final == nil && time.Now().Before(deadline) {
		_, doc = b.get("/graph/communities")
		text := strings.Join(strings.Fields(doc.Find("#summary-run").Text()), " ")
		if m := runningText.FindStringSubmatch(text); m != nil {
			p := atoiAll(t, m)
			if p[0] > 0 && p[0] < p[1] && p[2] >= p[0] && p[4] > 0 && p[3] == est[1] {
				inBetween = true
			}
		} else if m := doneText.FindStringSubmatch(text); m != nil {
			final = atoiAll(t, m)
		}
		time.Sleep(40 * time.Millisecond)
	}
	if !inBetween {
		t.Error("no progress was shown between the start and the end")
	}
	if final == nil || final[0] != est[1] || final[1] != est[1] || final[2] != est[1] || final[3] <= 0 {
		t.Fatalf("end %v: want all %d summaries written in as many calls, with their tokens", final, est[1])
	}
	if n := summaryRequests(b.app.Model); n != est[1] {
		t.Errorf("%d summary calls, the estimate said %d", n, est[1])
	}
	if doc.Find(`#communities-panel[hx-trigger]`).Length() != 0 {
		t.Error("the finished run still polls")
	}

	// The whole-collection route answers in the running app, from the summaries, with citations.
	stream, _ := b.ask("What are the main themes across these documents?", "")
	events := b.stream(stream)
	var trace strings.Builder
	for _, ev := range events {
		if ev.name == "step" {
			trace.WriteString(fragment(t, ev.data).Text())
		}
	}
	turn := fragment(t, events[len(events)-1].data).Find("article.turn")
	if !strings.Contains(turn.Find(".answer").Text(), "The documents cover these topics") || turn.Find("ol.citations > li").Length() < 2 {
		t.Fatalf("answer %q with %d citations: want the topics' overview, cited", turn.Find(".answer").Text(), turn.Find("ol.citations > li").Length())
	}
	if !strings.Contains(trace.String(), "topic summaries") {
		t.Errorf("trace %q: want the summaries read", trace.String())
	}

	// Deleting a document: the app recomputes on its own; the topics citing it lose their summaries.
	ctx := context.Background()
	before, err := b.app.Store.Communities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := b.app.Store.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gone := docs[0].ID
	runs, _ := b.app.Refresher.Refreshes()
	if resp, _ := b.post("/documents/"+gone+"/delete", url.Values{"confirmed": {"yes"}}, false); resp.StatusCode >= 400 {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	after := waitCommunities(t, b.app, runs)
	list, err := b.app.Store.Communities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, c := range list {
		same := false
		for _, o := range before {
			same = same || o.ID == c.ID && o.Signature == c.Signature
		}
		if c.Summarized() != same {
			t.Errorf("community %v: summarized %v, unchanged %v", c.Entities, c.Summarized(), same)
		}
		if !c.Summarized() {
			lost++
		}
	}
	if lost == 0 || after.Summarized != after.Communities-lost {
		t.Errorf("after deleting %s: %+v, %d without a summary: want some lost", gone, after, lost)
	}
	_, doc = b.get("/graph/communities?estimate=1")
	if m := estimateText.FindStringSubmatch(strings.Join(strings.Fields(doc.Find("#summary-estimate").Text()), " ")); m == nil || m[2] != strconv.Itoa(lost) {
		t.Errorf("estimate after the deletion %q: want %d calls, one for each topic that lost its summary", doc.Find("#communities-panel").Text(), lost)
	}
}
