// Package config reads Hopwise's settings from environment variables and command-line flags. Every setting
// has an environment variable; a flag of the same meaning overrides it.
package config

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm"
)

// Config is the effective configuration of one process.
type Config struct {
	Addr     string
	DataDir  string
	LogLevel string
	LogJSON  bool

	Neo4jURI      string
	Neo4jUser     string
	Neo4jPassword string
	Neo4jDatabase string

	LLMBaseURL        string
	LLMAPIKey         string
	LLMModel          string
	EmbedBaseURL      string
	EmbedAPIKey       string
	EmbedModel        string
	EmbedDim          int
	StructuredMode    string
	LLMTimeout        time.Duration
	StreamIdleTimeout time.Duration
	LLMConcurrency    int // most chat calls in flight; 0 until Validate: by the endpoint (llm.DefaultConcurrency)
	EmbedConcurrency  int // most embeddings requests in flight; 0 until Validate: by the endpoint
	LLMRetries        int
	LLMMaxOutput      int
	LLMFreqPenalty    float64 // frequency_penalty of streamed (free-text) answers; 0 sends none
	LLMCompactSchema  int     // above 0: grammar schemas cap lists at this and leave out optional text (small models)
	ExtractTables     string  // "model": tables go to the chat model with the prose; "rows": rows read as facts without it
	EntityResolution  bool    // names resolved at ingest beyond the normalised key (graphrag/resolve)

	WebSearch       string // off, searxng, tavily
	WebSearchURL    string
	WebSearchAPIKey string
	RerankURL       string
	RerankModel     string
	RerankAPIKey    string

	MaxLoops     int
	MaxRevisions int
	MaxLLMCalls  int
	MaxTokens    int
	MaxRunTime   time.Duration
	HyDE         bool
	AgentSkip    string // techniques switched off, comma-separated (agent.TechniqueNames)
	AgentProfile string // "" the full research loop, "local" the short loop for small local models

	MaxUploadBytes   int64
	MaxRequestBytes  int64
	MaxQuestionChars int
	AskPerMinute     int
	UploadPerMinute  int
	IngestWorkers    int
	Lease            time.Duration // a process's hold on an answer or an ingestion job, renewed while it works
	MaxAnswers       int           // answers written at once; 0 until Validate: LLM_CONCURRENCY, at least 8
	EntityTypes      string        // the entity types extraction asks for, comma-separated (graphrag.ParseEntityTypes)

	PublicHost string // names served besides the loopback names, comma-separated (DNS rebinding guard)
	Secret     string // signs CSRF tokens; empty: a random one per process
	MaxConns   int    // connections served at once
	StoreForce bool   // open an empty, schema-less or damaged store file anyway
	Workspace  string // the workspace a command acts in (serve: every workspace)

	AdminUser      string        // the first admin's name, on a store without accounts
	AdminPassword  string        // the first admin's password; empty with AdminUser: a setup link is logged
	TrustedProxies string        // proxies whose X-Forwarded-For is believed: addresses or CIDRs, comma-separated
	SessionIdle    time.Duration // a session unused this long ends
	SessionMax     time.Duration // a session ends this long after its sign-in

	RemoteURL   string // a Hopwise server the CLI asks instead of opening the store (HOPWISE_URL)
	RemoteToken string // the API token it sends (HOPWISE_TOKEN)

	envErrs []string // environment values that did not parse
}

// setting binds one Config field to its flag and environment variables (first set variable wins).
type setting struct {
	flag   string
	env    []string
	usage  string
	secret bool
	bind   func(fs *flag.FlagSet, name, usage string, env string)
	show   func() string
}

// Local is the OpenAI-compatible endpoint that `make run` starts when no model endpoint is configured.
const Local = "http://127.0.0.1:8081/v1"

// Bind registers every setting on fs with its default taken from the environment (lookup, normally
// os.LookupEnv) and returns the Config the flags fill when fs is parsed.
func Bind(fs *flag.FlagSet, lookup func(string) (string, bool)) *Config {
	c := &Config{}
	for _, s := range c.settings(lookup) {
		s.bind(fs, s.flag, s.usage+" (env "+strings.Join(s.env, ", ")+")", "")
	}
	return c
}

// FromEnv returns the configuration given by the environment alone.
func FromEnv() (*Config, error) {
	fs := flag.NewFlagSet("env", flag.ContinueOnError)
	c := Bind(fs, os.LookupEnv)
	if err := fs.Parse(nil); err != nil {
		return nil, err
	}
	return c, c.Validate()
}

func (c *Config) settings(lookup func(string) (string, bool)) []setting {
	get := func(def string, names ...string) string {
		for _, n := range names {
			if v, ok := lookup(n); ok && v != "" {
				return v
			}
		}
		return def
	}
	hasKey := get("", "LLM_API_KEY", "OPENAI_API_KEY") != ""
	baseDefault, modelDefault, embedDefault := Local, "local-chat", "local-embed"
	if hasKey {
		baseDefault, modelDefault, embedDefault = "https://api.openai.com/v1", "gpt-4o-mini", "text-embedding-3-small"
	}
	str := func(p *string, flagName, usage, def string, env ...string) setting {
		return setting{flag: flagName, env: env, usage: usage, show: func() string { return *p },
			bind: func(fs *flag.FlagSet, name, u, _ string) { fs.StringVar(p, name, get(def, env...), u) }}
	}
	secret := func(p *string, flagName, usage string, env ...string) setting {
		s := str(p, flagName, usage, "", env...)
		s.secret = true
		s.show = func() string { return Mask(*p) }
		return s
	}
	integer := func(p *int, flagName, usage string, def int, env ...string) setting {
		return setting{flag: flagName, env: env, usage: usage, show: func() string { return strconv.Itoa(*p) },
			bind: func(fs *flag.FlagSet, name, u, _ string) { fs.IntVar(p, name, c.atoi(env, get("", env...), def), u) }}
	}
	size := func(p *int64, flagName, usage string, def int64, env ...string) setting {
		return setting{flag: flagName, env: env, usage: usage, show: func() string { return strconv.FormatInt(*p, 10) },
			bind: func(fs *flag.FlagSet, name, u, _ string) {
				fs.Int64Var(p, name, int64(c.atoi(env, get("", env...), int(def))), u)
			}}
	}
	duration := func(p *time.Duration, flagName, usage string, def time.Duration, env ...string) setting {
		return setting{flag: flagName, env: env, usage: usage, show: func() string { return p.String() },
			bind: func(fs *flag.FlagSet, name, u, _ string) {
				fs.DurationVar(p, name, c.duration(env, get("", env...), def), u)
			}}
	}
	number := func(p *float64, flagName, usage string, def float64, env ...string) setting {
		return setting{flag: flagName, env: env, usage: usage, show: func() string { return strconv.FormatFloat(*p, 'g', -1, 64) },
			bind: func(fs *flag.FlagSet, name, u, _ string) {
				fs.Float64Var(p, name, c.float(env, get("", env...), def), u)
			}}
	}
	boolean := func(p *bool, flagName, usage string, def bool, env ...string) setting {
		return setting{flag: flagName, env: env, usage: usage, show: func() string { return strconv.FormatBool(*p) },
			bind: func(fs *flag.FlagSet, name, u, _ string) {
				fs.BoolVar(p, name, c.boolean(env, get("", env...), def), u)
			}}
	}
	return []setting{
		str(&c.Addr, "addr", "listen address HOST:PORT", "127.0.0.1:8080", "HOPWISE_ADDR"),
		str(&c.DataDir, "data-dir", "data directory (embedded store, uploads, local models)", "data", "HOPWISE_DATA_DIR"),
		str(&c.LogLevel, "log-level", "log level: debug, info, warn, error", "info", "HOPWISE_LOG_LEVEL"),
		boolean(&c.LogJSON, "log-json", "log as JSON lines", false, "HOPWISE_LOG_JSON"),

		str(&c.Neo4jURI, "neo4j-uri", "Neo4j Bolt URI; when set, all state lives in Neo4j", "", "NEO4J_URI"),
		str(&c.Neo4jUser, "neo4j-user", "Neo4j user name", "neo4j", "NEO4J_USERNAME"),
		secret(&c.Neo4jPassword, "neo4j-password", "Neo4j password", "NEO4J_PASSWORD"),
		str(&c.Neo4jDatabase, "neo4j-database", "Neo4j database name (empty: the server's default)", "", "NEO4J_DATABASE"),

		str(&c.LLMBaseURL, "llm-base-url", "OpenAI-compatible chat endpoint", baseDefault, "LLM_BASE_URL", "OPENAI_BASE_URL"),
		secret(&c.LLMAPIKey, "llm-api-key", "API key of the chat endpoint", "LLM_API_KEY", "OPENAI_API_KEY"),
		str(&c.LLMModel, "llm-model", "chat model", modelDefault, "LLM_MODEL"),
		str(&c.EmbedBaseURL, "embed-base-url", "embeddings endpoint (default: the chat endpoint)", "", "EMBED_BASE_URL"),
		secret(&c.EmbedAPIKey, "embed-api-key", "API key of the embeddings endpoint (default: the chat key)", "EMBED_API_KEY"),
		str(&c.EmbedModel, "embed-model", "embedding model", embedDefault, "EMBED_MODEL"),
		integer(&c.EmbedDim, "embed-dim", "embedding dimension (0: ask the model at start)", 0, "EMBED_DIM"),
		str(&c.StructuredMode, "llm-structured-mode", "how to ask for JSON: auto, json_schema, json_object_schema, json_object, none", "auto", "LLM_STRUCTURED_MODE"),
		duration(&c.LLMTimeout, "llm-timeout", "deadline of one model call", 120*time.Second, "LLM_TIMEOUT"),
		duration(&c.StreamIdleTimeout, "llm-stream-idle-timeout", "abort a stream silent for this long", 30*time.Second, "LLM_STREAM_IDLE_TIMEOUT"),
		integer(&c.LLMConcurrency, "llm-concurrency", "most chat calls in flight at once, process-wide, shared fairly between the "+
			"questions being answered; fewer after a 429 (0: by the endpoint, 1 on loopback, 64 for a hosted API)", 0, "LLM_CONCURRENCY"),
		integer(&c.EmbedConcurrency, "embed-concurrency", "most embeddings requests in flight at once, a limit apart from the chat "+
			"calls' (0: by the endpoint, 2 on loopback, 16 for a hosted API)", 0, "EMBED_CONCURRENCY"),
		integer(&c.LLMRetries, "llm-retries", "retries of a failed model call (429, 5xx, timeouts)", 4, "LLM_RETRIES"),
		integer(&c.LLMMaxOutput, "llm-max-output-tokens", "longest answer of one model call", 2048, "LLM_MAX_OUTPUT_TOKENS"),
		number(&c.LLMFreqPenalty, "llm-frequency-penalty", "frequency_penalty of written answers, -2 to 2 (0: none sent; "+
			"small local models loop less at 0.5); never of JSON answers", 0, "LLM_FREQUENCY_PENALTY"),
		integer(&c.LLMCompactSchema, "llm-compact-schema", "above 0, for small local models: JSON answers under llama.cpp's grammar "+
			"(json_object_schema) hold at most this many items a list and no optional text fields (shorter extraction)", 0, "LLM_COMPACT_SCHEMA"),
		boolean(&c.EntityResolution, "entity-resolution", "resolve entity names at ingest beyond the normalised key: merge the "+
			"pairs it is sure of, propose the others on the Possible duplicates page (graphrag/resolve)", true, "ENTITY_RESOLUTION"),
		str(&c.ExtractTables, "extract-tables", "how ingestion reads a passage's Markdown tables: model (the chat model extracts them "+
			"with the prose) or rows (each row read as facts without the model, which gets only the prose: every row kept, and much "+
			"faster with a small local model)", "model", "EXTRACT_TABLES"),

		str(&c.WebSearch, "web-search", "web search fallback: off, searxng, tavily", "off", "WEB_SEARCH"),
		str(&c.WebSearchURL, "web-search-url", "web search endpoint", "", "WEB_SEARCH_URL"),
		secret(&c.WebSearchAPIKey, "web-search-api-key", "web search API key", "WEB_SEARCH_API_KEY", "TAVILY_API_KEY"),
		str(&c.RerankURL, "rerank-url", "Cohere/TEI-style /rerank endpoint (empty: no reranking)", "", "RERANK_URL"),
		str(&c.RerankModel, "rerank-model", "rerank model name", "", "RERANK_MODEL"),
		secret(&c.RerankAPIKey, "rerank-api-key", "rerank API key", "RERANK_API_KEY"),

		integer(&c.MaxLoops, "max-loops", "agent: retrieval rounds per question", 3, "AGENT_MAX_LOOPS"),
		integer(&c.MaxRevisions, "max-revisions", "agent: answer revisions per question", 2, "AGENT_MAX_REVISIONS"),
		integer(&c.MaxLLMCalls, "max-llm-calls", "agent: model calls per question", 24, "AGENT_MAX_LLM_CALLS"),
		integer(&c.MaxTokens, "max-tokens", "agent: tokens per question", 60000, "AGENT_MAX_TOKENS"),
		duration(&c.MaxRunTime, "max-run-time", "agent: wall time per question", 3*time.Minute, "AGENT_MAX_RUN_TIME"),
		boolean(&c.HyDE, "hyde", "agent: hypothetical-document embeddings for retrieval", false, "AGENT_HYDE"),
		str(&c.AgentSkip, "skip", "agent: techniques to switch off, comma-separated: decide, graph, multiquery, grading, audit, web, rerank "+
			"(decide, grading and audit for a model too small to judge)", "", "AGENT_SKIP"),
		str(&c.AgentProfile, "profile", "agent: loop profile: empty for the full research loop, local for the short loop "+
			"of small local models (one answer call a pass, at most two passes; set by the local models' env)", "", "AGENT_PROFILE"),

		size(&c.MaxUploadBytes, "max-upload-bytes", "largest file accepted", 25<<20, "HOPWISE_MAX_UPLOAD_BYTES"),
		size(&c.MaxRequestBytes, "max-request-bytes", "largest upload request (all files)", 100<<20, "HOPWISE_MAX_REQUEST_BYTES"),
		integer(&c.MaxQuestionChars, "max-question-chars", "longest question accepted", 2000, "HOPWISE_MAX_QUESTION_CHARS"),
		integer(&c.AskPerMinute, "ask-per-minute", "questions per client per minute", 20, "HOPWISE_ASK_PER_MINUTE"),
		integer(&c.UploadPerMinute, "upload-per-minute", "upload requests per client per minute", 30, "HOPWISE_UPLOAD_PER_MINUTE"),
		integer(&c.IngestWorkers, "ingest-workers", "documents ingested at once", 2, "HOPWISE_INGEST_WORKERS"),
		duration(&c.Lease, "lease", "how long a process's hold on an answer or an ingestion job lasts unless renewed (it is "+
			"renewed every third of it): when the process dies, another sharing the store takes the job over, and shows the "+
			"answer as interrupted, this long after", 15*time.Second, "HOPWISE_LEASE"),
		integer(&c.MaxAnswers, "max-answers", "answers being written at once, all clients together; more questions are refused "+
			"until one ends (0: LLM_CONCURRENCY, at least 8; those beyond the model's calls wait in line and see their place)", 0,
			"HOPWISE_MAX_ANSWERS"),
		str(&c.EntityTypes, "entity-types", "kinds of entity the extraction prompt asks the model for, comma-separated "+
			"(passages read before a change keep their types)", strings.Join(graphrag.DefaultEntityTypes, ", "), "ENTITY_TYPES"),

		str(&c.PublicHost, "public-host", "names (host or host:port, comma-separated) the web app answers to besides "+
			"localhost and loopback addresses; any other Host header gets 421", "", "HOPWISE_PUBLIC_HOST"),
		secret(&c.Secret, "secret", "secret that signs the pages' CSRF tokens; set the same one on every serve "+
			"process behind a load balancer (empty: random at each start)", "HOPWISE_SECRET"),
		integer(&c.MaxConns, "max-conns", "connections served at once; more wait to be accepted", 512, "HOPWISE_MAX_CONNS"),
		str(&c.Workspace, "workspace", "the workspace a command reads and changes (an admin creates workspaces on the Admin page; "+
			"`hopwise serve` serves every one)", "default", "HOPWISE_WORKSPACE"),
		boolean(&c.StoreForce, "store-force", "open the SQLite file even when it is empty, holds no Hopwise schema or "+
			"fails PRAGMA quick_check (the status page then says so)", false, "HOPWISE_STORE_FORCE"),

		str(&c.AdminUser, "admin-user", "on a store without accounts, the first admin's user name (with HOPWISE_ADMIN_PASSWORD "+
			"the account is created; without, a one-time setup link is logged)", "", "HOPWISE_ADMIN_USER"),
		secret(&c.AdminPassword, "admin-password", "on a store without accounts, the first admin's password (12 to 128 characters)",
			"HOPWISE_ADMIN_PASSWORD"),
		str(&c.TrustedProxies, "trusted-proxies", "reverse proxies (addresses or CIDR ranges, comma-separated) whose X-Forwarded-For "+
			"and X-Forwarded-Proto are believed, for rate limits, logs and Secure cookies", "", "HOPWISE_TRUSTED_PROXIES"),
		duration(&c.SessionIdle, "session-idle", "a signed-in browser unused this long is signed out", 30*time.Minute, "HOPWISE_SESSION_IDLE"),
		duration(&c.SessionMax, "session-max", "a signed-in browser is signed out this long after signing in", 12*time.Hour, "HOPWISE_SESSION_MAX"),
		str(&c.RemoteURL, "url", "a running Hopwise (http://host:port) that ask sends the question to instead of opening the store",
			"", "HOPWISE_URL"),
		secret(&c.RemoteToken, "token", "the API token sent to HOPWISE_URL (create one on the Settings page)", "HOPWISE_TOKEN"),
	}
}

// Validate reports settings that cannot work together.
func (c *Config) Validate() error {
	if len(c.envErrs) > 0 {
		return fmt.Errorf("config: %s", strings.Join(c.envErrs, "; "))
	}
	switch c.StructuredMode {
	case "auto", "json_schema", "json_object_schema", "json_object", "none":
	default:
		return fmt.Errorf("config: LLM_STRUCTURED_MODE %q: want auto, json_schema, json_object_schema, json_object or none", c.StructuredMode)
	}
	switch c.WebSearch {
	case "off", "":
		c.WebSearch = "off"
	case "searxng", "tavily":
		if c.WebSearchURL == "" && c.WebSearch == "searxng" {
			return fmt.Errorf("config: WEB_SEARCH=searxng needs WEB_SEARCH_URL (the SearXNG base URL)")
		}
	default:
		return fmt.Errorf("config: WEB_SEARCH %q: want off, searxng or tavily", c.WebSearch)
	}
	if c.MaxLoops < 1 || c.MaxLLMCalls < 1 || c.MaxRunTime <= 0 {
		return fmt.Errorf("config: agent caps must be positive (loops %d, calls %d, time %s)", c.MaxLoops, c.MaxLLMCalls, c.MaxRunTime)
	}
	switch c.ExtractTables {
	case "":
		c.ExtractTables = "model"
	case "model", "rows":
	default:
		return fmt.Errorf("config: EXTRACT_TABLES %q: want model or rows", c.ExtractTables)
	}
	switch c.AgentProfile {
	case "", "local":
	default:
		return fmt.Errorf("config: AGENT_PROFILE %q: want local or nothing", c.AgentProfile)
	}
	if c.LLMConcurrency < 0 || c.EmbedConcurrency < 0 {
		return fmt.Errorf("config: LLM_CONCURRENCY %d, EMBED_CONCURRENCY %d: want a number of calls, or 0 for the endpoint's default",
			c.LLMConcurrency, c.EmbedConcurrency)
	}
	if c.LLMConcurrency == 0 {
		c.LLMConcurrency = llm.DefaultConcurrency(c.LLMBaseURL)
	}
	if c.EmbedConcurrency == 0 {
		c.EmbedConcurrency = llm.DefaultEmbedConcurrency(cmp.Or(c.EmbedBaseURL, c.LLMBaseURL))
	}
	if c.Lease < time.Second {
		return fmt.Errorf("config: HOPWISE_LEASE %s: want at least 1s (a hold renewed every third of it)", c.Lease)
	}
	if c.MaxAnswers < 0 {
		return fmt.Errorf("config: HOPWISE_MAX_ANSWERS %d: want a number of answers, or 0 for the model's calls at once", c.MaxAnswers)
	}
	if c.MaxAnswers == 0 {
		c.MaxAnswers = max(8, c.LLMConcurrency)
	}
	if _, err := graphrag.ParseEntityTypes(c.EntityTypes); err != nil {
		return fmt.Errorf("config: ENTITY_TYPES: %w", err)
	}
	return nil
}

// EntityTypeList is ENTITY_TYPES as a list; the defaults when it names none or does not parse (Validate
// reports that).
func (c *Config) EntityTypeList() []string {
	types, err := graphrag.ParseEntityTypes(c.EntityTypes)
	if err != nil {
		return graphrag.DefaultEntityTypes
	}
	return types
}

// Store names the store the configuration selects.
func (c *Config) Store() string {
	if c.Neo4jURI != "" {
		return "neo4j"
	}
	return "sqlite"
}

// Entry is one setting as shown to people: secrets masked.
type Entry struct{ Name, Env, Value string }

// Effective lists every setting with its value, secrets masked, sorted by environment variable.
func (c *Config) Effective() []Entry {
	var out []Entry
	for _, s := range c.settings(func(string) (string, bool) { return "", false }) {
		out = append(out, Entry{Name: s.flag, Env: s.env[0], Value: s.show()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Env < out[j].Env })
	return out
}

// Mask hides a secret, keeping enough to tell two keys apart.
func Mask(s string) string {
	switch {
	case s == "":
		return ""
	case len(s) <= 8:
		return "****"
	default:
		return s[:3] + "…" + s[len(s)-2:]
	}
}

func (c *Config) bad(env []string, value, want string) {
	c.envErrs = append(c.envErrs, fmt.Sprintf("%s=%q is not %s", env[0], value, want))
}

func (c *Config) atoi(env []string, s string, def int) int {
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		c.bad(env, s, "a whole number")
		return def
	}
	return v
}

func (c *Config) duration(env []string, s string, def time.Duration) time.Duration {
	if s == "" {
		return def
	}
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		c.bad(env, s, "a duration such as 90s or 2m")
		return def
	}
	return v
}

func (c *Config) float(env []string, s string, def float64) float64 {
	if s == "" {
		return def
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v < -2 || v > 2 {
		c.bad(env, s, "a number from -2 to 2")
		return def
	}
	return v
}

func (c *Config) boolean(env []string, s string, def bool) bool {
	if s == "" {
		return def
	}
	v, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		c.bad(env, s, "true or false")
		return def
	}
	return v
}
