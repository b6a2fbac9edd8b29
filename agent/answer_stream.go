package agent

import (
	"context"
	"errors"
	"strings"

	"github.com/hopwise/hopwise/llm"
)

// stream runs a streamed call whose deltas become token events, and returns the whole text.
func (r *run) stream(ctx context.Context, req llm.Request) (string, error) {
	if req.MaxTokens == 0 {
		req.MaxTokens = maxAnswerTokens
	}
	var guard repeatGuard
	resp, err := r.a.llm.Stream(ctx, req, func(delta string) error {
		if guard.add(delta) {
			return errRepeating
		}
		r.emitToken(delta)
		return nil
	})
	if errors.Is(err, errRepeating) {
		r.a.log.Info("agent: the model repeats itself; answer cut", "purpose", req.Purpose, "kept_chars", guard.cut)
		r.rec.send(Event{Type: EventError, Node: nodeOf(req.Purpose), Error: "the model began repeating itself, so its answer was cut there"})
		return guard.kept(), nil
	}
	if err != nil {
		return "", err
	}
	return resp.Content, nil
}

// maxAnswerTokens bounds one streamed answer whose step sets no cap of its own.
const maxAnswerTokens = 1500

var errRepeating = errors.New("agent: the model repeats itself")

// repeatGuard watches a streamed answer for a model caught in a loop, as small models are: a sentence
// of five words or more that it already wrote, word for word.
type repeatGuard struct {
	text strings.Builder
	seen map[string]bool
	done int // bytes of text already judged, whole sentences
	cut  int // where the answer ends, once a repeat was found
}

// add takes the next piece of the answer and reports whether the answer now repeats itself.
func (g *repeatGuard) add(delta string) bool {
	g.text.WriteString(delta)
	s := g.text.String()
	for {
		parts := sentences(s[g.done:])
		if len(parts) < 2 { // the last piece may still be growing
			return false
		}
		key := strings.Join(sentenceWords(parts[0]), " ")
		if strings.Count(key, " ") >= 4 {
			if g.seen == nil {
				g.seen = map[string]bool{}
			}
			if g.seen[key] {
				g.cut = g.done
				return true
			}
			g.seen[key] = true
		}
		g.done += len(parts[0])
	}
}

// kept is the answer up to the first repeated sentence.
func (g *repeatGuard) kept() string {
	return strings.TrimSpace(g.text.String()[:g.cut])
}

// sentenceWords is a sentence's words, lower-cased, without citation markers and punctuation.
func sentenceWords(sentence string) []string {
	return lowerWords(citeMarker.ReplaceAllString(sentence, " "))
}

// nodeOf names the step of a streamed call.
func nodeOf(purpose string) string {
	switch purpose {
	case "revise":
		return NodeRevise
	case "direct":
		return NodeDirect
	default:
		return NodeGenerate
	}
}

func (r *run) emitToken(delta string) {
	r.st.streamed = true
	r.st.shown.WriteString(delta)
	r.rec.send(Event{Type: EventToken, Delta: delta})
}

// resetAnswer tells stream consumers that the text streamed so far is replaced.
func (r *run) resetAnswer(why string) {
	if r.st.streamed {
		r.rec.send(Event{Type: EventAnswerReset, Summary: why})
	}
	r.st.shown.Reset()
}
