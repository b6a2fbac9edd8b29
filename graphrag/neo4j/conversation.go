package neo4j

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// PutConversation creates a conversation or renames an existing one (a non-empty Title replaces the old;
// CreatedAt and owner stay; UpdatedAt only moves forward). Zero times are taken from the clock.
func (s *Store) PutConversation(ctx context.Context, c graphrag.Conversation) error {
	if c.ID == "" {
		return errors.New("neo4j: put conversation: empty ID")
	}
	now := time.Now()
	if c.CreatedAt.IsZero() {
		c.CreatedAt = now
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = now
	}
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		return exec(ctx, tx, `MERGE (c:Conversation {id: $id})
			ON CREATE SET c.title = $title, c.createdAt = $created, c.updatedAt = $updated, c.owner = $owner
			ON MATCH SET c.title = CASE WHEN $title <> '' THEN $title ELSE c.title END,
				c.updatedAt = CASE WHEN c.updatedAt > $updated THEN c.updatedAt ELSE $updated END`,
			map[string]any{"id": c.ID, "title": c.Title, "created": utc(c.CreatedAt), "updated": utc(c.UpdatedAt), "owner": c.Owner})
	})
	if err != nil {
		return fmt.Errorf("neo4j: put conversation %s: %w", c.ID, err)
	}
	return nil
}

// PutTurn creates or replaces a turn by ID (its first CreatedAt stays) and moves its conversation's
// UpdatedAt to now; an unknown conversation is ErrNotFound.
func (s *Store) PutTurn(ctx context.Context, t graphrag.Turn) error {
	if t.ID == "" {
		return errors.New("neo4j: put turn: empty ID")
	}
	props := map[string]any{
		"conversationId": t.ConversationID, "ordinal": t.Ordinal, "question": t.Question, "answer": t.Answer,
		"status": t.Status, "trace": jsonText(t.Trace), "citations": jsonText(t.Citations),
	}
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (c:Conversation {id: $cid})
			SET c.updatedAt = CASE WHEN c.updatedAt > $now THEN c.updatedAt ELSE $now END
			MERGE (t:Turn {id: $id})
			ON CREATE SET t.createdAt = $created
			SET t += $props
			MERGE (c)-[:HAS_TURN]->(t)
			WITH c, t
			OPTIONAL MATCH (other:Conversation)-[old:HAS_TURN]->(t) WHERE other <> c
			DELETE old
			RETURN DISTINCT t.id`, map[string]any{
			"cid": t.ConversationID, "id": t.ID, "now": time.Now().UTC(), "created": utc(t.CreatedAt), "props": props,
		})
		if err != nil {
			return err
		}
		if len(records) == 0 {
			return fmt.Errorf("no conversation %q: %w", t.ConversationID, graphrag.ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("neo4j: put turn %s: %w", t.ID, err)
	}
	return nil
}

// DeleteConversation removes a conversation scope sees and its turns; an unknown one is already gone, and
// one outside scope stays.
func (s *Store) DeleteConversation(ctx context.Context, scope graphrag.ConversationScope, id string) error {
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		return exec(ctx, tx, `MATCH (c:Conversation {id: $id}) WHERE `+inScope+`
			OPTIONAL MATCH (c)-[:HAS_TURN]->(t:Turn)
			DETACH DELETE t, c`, scopeParams(scope, map[string]any{"id": id}))
	})
	if err != nil {
		return fmt.Errorf("neo4j: delete conversation %s: %w", id, err)
	}
	return nil
}

const conversationProjection = `c {.id, .title, .createdAt, .updatedAt, owner: coalesce(c.owner, ''),
	turns: COUNT { (c)-[:HAS_TURN]->(:Turn) }}`

// inScope is the condition on (c:Conversation) of the conversations a scope sees (scopeParams gives its
// parameters); a conversation stored before owners were kept has no owner property and counts as
// unowned. The zero scope sees none.
const inScope = `($all OR ($owner <> '' AND c.owner = $owner) OR ($unowned AND coalesce(c.owner, '') = ''))`

func scopeParams(scope graphrag.ConversationScope, params map[string]any) map[string]any {
	params["all"], params["owner"], params["unowned"] = scope.All, scope.Owner, scope.Unowned
	return params
}

// Conversations lists the conversations scope sees, most recently updated first.
func (s *Store) Conversations(ctx context.Context, scope graphrag.ConversationScope) ([]graphrag.Conversation, error) {
	var out []graphrag.Conversation
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (c:Conversation) WHERE `+inScope+`
			RETURN `+conversationProjection+` AS c ORDER BY c.updatedAt DESC, c.id`, scopeParams(scope, map[string]any{}))
		if err != nil {
			return err
		}
		out = make([]graphrag.Conversation, 0, len(records))
		for _, v := range column(records) {
			out = append(out, conversationFrom(asMap(v)))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: conversations: %w", err)
	}
	return out, nil
}

// Conversation returns one conversation scope sees with its turns by ordinal, or ErrNotFound.
func (s *Store) Conversation(ctx context.Context, scope graphrag.ConversationScope, id string) (graphrag.Conversation, []graphrag.Turn, error) {
	var conv graphrag.Conversation
	var turns []graphrag.Turn
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (c:Conversation {id: $id}) WHERE `+inScope+`
			RETURN `+conversationProjection+` AS c,
				COLLECT { MATCH (c)-[:HAS_TURN]->(t:Turn) RETURN t {.*} ORDER BY t.ordinal, t.createdAt, t.id } AS turns`,
			scopeParams(scope, map[string]any{"id": id}))
		if err != nil {
			return err
		}
		if len(records) == 0 {
			return fmt.Errorf("conversation %q: %w", id, graphrag.ErrNotFound)
		}
		conv = conversationFrom(asMap(records[0].Values[0]))
		list, _ := records[0].Values[1].([]any)
		turns = make([]graphrag.Turn, 0, len(list))
		for _, v := range list {
			turns = append(turns, turnFrom(asMap(v)))
		}
		return nil
	})
	if err != nil {
		return graphrag.Conversation{}, nil, fmt.Errorf("neo4j: conversation %s: %w", id, err)
	}
	return conv, turns, nil
}

func conversationFrom(m map[string]any) graphrag.Conversation {
	return graphrag.Conversation{
		ID:        asString(m["id"]),
		Title:     asString(m["title"]),
		CreatedAt: asTime(m["createdAt"]),
		UpdatedAt: asTime(m["updatedAt"]),
		Turns:     asInt(m["turns"]),
		Owner:     asString(m["owner"]),
	}
}

func turnFrom(m map[string]any) graphrag.Turn {
	return graphrag.Turn{
		ID:             asString(m["id"]),
		ConversationID: asString(m["conversationId"]),
		Ordinal:        asInt(m["ordinal"]),
		Question:       asString(m["question"]),
		Answer:         asString(m["answer"]),
		Status:         asString(m["status"]),
		Trace:          asBytes(m["trace"]),
		Citations:      asBytes(m["citations"]),
		CreatedAt:      asTime(m["createdAt"]),
	}
}

// jsonText stores JSON as a string, readable in the Neo4j browser; nil stays absent.
func jsonText(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}
