package graphrag

import "context"

// ResolvedStorer is a Resolver that stores what it resolved itself: the ingester gives it each extraction
// Resolve returned (its facts embedded) with the store's write, put. A resolver whose decisions reach
// back to entities stored earlier (a merge decided on a later passage taking in an entity an earlier one
// stored alone) changes the graph after the write, and needs no other write between its reading and its
// change of those entities.
type ResolvedStorer interface {
	StoreResolved(ctx context.Context, c Chunk, x Extraction, put func(context.Context, Extraction) error) error
}

// putResolved stores x, resolved for c, through the resolver when it stores what it resolved.
func (in *Ingester) putResolved(ctx context.Context, c Chunk, x Extraction) error {
	if rs, ok := in.opt.Resolver.(ResolvedStorer); ok {
		return rs.StoreResolved(ctx, c, x, in.store.PutExtraction)
	}
	return in.store.PutExtraction(ctx, x)
}
