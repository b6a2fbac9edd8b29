package neo4j

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Workspaces in one database (Neo4j Community has one): the default workspace is the graph as it was before
// workspaces, under the labels the queries name (Document, Chunk, Entity, RELATED, ...), so an existing
// database is its default workspace without a migration. Another workspace's nodes and relationships carry
// the same labels and types with the workspace's suffix (Chunk__hr, RELATED__hr), and its constraints and
// indexes (the vector and full-text ones included) are its own, named with the suffix: a query run through
// a workspace's Store has every label, type and index name rewritten to the workspace's (workspaceTx), so
// it matches, creates and searches that workspace's nodes alone. No query carries a workspace filter that
// could be forgotten, a vector or full-text search ranks only the workspace's own entries, and the same
// entity key or relation ID in two workspaces are two nodes or relationships. The records of package auth
// (globalLabels) are shared by every workspace and never rewritten.

// globalLabels are the labels every workspace shares: accounts, sessions, tokens, the audit log and the
// workspaces with their members. Any other label or relationship type is a workspace's own, so a label a
// new query introduces is scoped without anyone remembering to.
var globalLabels = map[string]bool{
	"Account": true, "Session": true, "ApiToken": true, "AuditEvent": true, "Workspace": true, "Membership": true,
}

// indexNames are the names of the indexes queries pass as parameters ($index, $name).
var indexNames = map[string]bool{vectorIndex: true, vectorIndex + "_1": true, chunkTextIndex: true, entityNameIndex: true}

var (
	// labelRef is a label or relationship type in a pattern or predicate: (n:Chunk), [r:RELATED], n:Staged.
	labelRef = regexp.MustCompile(`:([A-Z][A-Za-z0-9_]*)`)
	// schemaName is the name of a constraint or index being created or dropped.
	schemaName = regexp.MustCompile(`\b(CONSTRAINT|INDEX)\s+([a-z][a-z0-9_]*)\s+IF\b`)
)

// workspaceSuffix is what a workspace's labels, types and index names end with.
func workspaceSuffix(id string) string { return "__" + id }

// scopeCypher rewrites a query of the default workspace into the same query over the workspace whose
// suffix is given.
func scopeCypher(cypher, suffix string) string {
	cypher = labelRef.ReplaceAllStringFunc(cypher, func(m string) string {
		name := m[1:]
		if globalLabels[name] || name == "NULL" || name == "TRUE" || name == "FALSE" || strings.HasSuffix(name, suffix) {
			return m
		}
		return ":" + name + suffix
	})
	return schemaName.ReplaceAllStringFunc(cypher, func(m string) string {
		parts := schemaName.FindStringSubmatch(m)
		if strings.HasSuffix(parts[2], suffix) {
			return m
		}
		return parts[1] + " " + parts[2] + suffix + " IF"
	})
}

// workspaceParams rewrites the index names and labels a query takes as parameters; every other value is data
// and stays as it is.
func workspaceParams(params map[string]any, suffix string) map[string]any {
	var out map[string]any
	for _, key := range []string{"index", "name", "label"} {
		v, ok := params[key].(string)
		if !ok || (key == "label" && globalLabels[v]) || (key != "label" && !indexNames[v]) {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(params))
			for k, x := range params {
				out[k] = x
			}
		}
		out[key] = v + suffix
	}
	if out == nil {
		return params
	}
	return out
}

// workspaceTx runs every statement of a transaction in one workspace.
type workspaceTx struct {
	neo4j.ManagedTransaction
	store *Store
}

func (t workspaceTx) Run(ctx context.Context, cypher string, params map[string]any) (neo4j.ResultWithContext, error) {
	cypher, params = t.store.scope(cypher, params)
	return t.ManagedTransaction.Run(ctx, cypher, params)
}

// scoped is tx bound to the store's workspace.
func (s *Store) scoped(tx neo4j.ManagedTransaction) neo4j.ManagedTransaction {
	if s.workspace == "" {
		return tx
	}
	return workspaceTx{ManagedTransaction: tx, store: s}
}

// scope rewrites a statement and its parameters into the store's workspace (the default's are left as
// they are). Every statement the store sends goes through it: those of a transaction (scoped) and those
// sent alone (readRecords); the contract suite run in a workspace (TestContractInWorkspace) finds one that
// does not, as it reads the default workspace's data.
func (s *Store) scope(cypher string, params map[string]any) (string, map[string]any) {
	if s.workspace == "" {
		return cypher, params
	}
	suffix := workspaceSuffix(s.workspace)
	scoped, ok := s.scopedQueries.Load(cypher)
	if !ok {
		scoped, _ = s.scopedQueries.LoadOrStore(cypher, scopeCypher(cypher, suffix))
	}
	return scoped.(string), workspaceParams(params, suffix)
}

// Workspace returns the Store of workspace id, creating its constraints and indexes on first use: the store
// itself for graphrag.DefaultWorkspace. It shares the store's connections.
func (s *Store) Workspace(ctx context.Context, id string) (graphrag.Store, error) {
	if s.root != nil {
		return s.root.Workspace(ctx, id)
	}
	if id == graphrag.DefaultWorkspace {
		return s, nil
	}
	if err := graphrag.CheckWorkspaceID(id); err != nil {
		return nil, fmt.Errorf("neo4j: workspace: %w", err)
	}
	s.wsMu.Lock()
	defer s.wsMu.Unlock()
	if w := s.workspaces[id]; w != nil {
		return w, nil
	}
	opt := s.openOpt
	// A store opened for a model takes its dimension now for a new workspace; one opened for any model
	// (commands that only read and delete) reads each workspace's recorded dimension.
	if opt.EmbedModel != "" || opt.EmbedDim > 0 {
		opt.EmbedDim = s.embedDim()
	}
	w := &Store{driver: s.driver, uri: s.uri, opt: opt, openOpt: opt, logger: s.logger.With("workspace", id),
		probeAfter: s.probeAfter, workspace: id, root: s}
	if err := w.prepare(ctx); err != nil {
		return nil, fmt.Errorf("neo4j: workspace %s: %w", id, err)
	}
	if s.workspaces == nil {
		s.workspaces = map[string]*Store{}
	}
	s.workspaces[id] = w
	return w, nil
}
