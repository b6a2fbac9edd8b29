package sqlite

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

// LinkCandidates reads the entities with these keys and those whose names hold the words of query (as
// SearchEntities ranks them), without their mentions: a hub's are thousands of rows, and linking needs
// none.
func (s *Store) LinkCandidates(ctx context.Context, keys []string, query string, k int) (byKey, byWords []graphrag.Entity, err error) {
	found, err := s.entityKeysMatching(ctx, query, k)
	if err != nil {
		return nil, nil, err
	}
	keys = unique(keys)
	read := make(map[string]*graphrag.Entity, len(keys)+len(found))
	if all := unique(append(append([]string(nil), keys...), found...)); len(all) > 0 {
		if err := s.readEntityRows(ctx, all, read); err != nil {
			return nil, nil, fmt.Errorf("sqlite: link candidates: %w", err)
		}
	}
	pick := func(keys []string) []graphrag.Entity {
		out := make([]graphrag.Entity, 0, len(keys))
		for _, k := range keys {
			if e, ok := read[k]; ok {
				out = append(out, *e)
			}
		}
		return out
	}
	return pick(keys), pick(found), nil
}
