package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

const conversationQuery = `SELECT c.id, c.title, c.created_at, c.updated_at, c.owner,
	(SELECT count(*) FROM turns t WHERE t.conversation_id = c.id) FROM conversations c`

// inScope is the SQL condition (on conversations c) and its arguments of the conversations scope sees;
// the zero scope sees none.
func inScope(scope graphrag.ConversationScope) (string, []any) {
	if scope.All {
		return `1`, nil
	}
	return `((? <> '' AND c.owner = ?) OR (? AND c.owner = ''))`, []any{scope.Owner, scope.Owner, scope.Unowned}
}

// Conversations lists the conversations scope sees, most recently updated first.
func (s *Store) Conversations(ctx context.Context, scope graphrag.ConversationScope) ([]graphrag.Conversation, error) {
	cond, args := inScope(scope)
	rows, err := s.reader.QueryContext(ctx, conversationQuery+` WHERE `+cond+` ORDER BY c.updated_at DESC, c.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: conversations: %w", err)
	}
	defer rows.Close()
	var out []graphrag.Conversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: conversations: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: conversations: %w", err)
	}
	return out, nil
}

// Conversation returns one conversation scope sees with its turns by ordinal, or ErrNotFound.
func (s *Store) Conversation(ctx context.Context, scope graphrag.ConversationScope, id string) (graphrag.Conversation, []graphrag.Turn, error) {
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return graphrag.Conversation{}, nil, fmt.Errorf("sqlite: conversation %s: %w", id, err)
	}
	defer tx.Rollback()
	cond, args := inScope(scope)
	c, err := scanConversation(tx.QueryRowContext(ctx, conversationQuery+` WHERE c.id = ? AND `+cond, append([]any{id}, args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return graphrag.Conversation{}, nil, fmt.Errorf("sqlite: conversation %q: %w", id, graphrag.ErrNotFound)
	}
	if err != nil {
		return graphrag.Conversation{}, nil, fmt.Errorf("sqlite: conversation %s: %w", id, err)
	}
	turns, err := readTurns(ctx, tx, id)
	if err != nil {
		return graphrag.Conversation{}, nil, fmt.Errorf("sqlite: conversation %s turns: %w", id, err)
	}
	return c, turns, nil
}

func readTurns(ctx context.Context, q queryer, conversationID string) ([]graphrag.Turn, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, conversation_id, ordinal, question, answer, status, trace,
		citations, created_at FROM turns WHERE conversation_id = ? ORDER BY ordinal, created_at, id`, conversationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []graphrag.Turn
	for rows.Next() {
		var t graphrag.Turn
		var created int64
		err := rows.Scan(&t.ID, &t.ConversationID, &t.Ordinal, &t.Question, &t.Answer, &t.Status, &t.Trace,
			&t.Citations, &created)
		if err != nil {
			return nil, err
		}
		t.CreatedAt = fromNanos(created)
		out = append(out, t)
	}
	return out, rows.Err()
}

func scanConversation(row scanner) (graphrag.Conversation, error) {
	var c graphrag.Conversation
	var created, updated int64
	err := row.Scan(&c.ID, &c.Title, &created, &updated, &c.Owner, &c.Turns)
	c.CreatedAt, c.UpdatedAt = fromNanos(created), fromNanos(updated)
	return c, err
}
