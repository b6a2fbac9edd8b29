package agent_test

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm"
)

// watchingProxy stands between the agent and the scripted model and sees, for each request, whether the
// client went away before the answer was complete.
type watchingProxy struct {
	srv *httptest.Server

	mu             sync.Mutex
	inFlight, gone int
}

func newWatchingProxy(t *testing.T, target string) *watchingProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &watchingProxy{}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	rp.ErrorLog = log.New(io.Discard, "", 0)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.inFlight++
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
		p.mu.Lock()
		p.inFlight--
		if r.Context().Err() != nil {
			p.gone++
		}
		p.mu.Unlock()
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *watchingProxy) url() string { return p.srv.URL + "/v1" }

func (p *watchingProxy) active() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inFlight
}

// abandoned counts requests whose client went away before the answer ended.
func (p *watchingProxy) abandoned() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gone
}

// agentVia returns an agent whose model calls go to baseURL.
func (m *model) agentVia(baseURL string, cfg agent.Config) *agent.Agent {
	c := llm.New(llm.Config{BaseURL: baseURL, APIKey: "test", Model: "test-model", EmbedModel: "test-embed",
		MaxRetries: -1, MaxConcurrency: 8}, nil)
	return agent.New(c, graphrag.NewRetriever(demoStore(m.t), c), nil, nil, cfg, nil)
}
