package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// PutConversation creates a conversation or renames an existing one (a non-empty Title replaces the old;
// CreatedAt and Owner stay). Zero times are taken from the clock.
func (s *Store) PutConversation(ctx context.Context, c graphrag.Conversation) error {
	if c.ID == "" {
		return errors.New("sqlite: put conversation: empty ID")
	}
	now := time.Now()
	if c.CreatedAt.IsZero() {
		c.CreatedAt = now
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = now
	}
	err := s.write(ctx, "put conversation", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO conversations (id, title, created_at, updated_at, owner) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET
				title = CASE WHEN excluded.title <> '' THEN excluded.title ELSE conversations.title END,
				updated_at = max(conversations.updated_at, excluded.updated_at)`,
			c.ID, c.Title, c.CreatedAt.UnixNano(), c.UpdatedAt.UnixNano(), c.Owner)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: put conversation %s: %w", c.ID, err)
	}
	return nil
}

// PutTurn creates or replaces a turn by ID (its first CreatedAt stays) and moves its conversation's
// UpdatedAt to now; an unknown conversation is ErrNotFound.
func (s *Store) PutTurn(ctx context.Context, t graphrag.Turn) error {
	if t.ID == "" {
		return errors.New("sqlite: put turn: empty ID")
	}
	now := time.Now()
	if t.CreatedAt.IsZero() {
		t.CreatedAt = now
	}
	err := s.write(ctx, "put turn", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE conversations SET updated_at = max(updated_at, ?) WHERE id = ?`,
			now.UnixNano(), t.ConversationID)
		if err != nil {
			return err
		}
		if err := requireRow(res, "conversation", t.ConversationID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO turns
			(id, conversation_id, ordinal, question, answer, status, trace, citations, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET conversation_id = excluded.conversation_id, ordinal = excluded.ordinal,
				question = excluded.question, answer = excluded.answer, status = excluded.status,
				trace = excluded.trace, citations = excluded.citations`,
			t.ID, t.ConversationID, t.Ordinal, t.Question, t.Answer, t.Status, t.Trace, t.Citations,
			t.CreatedAt.UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: put turn %s: %w", t.ID, err)
	}
	return nil
}

// DeleteConversation removes a conversation scope sees and its turns; an unknown one is already gone, and
// one outside scope stays.
func (s *Store) DeleteConversation(ctx context.Context, scope graphrag.ConversationScope, id string) error {
	cond, args := inScope(scope)
	err := s.write(ctx, "delete conversation", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM conversations AS c WHERE c.id = ? AND `+cond, append([]any{id}, args...)...)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: delete conversation %s: %w", id, err)
	}
	return nil
}
