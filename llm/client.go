// Package llm is the client for OpenAI-compatible model servers (OpenAI,
// OpenRouter, Ollama, vLLM, llama.cpp): chat, streaming, structured output
// decoded into Go types, and batched embeddings, with retries, per-call deadlines, per-run accounting and a
// scheduler of the calls in flight (schedule.go): a limit that fits the endpoint and adapts to its 429s, and
// a fair share of it for each question.
package llm

import (
	"cmp"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Structured output dialects, the values of Config.StructuredMode.
const (
	// ModeAuto asks with ModeJSONSchema and, when the server rejects
	// response_format with a 400, uses ModeJSONObject for the client's life.
	ModeAuto = "auto"
	// ModeJSONSchema sends response_format {type: json_schema, json_schema: {name, schema, strict}}
	// (OpenAI, llama.cpp llama-server).
	ModeJSONSchema = "json_schema"
	// ModeJSONObjectSchema sends response_format {type: json_object, schema: {...}}
	// (llama-cpp-python server).
	ModeJSONObjectSchema = "json_object_schema"
	// ModeJSONObject sends response_format {type: json_object} and puts the schema in the prompt.
	ModeJSONObject = "json_object"
	// ModeNone puts the schema in the prompt only.
	ModeNone = "none"
)

// Config configures a Client. Zero values take the documented defaults.
type Config struct {
	BaseURL, APIKey, Model                string // chat endpoint, e.g. http://127.0.0.1:8081/v1
	EmbedBaseURL, EmbedAPIKey, EmbedModel string // default to the chat ones when empty
	StructuredMode                        string // auto (default) | json_schema | json_object_schema | json_object | none

	Timeout           time.Duration // per attempt, default 120s
	StreamIdleTimeout time.Duration // longest gap between stream chunks, default 30s

	// MaxConcurrency is the most chat calls (streamed or not) in flight at once, default 4; after a 429 fewer
	// are sent, growing back to it. DefaultConcurrency gives the limit that fits an endpoint (what `hopwise`
	// uses unless LLM_CONCURRENCY says otherwise).
	MaxConcurrency int
	// EmbedConcurrency is the most embeddings requests in flight at once, a limit apart from the chat calls',
	// default 4 (DefaultEmbedConcurrency: by the endpoint).
	EmbedConcurrency int
	MaxRetries       int // retries after the first attempt, default 4; negative means none
	EmbedBatch       int // texts per embeddings request, default 64
	// MaxOutputTokens caps the answer of a call whose Request sets no MaxTokens, default 2048. Local servers
	// otherwise generate up to their whole context, and keep generating after the client has given up.
	MaxOutputTokens int

	// Temperature is used by Chat and Stream when a Request does not set one;
	// Structured uses 0 unless the Request sets one.
	Temperature float32
	// FrequencyPenalty is sent with Stream's free-text answers when not 0 (small models repeat
	// themselves); never with structured answers, whose JSON repeats keys by design.
	FrequencyPenalty float32
	// CompactSchema, when above 0, makes the schemas sent in the grammar dialect (ModeJSONObjectSchema)
	// leaner for a small local model, whose every output token costs about 0.1 s on a CPU: each list holds
	// at most CompactSchema items and optional (omitempty) text fields are left out of the grammar, so the
	// model cannot spend tokens on them. Answers decode as before: what is left out is optional.
	CompactSchema int

	BackoffBase time.Duration // first backoff ceiling, default 500ms
	BackoffMax  time.Duration // backoff ceiling, default 20s
}

// Validate reports settings that cannot work; New applies defaults and does not fail.
func (c Config) Validate() error {
	switch c.StructuredMode {
	case "", ModeAuto, ModeJSONSchema, ModeJSONObjectSchema, ModeJSONObject, ModeNone:
	default:
		return fmt.Errorf("llm: structured mode %q: want auto, json_schema, json_object_schema, json_object or none", c.StructuredMode)
	}
	if strings.TrimSpace(c.Model) == "" {
		return fmt.Errorf("llm: no chat model configured")
	}
	return nil
}

func (c Config) withDefaults() Config {
	c.BaseURL = cmp.Or(c.BaseURL, "https://api.openai.com/v1")
	c.EmbedBaseURL = cmp.Or(c.EmbedBaseURL, c.BaseURL)
	c.EmbedAPIKey = cmp.Or(c.EmbedAPIKey, c.APIKey)
	c.EmbedModel = cmp.Or(c.EmbedModel, c.Model)
	c.StructuredMode = cmp.Or(c.StructuredMode, ModeAuto)
	c.Timeout = cmp.Or(c.Timeout, 120*time.Second)
	c.StreamIdleTimeout = cmp.Or(c.StreamIdleTimeout, 30*time.Second)
	c.MaxConcurrency = cmp.Or(max(c.MaxConcurrency, 0), 4)
	c.EmbedConcurrency = cmp.Or(max(c.EmbedConcurrency, 0), 4)
	if c.MaxRetries == 0 {
		c.MaxRetries = 4
	}
	c.MaxRetries = max(c.MaxRetries, 0)
	c.EmbedBatch = cmp.Or(max(c.EmbedBatch, 0), 64)
	c.MaxOutputTokens = cmp.Or(max(c.MaxOutputTokens, 0), 2048)
	c.BackoffBase = cmp.Or(c.BackoffBase, 500*time.Millisecond)
	c.BackoffMax = cmp.Or(c.BackoffMax, 20*time.Second)
	return c
}

// Client talks to one chat endpoint and one embeddings endpoint. It is safe
// for concurrent use; its chat calls share one scheduler, its embeddings requests another.
type Client struct {
	cfg      Config
	log      *slog.Logger
	hc       *http.Client
	chatAPI  openai.ClientConfig
	embedAPI openai.ClientConfig
	chat     *scheduler
	embed    *scheduler

	// noJSONSchema is set in auto mode once the server rejected json_schema.
	noJSONSchema atomic.Bool
	totals       Meter
}

// New returns a Client; an unknown StructuredMode is logged and treated as auto.
func New(cfg Config, logger *slog.Logger) *Client {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if err := cfg.Validate(); err != nil {
		logger.Warn("llm: configuration", "err", err)
	}
	cfg = cfg.withDefaults()
	switch cfg.StructuredMode {
	case ModeAuto, ModeJSONSchema, ModeJSONObjectSchema, ModeJSONObject, ModeNone:
	default:
		cfg.StructuredMode = ModeAuto
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = cfg.MaxConcurrency + cfg.EmbedConcurrency
	c := &Client{
		cfg:   cfg,
		log:   logger,
		hc:    &http.Client{Transport: transport},
		chat:  newScheduler("chat", cfg.MaxConcurrency, true, logger),
		embed: newScheduler("embeddings", cfg.EmbedConcurrency, false, logger),
	}
	c.chatAPI = openai.DefaultConfig(cfg.APIKey)
	c.chatAPI.BaseURL = cfg.BaseURL
	c.embedAPI = openai.DefaultConfig(cfg.EmbedAPIKey)
	c.embedAPI.BaseURL = cfg.EmbedBaseURL
	return c
}

// Model returns the chat model name.
func (c *Client) Model() string { return c.cfg.Model }

// EmbedModel returns the embedding model name.
func (c *Client) EmbedModel() string { return c.cfg.EmbedModel }

// Totals returns the usage of this client since New.
func (c *Client) Totals() Usage { return c.totals.Snapshot() }

// Slots reports the chat calls' and the embeddings requests' limits, calls in flight and calls waiting.
func (c *Client) Slots() (chat, embed Slots) { return c.chat.slots(), c.embed.slots() }

// CloseIdleConnections closes kept-alive connections; the client stays usable.
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// api returns a go-openai client whose requests go through x.
func (c *Client) api(base openai.ClientConfig, x *exchange) *openai.Client {
	base.HTTPClient = x
	return openai.NewClientWithConfig(base)
}
