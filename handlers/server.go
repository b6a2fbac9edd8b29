// Package handlers serves Hopwise over HTTP with Echo: it parses requests, calls graphrag and agent, and
// renders web (templ) views or JSON. It holds no domain logic.
package handlers

import (
	"cmp"
	"context"
	"crypto/rand"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/hopwise/hopwise/apiv1"
	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/urlfetch"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/net/netutil"
)

// Limits protect the server and the model budget from oversized or too many requests.
type Limits struct {
	MaxUploadBytes   int64 // largest file
	MaxRequestBytes  int64 // largest upload request, all files together
	MaxQuestionChars int
	AskPerMinute     int // questions per client
	UploadPerMinute  int // upload requests per client
	MaxRunning       int // answers being written at once, all clients together (default 8)
	// A request body must arrive at MinBodyRate bytes a second on average after BodyGrace (defaults
	// 1 KiB/s after 10 s), or its connection is closed.
	MinBodyRate int64
	BodyGrace   time.Duration
	// ReconnectGrace is how long an answer goes on once no page follows it (default 10 s): a reloaded
	// page or a stream reconnecting to any process within it continues the answer; after it the answer
	// is cancelled, as a closed tab cancels it.
	ReconnectGrace time.Duration
}

func (l Limits) withDefaults() Limits {
	l.MaxUploadBytes = cmp.Or(l.MaxUploadBytes, 25<<20)
	l.MaxRequestBytes = cmp.Or(l.MaxRequestBytes, 100<<20)
	l.MaxQuestionChars = cmp.Or(l.MaxQuestionChars, 2000)
	l.AskPerMinute = cmp.Or(l.AskPerMinute, 20)
	l.UploadPerMinute = cmp.Or(l.UploadPerMinute, 30)
	l.MaxRunning = cmp.Or(l.MaxRunning, 8)
	l.MinBodyRate = cmp.Or(l.MinBodyRate, 1<<10)
	l.BodyGrace = cmp.Or(l.BodyGrace, 10*time.Second)
	l.ReconnectGrace = cmp.Or(l.ReconnectGrace, 10*time.Second)
	return l
}

// Deps is what the handlers need from the rest of the process.
type Deps struct {
	Logger   *slog.Logger
	Status   StatusFunc
	Store    Store
	Ingester Ingester
	Chat     Asker
	// Retriever searches for the API and MCP (graphrag.Retriever, as `hopwise search` uses it).
	Retriever apiv1.Retriever
	// Reindex re-embeds the store from the status page (status_reindex.go); nil: no button.
	Reindex Reindexer
	Limits  Limits
	// URLFetch bounds the pages added by address. Zero fields take urlfetch's defaults, except MaxBytes,
	// which is at most MaxUploadBytes; Allow stays empty outside tests.
	URLFetch urlfetch.Options
	// PublicHosts are the names (with or without a port) this server answers to besides the loopback
	// names; any other Host header gets 421 (DNS rebinding).
	PublicHosts []string
	// Secret signs the CSRF tokens; empty: a random secret for this process (tokens end with it).
	Secret []byte
	// Closing is closed when the server starts shutting down: progress streams end at once so that
	// shutdown waits only for answers being written.
	Closing <-chan struct{}
	// Auth signs people in and keeps accounts, sessions and tokens (access.go); nil: everyone is the
	// local user, as on a laptop without accounts.
	Auth *auth.Service
	// TrustedProxies are the peers whose X-Forwarded-For and X-Forwarded-Proto are believed (client_ip.go).
	TrustedProxies []netip.Prefix
	// Summaries writes the community summaries from the graph page (graph_communities.go); nil: the page
	// shows the topics' counts only.
	Summaries Summaries
	// Workspaces opens a workspace's parts by ID (workspace.go); every request acts in one. Nil: one
	// workspace, the default, whose parts are the fields above. Set, the fields above are not used: every
	// route reaches a workspace's parts through it, and one that did not would find none.
	Workspaces func(ctx context.Context, id string) (*Workspace, error)
	// DropWorkspace stops whatever runs in workspace id and removes everything of it from the store
	// (graphrag.WorkspaceDropper), when an admin deletes it (auth_admin.go); nil: workspaces are not deleted.
	DropWorkspace func(ctx context.Context, id string) error
	// EntityTypes are the server's entity types (ENTITY_TYPES), which a workspace without its own extracts
	// with; nil: graphrag.DefaultEntityTypes.
	EntityTypes []string
}

// server holds the dependencies every handler shares.
type server struct {
	Deps
	asks *askRegistry
	// runs are the page's answers this process writes (chat_runs.go).
	runs *pageRuns
	// askRate counts every client's questions, whichever interface asks them.
	askRate middleware.RateLimiterStore
	// groupNotFound holds the paths of the routes Echo adds for a group's unknown addresses (access lets
	// them answer 404).
	groupNotFound map[string]bool
	// views are the workspaces' views of the server (workspace.go); mcp is this view's MCP handler.
	views *views
	mcp   func() http.Handler
}

// New returns the Echo instance with every route and middleware.
func New(d Deps) *echo.Echo {
	d.Limits = d.Limits.withDefaults()
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	d.URLFetch.MaxBytes = cmp.Or(d.URLFetch.MaxBytes, min(urlfetch.DefaultMaxBytes, d.Limits.MaxUploadBytes))
	if len(d.Secret) == 0 {
		d.Secret = make([]byte, 32)
		_, _ = rand.Read(d.Secret)
	}
	if d.Closing == nil {
		d.Closing = make(chan struct{})
	}
	s := &server{Deps: d, asks: newAskRegistry(d.Limits.MaxRunning), runs: newPageRuns(), askRate: newRateStore(d.Limits.AskPerMinute), views: &views{}}
	s.mcp = sync.OnceValue(s.newMCPHandler)
	if d.Workspaces != nil {
		// Every route reaches a workspace's parts through its view (in): the server itself has none, so a
		// route registered without in fails rather than serving the default workspace to everyone.
		s.Store, s.Ingester, s.Chat, s.Retriever, s.Reindex, s.Summaries = nil, nil, nil, nil, nil, nil
	}
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	// Clients are identified by the connection's address, or behind a trusted proxy by the address it
	// forwards: a client cannot dodge the rate limits by inventing addresses.
	e.IPExtractor = clientIP(d.TrustedProxies)
	e.HTTPErrorHandler = s.respondError
	e.Use(middleware.Recover())
	e.Use(requestLog(d.Logger))
	e.Use(hostAllowList(d.PublicHosts))
	e.Use(securityHeaders)
	e.Use(slowBodyGuard(d.Limits.MinBodyRate, d.Limits.BodyGrace))
	e.Use(limitBodies(d.Limits.MaxRequestBytes))
	e.Use(csrfProtection(d.Secret))
	e.Use(s.access)
	s.routes(e)
	s.groupNotFound = groupNotFoundPaths(e)
	return e
}

func (s *server) routes(e *echo.Echo) {
	askLimit := rateLimitWith(s.askRate, tooManyQuestions)
	uploadLimit := rateLimit(s.Limits.UploadPerMinute, "Too many uploads in a short time: please wait a minute and try again.")

	e.GET("/healthz", health)
	e.GET("/static/*", serveStatic())

	e.GET("/", s.in((*server).chatPage))
	e.POST("/chat/ask", s.in((*server).chatAsk), askLimit)
	e.GET("/chat/stream/:run", s.in((*server).chatStream))
	e.POST("/chat/stop/:run", s.in((*server).chatStop))
	e.POST("/chat/retry/:turn", s.in((*server).chatRetry), askLimit)
	e.POST("/chat/conversations/:id/rename", s.in((*server).conversationRename))
	e.POST("/chat/conversations/:id/delete", s.in((*server).conversationDelete))
	e.GET("/passages/:id", s.in((*server).passageRedirect))

	e.GET("/documents", s.in((*server).documentsPage))
	e.POST("/documents", s.in((*server).documentsUpload), uploadLimit)
	e.POST("/documents/url", s.in((*server).documentsAddURL), uploadLimit)
	e.POST("/documents/samples", s.in((*server).documentsSamples), uploadLimit)
	e.GET("/documents/events", s.in((*server).documentEvents))
	e.GET("/documents/:id", s.in((*server).documentPage))
	e.GET("/documents/:id/original", s.in((*server).documentOriginal))
	e.POST("/documents/:id/delete", s.in((*server).documentDelete))
	e.POST("/documents/:id/retry", s.in((*server).documentRetry))
	e.POST("/documents/:id/replace", s.in((*server).documentsUpload), uploadLimit)

	e.GET("/graph", s.in((*server).graphPage))
	e.GET("/graph/entity", s.in((*server).graphEntity))
	e.GET("/graph/relation", s.in((*server).graphRelation))
	e.GET("/graph/duplicates", s.in((*server).duplicatesPage))
	e.POST("/graph/duplicates/:id/merge", s.in((*server).duplicateMerge))
	e.POST("/graph/duplicates/:id/distinct", s.in((*server).duplicateDistinct))
	e.POST("/graph/edits/:id/undo", s.in((*server).editUndo))
	e.GET("/graph/entities/edit", s.in((*server).entityEditPage))
	e.POST("/graph/entities/edit", s.in((*server).entityEditPost))
	e.GET("/graph/communities", s.in((*server).graphCommunities))
	e.POST("/graph/communities/summaries", s.in((*server).graphSummarize))
	e.POST("/graph/communities/stop", s.in((*server).graphSummariesStop))

	e.GET("/status", s.in((*server).statusPage))
	e.GET("/status/reindex", s.in((*server).statusReindexProgress))
	e.POST("/status/reindex", s.in((*server).statusReindex))

	e.GET("/api/status", s.in(func(v *server, c echo.Context) error { return statusJSON(v.Status)(c) }))
	e.GET("/api/documents", s.in((*server).apiDocuments))
	e.POST("/api/documents", s.in((*server).apiUpload), uploadLimit)
	e.POST("/api/documents/url", s.in((*server).apiAddURL), uploadLimit)
	e.GET("/api/documents/:id", s.in((*server).apiDocument))
	e.DELETE("/api/documents/:id", s.in((*server).apiDocumentDelete))
	e.GET("/api/graph/entities", s.in((*server).apiEntities))
	e.GET("/api/graph/neighborhood", s.in((*server).apiNeighborhood))
	e.POST("/api/ask", s.in((*server).apiAsk), askLimit)

	s.routesV1(e, askLimit, uploadLimit)
	s.routeMCP(e)
	s.routesOpenAI(e, askLimit)
	s.routesAuth(e)
}

// NewHTTPServer wraps h with the timeouts that protect against slow clients (Slowloris): headers must
// arrive within 5 s; WriteTimeout stays 0 because answers stream for minutes and each stream enforces its
// own deadline.
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

// DefaultMaxConns is how many connections Listen serves at once when not told.
const DefaultMaxConns = 512

// Listen listens on addr and serves at most maxConns connections at once (DefaultMaxConns when not
// positive): the others wait in the kernel's backlog until one closes, so a flood of idle or slow
// connections cannot exhaust the process's file descriptors or memory.
func Listen(addr string, maxConns int) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return netutil.LimitListener(ln, cmp.Or(max(maxConns, 0), DefaultMaxConns)), nil
}

func requestLog(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			attrs := []any{"method", c.Request().Method, "path", c.Request().URL.Path,
				"status", c.Response().Status, "duration", time.Since(start).Round(time.Millisecond), "client", c.RealIP()}
			if p, ok := principalOf(c); ok && !p.Local {
				attrs = append(attrs, "user", p.Name())
			}
			if ws := workspaceOf(c); ws != "" {
				attrs = append(attrs, "workspace", ws)
			}
			logger.Info("request", attrs...)
			return nil
		}
	}
}
