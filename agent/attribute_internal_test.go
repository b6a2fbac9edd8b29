package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

func chunkSource(text string) source {
	return source{kind: KindChunk, chunk: graphrag.Chunk{ID: "c", Text: text}}
}

// An answer as the 135M local model writes them, without markers, with a number its sources do not
// hold and a sentence of its own: the lines are matched to the passage that names them, the wrong number
// and the invented sentence are reported, the money passage is not cited.
func TestAttributeMatchesSentencesToSources(t *testing.T) {
	srcs := []source{
		chunkSource("Munich travel tips > Money and tipping\n\nThe euro is the currency. Card payment is accepted almost everywhere."),
		chunkSource("Munich travel tips > Getting into town\n\nThe S-Bahn lines S1 and S8 connect the airport with the central station (Hauptbahnhof) every 10 minutes during the day; the ride takes about 40 minutes."),
		{kind: KindFact, fact: graphrag.Fact{ID: "f", Sentence: "Munich Airport LOCATED_NEAR Freising"}},
	}
	answer := "The S-Bahn lines S1 and S8 connect the airport with the central station every 10 minutes during the day. " +
		"The ride takes about 45 minutes.\n\nA taxi is a business that operates in Germany with its own laws and regulations."
	at, ok := attribute(answer, srcs)
	if !ok {
		t.Fatal("an answer without markers was not attributed")
	}
	want := "The S-Bahn lines S1 and S8 connect the airport with the central station every 10 minutes during the day [2]. "
	if !strings.HasPrefix(at.answer, want) {
		t.Errorf("answer = %q\nwant it to start %q", at.answer, want)
	}
	if !slices.Equal(at.matched, []int{2}) {
		t.Errorf("matched %v, want [2]", at.matched)
	}
	if len(at.unmatched) != 2 || !strings.Contains(at.unmatched[0], "45 minutes") || !strings.Contains(at.unmatched[1], "taxi") {
		t.Errorf("unmatched %q, want the 45 minutes and the taxi sentence", at.unmatched)
	}
	if got := cited(at.answer, len(srcs)); !slices.Equal(got, []int{2}) {
		t.Errorf("the attributed answer cites %v", got)
	}
}

func TestAttributeLeavesCitedAnswersAlone(t *testing.T) {
	srcs := []source{chunkSource("The S-Bahn lines S1 and S8 connect the airport with the central station.")}
	if _, ok := attribute("Take the S1 or the S8 [1].", srcs); ok {
		t.Error("an answer with markers was attributed")
	}
	if _, ok := attribute("Take the S1 or the S8.", nil); ok {
		t.Error("an answer without sources was attributed")
	}
}

func TestSentencesJoinBack(t *testing.T) {
	for _, text := range []string{
		"One. Two! Three? Four",
		"Distance is 5.921 km. Next line\n- item one\n- item two\n",
		"",
		"Ünïcode sentence… ends. Ça va? Oui.",
	} {
		parts := sentences(text)
		if got := strings.Join(parts, ""); got != text {
			t.Errorf("sentences(%q) = %q, joined %q", text, parts, got)
		}
	}
	if got := sentences("It is 5.9 km. Yes."); len(got) != 2 {
		t.Errorf("a decimal point ended a sentence: %q", got)
	}
}

func TestUnfenceDropsEchoedFenceTags(t *testing.T) {
	in := "Take the S1 [1].\n<data n=\"2\" from=\"document munich-travel-tips.md\"> [1]\nMunich travel tips\n</data>\nKeep <b>this</b>."
	want := "Take the S1 [1].\nMunich travel tips\nKeep <b>this</b>."
	if got := unfence(in); got != want {
		t.Errorf("unfence = %q\nwant      %q", got, want)
	}
	if got := unfence("no tags here"); got != "no tags here" {
		t.Errorf("unfence changed plain text: %q", got)
	}
}
