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
// The write is made again after a transient error (storeWrite): PutExtraction is safe to repeat.
func (in *Ingester) putResolved(ctx context.Context, c Chunk, x Extraction) error {
	put := func(ctx context.Context, x Extraction) error {
		return in.storeWrite(ctx, "store extraction", c.DocID, func(ctx context.Context) error { return in.store.PutExtraction(ctx, x) })
	}
	if rs, ok := in.opt.Resolver.(ResolvedStorer); ok {
		return rs.StoreResolved(ctx, c, x, put)
	}
	return put(ctx, x)
}
