package neo4j

import (
	"context"
	"fmt"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

var _ graphrag.WorkspaceDropper = (*Store)(nil)

// dropBatch is how many nodes one transaction of DropWorkspace deletes (with their relationships), so a
// large workspace never needs one huge transaction; maxDropBatches caps the loop (10 billion nodes).
const (
	dropBatch      = 10_000
	maxDropBatches = 1_000_000
)

// ownName is the Cypher predicate that the label or schema name v is workspace $suffix's own: a default
// workspace's name (no "__" in it) with the suffix, so that dropping workspace b never touches the nodes
// of a workspace x__b (Chunk__x__b ends with __b too).
func ownName(v string) string {
	return v + ` ENDS WITH $suffix AND NOT left(` + v + `, size(` + v + `) - size($suffix)) CONTAINS '__'`
}

// DropWorkspace deletes workspace id: every node with one of its labels, with their relationships (which
// join only its own nodes), in transactions of dropBatch nodes, then its constraints and indexes (named
// with its suffix). The nodes of package auth (Account, Workspace, Membership, ...) carry no workspace
// label and stay. A Store of it handed out before must not be used again; a later Workspace(id) makes
// its schema anew.
func (s *Store) DropWorkspace(ctx context.Context, id string) error {
	if err := graphrag.CheckDroppable(id); err != nil {
		return fmt.Errorf("neo4j: drop workspace: %w", err)
	}
	if s.root != nil {
		return s.root.DropWorkspace(ctx, id)
	}
	s.wsMu.Lock()
	delete(s.workspaces, id)
	s.wsMu.Unlock()
	suffix := workspaceSuffix(id)
	params := map[string]any{"suffix": suffix, "batch": dropBatch}
	deleted := int64(0)
	for range maxDropBatches {
		var n int64
		err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
			recs, err := query(ctx, tx, `MATCH (n) WHERE any(l IN labels(n) WHERE `+ownName("l")+`)
				WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS n`, params)
			if err != nil {
				return err
			}
			n = 0
			if len(recs) > 0 {
				n, _ = recs[0].Values[0].(int64)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("neo4j: drop workspace %s: delete its nodes: %w", id, err)
		}
		deleted += n
		if n < dropBatch {
			break
		}
	}
	// Constraints first: dropping one drops the index it owns.
	for _, kind := range []string{"CONSTRAINT", "INDEX"} {
		var names []string
		err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
			show := `SHOW CONSTRAINTS YIELD name WHERE `
			if kind == "INDEX" {
				show = `SHOW INDEXES YIELD name, owningConstraint WHERE owningConstraint IS NULL AND `
			}
			recs, err := query(ctx, tx, show+ownName("name")+` RETURN name`, params)
			names = names[:0]
			for _, r := range recs {
				names = append(names, asString(r.Values[0]))
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("neo4j: drop workspace %s: list its %s: %w", id, strings.ToLower(kind)+"s", err)
		}
		for _, name := range names {
			err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
				return exec(ctx, tx, "DROP "+kind+" `"+strings.ReplaceAll(name, "`", "``")+"` IF EXISTS", nil)
			})
			if err != nil {
				return fmt.Errorf("neo4j: drop workspace %s: drop %s %s: %w", id, strings.ToLower(kind), name, err)
			}
		}
	}
	s.logger.Info("neo4j workspace dropped", "workspace", id, "nodes", deleted)
	return nil
}
