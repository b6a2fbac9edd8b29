package config

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, env map[string]string, args ...string) (*Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c := Bind(fs, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return c, c.Validate()
}

func TestSources(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		args  []string
		check func(c *Config) string
	}{
		{"defaults are local and embedded", nil, nil, func(c *Config) string {
			if c.LLMBaseURL != Local || c.Store() != "sqlite" || c.Addr != "127.0.0.1:8080" {
				return "want local endpoint, sqlite and 127.0.0.1:8080"
			}
			return ""
		}},
		{"OPENAI_API_KEY selects OpenAI", map[string]string{"OPENAI_API_KEY": "sk-abcdefghijk"}, nil, func(c *Config) string {
			if c.LLMBaseURL != "https://api.openai.com/v1" || c.LLMAPIKey != "sk-abcdefghijk" || c.LLMModel != "gpt-4o-mini" {
				return "OpenAI defaults not applied: " + c.LLMBaseURL + " " + c.LLMModel
			}
			return ""
		}},
		{"LLM_BASE_URL wins over OPENAI_BASE_URL", map[string]string{"LLM_BASE_URL": "http://a/v1", "OPENAI_BASE_URL": "http://b/v1"}, nil, func(c *Config) string {
			if c.LLMBaseURL != "http://a/v1" {
				return "got " + c.LLMBaseURL
			}
			return ""
		}},
		{"flag overrides env", map[string]string{"HOPWISE_ADDR": "127.0.0.1:1"}, []string{"-addr", "127.0.0.1:2", "-max-run-time", "5s"}, func(c *Config) string {
			if c.Addr != "127.0.0.1:2" || c.MaxRunTime != 5*time.Second {
				return "flags not applied"
			}
			return ""
		}},
		{"ENTITY_TYPES names the extraction's types", map[string]string{"ENTITY_TYPES": "Airline, airport, aircraft"}, nil, func(c *Config) string {
			if got := strings.Join(c.EntityTypeList(), ","); got != "airline,airport,aircraft" {
				return "types " + got
			}
			return ""
		}},
		{"entity types default to a general list", nil, nil, func(c *Config) string {
			if got := strings.Join(c.EntityTypeList(), ","); !strings.HasPrefix(got, "person,organization,location,event") {
				return "types " + got
			}
			return ""
		}},
		{"model calls at once by the endpoint", nil, nil, func(c *Config) string {
			if c.LLMConcurrency != 1 || c.EmbedConcurrency != 2 || c.MaxAnswers != 8 {
				return fmt.Sprintf("local endpoints: %d chat and %d embeddings calls, %d answers at once, want 1, 2 and 8",
					c.LLMConcurrency, c.EmbedConcurrency, c.MaxAnswers)
			}
			return ""
		}},
		{"a hosted API gets dozens", map[string]string{"OPENAI_API_KEY": "sk-abcdefghijk"}, nil, func(c *Config) string {
			if c.LLMConcurrency != 64 || c.EmbedConcurrency != 16 || c.MaxAnswers != 64 {
				return fmt.Sprintf("hosted: %d chat and %d embeddings calls, %d answers at once, want 64, 16 and 64",
					c.LLMConcurrency, c.EmbedConcurrency, c.MaxAnswers)
			}
			return ""
		}},
		{"hosted chat, local embeddings", map[string]string{"LLM_BASE_URL": "https://api.example.com/v1", "EMBED_BASE_URL": "http://127.0.0.1:8082/v1"}, nil,
			func(c *Config) string {
				if c.LLMConcurrency != 64 || c.EmbedConcurrency != 2 {
					return fmt.Sprintf("%d chat and %d embeddings calls at once, want 64 and 2", c.LLMConcurrency, c.EmbedConcurrency)
				}
				return ""
			}},
		{"LLM_CONCURRENCY overrides the endpoint's default", map[string]string{"OPENAI_API_KEY": "sk-abcdefghijk", "LLM_CONCURRENCY": "8", "EMBED_CONCURRENCY": "3"}, nil,
			func(c *Config) string {
				if c.LLMConcurrency != 8 || c.EmbedConcurrency != 3 {
					return fmt.Sprintf("%d chat and %d embeddings calls at once, want 8 and 3", c.LLMConcurrency, c.EmbedConcurrency)
				}
				return ""
			}},
		{"NEO4J_URI selects neo4j", map[string]string{"NEO4J_URI": "bolt://127.0.0.1:7687"}, nil, func(c *Config) string {
			if c.Store() != "neo4j" {
				return "store " + c.Store()
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parse(t, tt.env, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if msg := tt.check(c); msg != "" {
				t.Error(msg)
			}
		})
	}
}

func TestInvalid(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"bad number", map[string]string{"AGENT_MAX_LOOPS": "many"}, "AGENT_MAX_LOOPS"},
		{"bad duration", map[string]string{"LLM_TIMEOUT": "soon"}, "LLM_TIMEOUT"},
		{"penalty out of range", map[string]string{"LLM_FREQUENCY_PENALTY": "3"}, "LLM_FREQUENCY_PENALTY=\"3\" is not a number from -2 to 2"},
		{"penalty not a number", map[string]string{"LLM_FREQUENCY_PENALTY": "some"}, "LLM_FREQUENCY_PENALTY"},
		{"bad mode", map[string]string{"LLM_STRUCTURED_MODE": "xml"}, "LLM_STRUCTURED_MODE"},
		{"negative concurrency", map[string]string{"LLM_CONCURRENCY": "-2"}, "LLM_CONCURRENCY -2"},
		{"negative answers", map[string]string{"HOPWISE_MAX_ANSWERS": "-1"}, "HOPWISE_MAX_ANSWERS -1"},
		{"searxng without url", map[string]string{"WEB_SEARCH": "searxng"}, "WEB_SEARCH_URL"},
		{"unknown provider", map[string]string{"WEB_SEARCH": "bing"}, "WEB_SEARCH"},
		{"unknown table reading", map[string]string{"EXTRACT_TABLES": "cells"}, "EXTRACT_TABLES"},
		{"entity type too long", map[string]string{"ENTITY_TYPES": "person, " + strings.Repeat("x", 30)}, "ENTITY_TYPES"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, tt.env)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want mention of %s", err, tt.want)
			}
		})
	}
}

func TestEffectiveMasksSecrets(t *testing.T) {
	c, err := parse(t, map[string]string{"OPENAI_API_KEY": "sk-secretsecretsecret", "NEO4J_PASSWORD": "hunter2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range c.Effective() {
		if strings.Contains(e.Value, "secretsecret") || strings.Contains(e.Value, "hunter2") {
			t.Errorf("%s shows a secret: %q", e.Env, e.Value)
		}
	}
}
