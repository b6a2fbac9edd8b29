package handlers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/handlers/webtest"
	openai "github.com/sashabaranov/go-openai"
)

func openAIClient(b *browser) *openai.Client {
	cfg := openai.DefaultConfig("any-key-until-accounts-exist")
	cfg.BaseURL = b.srv.URL + "/v1"
	return openai.NewClientWithConfig(cfg)
}

// go-openai, a standard client, lists the model and asks, streamed and not; the answer cites its sources.
func TestOpenAIClientAsks(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	client := openAIClient(b)
	ctx := context.Background()
	models, err := client.ListModels(ctx)
	if err != nil || len(models.Models) != 1 || models.Models[0].ID != "hopwise" {
		t.Fatalf("models: %+v %v", models, err)
	}

	ask := openai.ChatCompletionRequest{Model: "hopwise", Messages: []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You are a helpful assistant."},
		{Role: openai.ChatMessageRoleUser, Content: webtest.DelhiQuestion}}}
	resp, err := client.CreateChatCompletion(ctx, ask)
	if err != nil {
		t.Fatalf("completion: %v", err)
	}
	answer := resp.Choices[0].Message.Content
	if !strings.Contains(answer, "600 EUR") || !strings.Contains(answer, "[1]") || !strings.Contains(answer, "\n\nSources:\n[1] ") ||
		resp.Choices[0].FinishReason != openai.FinishReasonStop || resp.Object != "chat.completion" || resp.Usage.TotalTokens == 0 {
		t.Fatalf("completion: %+v", resp)
	}

	ask.Stream = true
	stream, err := client.CreateChatCompletionStream(ctx, ask)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	var text strings.Builder
	var finish openai.FinishReason
	chunks := 0
	for {
		ch, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		chunks++
		if ch.Object != "chat.completion.chunk" || len(ch.Choices) != 1 {
			t.Fatalf("chunk: %+v", ch)
		}
		text.WriteString(ch.Choices[0].Delta.Content)
		finish = ch.Choices[0].FinishReason
	}
	stream.Close()
	if text.String() != answer || finish != openai.FinishReasonStop || chunks < 4 {
		t.Errorf("streamed %d chunks ending %q:\n%s\nwant\n%s", chunks, finish, text.String(), answer)
	}

	_, err = client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "gpt-4o", Messages: ask.Messages})
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusNotFound || apiErr.Type != "not_found_error" || !strings.Contains(apiErr.Message, "hopwise") {
		t.Errorf("unknown model: %v", err)
	}
	_, err = client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "hopwise", Messages: []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleAssistant, Content: "Hello"}}})
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusBadRequest || apiErr.Type != "invalid_request_error" {
		t.Errorf("no question: %v", err)
	}
}

type completionBody struct {
	Choices []struct {
		Message struct {
			Content   string
			Citations []struct{ N int }
		}
	}
	Citations []struct {
		N       int
		ChunkID string `json:"chunk_id"`
		DocName string `json:"doc_name"`
	}
	Hopwise struct {
		ConversationID string `json:"conversation_id"`
		TurnID         string `json:"turn_id"`
		NotFound       bool   `json:"not_found"`
	}
}

func postCompletion(t *testing.T, b *browser, body string, header http.Header) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// The citations are data as well as text; the earlier messages are the conversation a follow-up is read in.
func TestOpenAICitationsAndConversation(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	resp := postCompletion(t, b, `{"model":"hopwise","messages":[{"role":"user","content":[{"type":"text","text":"`+webtest.DelhiQuestion+`"}]}]}`, nil)
	var first completionBody
	json.NewDecoder(resp.Body).Decode(&first)
	resp.Body.Close()
	if len(first.Citations) != 2 || first.Citations[0].ChunkID == "" || len(first.Choices[0].Message.Citations) != 2 ||
		first.Hopwise.TurnID == "" || first.Hopwise.NotFound {
		t.Fatalf("first: %+v", first)
	}
	for _, c := range first.Citations {
		if !strings.Contains(first.Choices[0].Message.Content, "["+string(rune('0'+c.N))+"] "+c.DocName) {
			t.Errorf("citation %+v is not listed under the answer:\n%s", c, first.Choices[0].Message.Content)
		}
	}

	// A chat front end sends the whole chat each time: it continues the conversation its earlier messages are.
	followUp := func(answer, question string) completionBody {
		msgs, _ := json.Marshal([]map[string]string{
			{"role": "system", "content": "Be brief."},
			{"role": "user", "content": webtest.DelhiQuestion},
			{"role": "assistant", "content": answer},
			{"role": "user", "content": question}})
		resp := postCompletion(t, b, `{"model":"hopwise","messages":`+string(msgs)+`}`, nil)
		defer resp.Body.Close()
		var out completionBody
		json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("follow-up: %d %+v", resp.StatusCode, out)
		}
		return out
	}
	type turns struct {
		Title string
		Turns []struct{ ID, Question, Answer, Status string }
	}
	conversation := func(id string) turns {
		var conv turns
		getJSON(t, b, "/api/v1/conversations/"+id, &conv)
		return conv
	}
	next := followUp(first.Choices[0].Message.Content, "And from Paris?")
	conv := conversation(next.Hopwise.ConversationID)
	if next.Hopwise.ConversationID != first.Hopwise.ConversationID || len(conv.Turns) != 2 || conv.Turns[0].ID != first.Hopwise.TurnID ||
		conv.Turns[1].Question != "And from Paris?" || conv.Turns[1].Status != "done" {
		t.Errorf("follow-up did not continue the conversation %s: %s %+v", first.Hopwise.ConversationID, next.Hopwise.ConversationID, conv)
	}

	// An edited chat is another conversation, which starts with the exchanges as the client has them.
	edited := followUp("You can receive 600 EUR [1].", "And from Rome?")
	conv = conversation(edited.Hopwise.ConversationID)
	if edited.Hopwise.ConversationID == first.Hopwise.ConversationID || len(conv.Turns) != 2 || conv.Turns[0].Answer != "You can receive 600 EUR [1]." ||
		conv.Turns[0].Question != webtest.DelhiQuestion || conv.Turns[1].Question != "And from Rome?" || !strings.HasPrefix(conv.Title, "How much") {
		t.Errorf("edited chat: %+v", conv)
	}

	resp = postCompletion(t, b, `{"messages":[{"role":"user","content":"And from Oslo?"}],"conversation_id":"`+first.Hopwise.ConversationID+`"}`, nil)
	resp.Body.Close()
	if conv = conversation(first.Hopwise.ConversationID); resp.StatusCode != http.StatusOK || len(conv.Turns) != 3 || conv.Turns[2].Question != "And from Oslo?" {
		t.Errorf("conversation_id: %d %+v", resp.StatusCode, conv)
	}

	resp = postCompletion(t, b, `{"messages":[{"role":"user","content":"What is the airspeed velocity of an unladen swallow?"}]}`, nil)
	var none completionBody
	json.NewDecoder(resp.Body).Decode(&none)
	resp.Body.Close()
	if !none.Hopwise.NotFound || none.Citations == nil || len(none.Citations) != 0 || strings.Contains(none.Choices[0].Message.Content, "Sources:") {
		t.Errorf("unanswerable: %+v", none)
	}

	resp = postCompletion(t, b, `{"messages":[{"role":"user","content":"Who?"}]}`, http.Header{"Origin": {"https://evil.example"}})
	var e struct {
		Error struct{ Message, Type string }
	}
	json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || e.Error.Type != "permission_error" {
		t.Errorf("other origin: %d %+v", resp.StatusCode, e)
	}
}

// With hopwise_steps, the agent's steps come as chunks with no choices; the last chunk holds the citations.
func TestOpenAIStreamSteps(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	resp := postCompletion(t, b, `{"model":"hopwise","stream":true,"hopwise_steps":true,"messages":[{"role":"user","content":"`+webtest.DelhiQuestion+`"}]}`, nil)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			lines = append(lines, d)
		}
	}
	if len(lines) < 3 || lines[len(lines)-1] != "[DONE]" {
		t.Fatalf("stream: %v", lines)
	}
	type chunk struct {
		Choices []struct {
			Delta        struct{ Role, Content string }
			FinishReason *string `json:"finish_reason"`
		}
		Citations []struct{ N int }
		Hopwise   *struct {
			TurnID string `json:"turn_id"`
		}
		Event *struct{ Type, Node, Summary string } `json:"hopwise_event"`
	}
	var chunks []chunk
	for _, l := range lines[:len(lines)-1] {
		var c chunk
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("chunk %s: %v", l, err)
		}
		chunks = append(chunks, c)
	}
	steps := 0
	for _, c := range chunks {
		if c.Event != nil {
			steps++
			if len(c.Choices) != 0 || c.Event.Type == "" {
				t.Errorf("step chunk: %+v", c)
			}
		}
	}
	last := chunks[len(chunks)-1]
	if chunks[0].Choices[0].Delta.Role != "assistant" || steps < 3 || len(last.Citations) != 2 || last.Hopwise == nil ||
		last.Hopwise.TurnID == "" || *last.Choices[0].FinishReason != "stop" {
		t.Errorf("%d steps, first %+v, last %+v", steps, chunks[0], last)
	}
}

// The steps stream as the reasoning_content of ordinary chunks (go-openai reads it), unless
// hopwise_reasoning is false.
func TestOpenAIStreamReasoning(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	stream := func(extra string) (reasoning, text string) {
		resp := postCompletion(t, b, `{"model":"hopwise","stream":true,`+extra+`"messages":[{"role":"user","content":"`+webtest.DelhiQuestion+`"}]}`, nil)
		defer resp.Body.Close()
		var r, c strings.Builder
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			d, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok || d == "[DONE]" {
				continue
			}
			var ch openai.ChatCompletionStreamResponse
			if err := json.Unmarshal([]byte(d), &ch); err != nil || len(ch.Choices) != 1 {
				t.Fatalf("chunk %s: %v", d, err)
			}
			r.WriteString(ch.Choices[0].Delta.ReasoningContent)
			c.WriteString(ch.Choices[0].Delta.Content)
		}
		return r.String(), c.String()
	}
	reasoning, text := stream("")
	if !strings.Contains(reasoning, "Searching your documents\n") || !strings.Contains(reasoning, "Next, looking for: distance between Delhi and Munich\n") ||
		!strings.Contains(text, "600 EUR") || strings.Contains(text, "Searching") {
		t.Errorf("reasoning:\n%s\ntext:\n%s", reasoning, text)
	}
	if reasoning, text := stream(`"hopwise_reasoning":false,`); reasoning != "" || !strings.Contains(text, "600 EUR") {
		t.Errorf("hopwise_reasoning false: reasoning %q", reasoning)
	}
}
