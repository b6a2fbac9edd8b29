package graphrag

import (
	"context"
	"errors"
	"time"
)

// Sentinel errors every Store returns (wrapped) so callers can branch without knowing the back end.
var (
	// ErrNotFound: no document, chunk, entity or conversation with that ID.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable: the store cannot be reached now; the request may succeed later.
	ErrUnavailable = errors.New("store unavailable")
	// ErrTransient: the store failed the call for a moment (a deadlock or lock wait it gave up on, a
	// cluster's leader switch); the same idempotent write may succeed when made again.
	ErrTransient = errors.New("transient store error")
	// ErrDimension: embeddings of another dimension than the store's index.
	ErrDimension = errors.New("embedding dimension mismatch")
	// ErrNoDimension: a store opened with the dimension it recorded (Options.EmbedDim 0) has none yet: nothing
	// was ever stored in it.
	ErrNoDimension = errors.New("the store records no embedding dimension yet")
	// ErrReembedIncomplete: CommitReembed found passages or facts still without a staged vector.
	ErrReembedIncomplete = errors.New("the re-embedding is not complete")
	// ErrReextractIncomplete: CommitReextract found passages still without a staged extraction.
	ErrReextractIncomplete = errors.New("the re-extraction of the graph is not complete")
)

// Store is the contract of the knowledge store: the embedded SQLite store and the Neo4j store implement
// it, and graphrag/storetest checks both against the same suite. Every write is idempotent: repeating a
// call with the same arguments leaves the store as one call did. Every method is safe for concurrent use.
//
// Embeddings put into a store and the vectors it is queried with come from one embedding model and have the
// store's dimension; a store refuses others with ErrDimension.
//
// The chunks of a document that replaces another (Document.Replaces) are staged until ReplaceDocument: no
// search returns them, and PutExtraction records their extraction without touching the graph, so readers
// keep seeing the old version alone while the new one is ingested.
type Store interface {
	RunStore
	DocumentStore
	ChunkStore
	GraphStore
	EditStore
	CommunityStore
	ConversationStore
	ReembedStore
	ReextractStore
	// Stats counts what the store holds.
	Stats(ctx context.Context) (Stats, error)
	// Ping checks that the store answers.
	Ping(ctx context.Context) error
	// Kind names the back end for status pages ("sqlite", "neo4j").
	Kind() string
	// Workspace returns the store of one workspace (CheckWorkspaceID): a handle bound to it, whose every
	// read and write reaches only that workspace's documents, chunks, graph, communities, edits,
	// conversations and embedding state, so no call through it can see or change another workspace's.
	// DefaultWorkspace is the store itself; another workspace starts empty on first use. The handle belongs
	// to the store it came from and is closed with it (closing the handle does nothing); Workspace on a
	// handle is Workspace on that store.
	Workspace(ctx context.Context, id string) (Store, error)
	Close() error
}

// DocumentStore keeps documents, their source bytes and their job status.
type DocumentStore interface {
	// PutDocument stores a new document with its source bytes and returns it with created=true; when a
	// document with the same ID exists it is returned unchanged with created=false.
	PutDocument(ctx context.Context, doc Document, source []byte) (stored Document, created bool, err error)
	// Document returns one document with its counts, or ErrNotFound.
	Document(ctx context.Context, id string) (Document, error)
	// Documents lists every document with its counts, newest first.
	Documents(ctx context.Context) ([]Document, error)
	// DocumentsNamed lists the documents whose file name is exactly name, with their counts, newest first;
	// it reads only those, so an upload can look its name up at any size of store.
	DocumentsNamed(ctx context.Context, name string) ([]Document, error)
	// DocumentSource returns the bytes a document was uploaded with.
	DocumentSource(ctx context.Context, id string) ([]byte, error)
	// SetDocumentStatus records a job step; title and format are set when non-empty (known after parsing).
	SetDocumentStatus(ctx context.Context, id string, status DocStatus, reason string, meta DocumentMeta) error
	// DeleteDocument removes a document and everything only it supports: its chunks with their vectors and
	// full-text entries, its mentions, the relations no other document supports and the entities no other
	// chunk mentions. Entities and relations it shares keep the other documents' provenance.
	DeleteDocument(ctx context.Context, id string) error
	// ReplaceDocument ends the job of a document that replaces another, in one transaction: the
	// extractions its staged chunks recorded (PutExtraction, ReuseChunks) are merged into the graph, the
	// replaced document is deleted as by DeleteDocument, and the document's chunks become searchable with
	// its status done. A reader sees the old version or the new, never neither or both. A replaced document
	// already gone is no error; a document that replaces none is only marked done.
	ReplaceDocument(ctx context.Context, id string) error
	// Generation is a number that every commit of DeleteDocument, ReplaceDocument, CommitReextract (the
	// swap of a re-extracted graph) and CommitReembed (the swap of vectors) changes, in this process and
	// in the others sharing the store. Reads made after one call and before another that returns the same
	// number ran across no such commit, so
	// together they saw one version of every document and one graph (a retrieval pass reads it before and
	// after itself and is made again when it changed). It never waits long: a call during such a commit
	// returns once it is done.
	Generation(ctx context.Context) (uint64, error)
}

// CommitHolder is a store that can hold this process's deletes, replaces and re-extraction commits off
// while a reader makes reads that must see one version of everything. HoldCommits returns once no such
// commit is running, with the Generation of that moment; those that start later wait until release is
// called, which returns the Generation read just before it lets them go (a change between the two is
// another process's commit). A retrieval pass that met commits on its first tries makes its next under
// a hold, so that a stream of replaces (a folder uploaded again, a re-index) cannot give every try
// passages of two versions.
type CommitHolder interface {
	HoldCommits(ctx context.Context) (gen uint64, release func() (uint64, error), err error)
}

// EmbeddingSpace is the embedding model and dimension vectors come from; vectors of two spaces are never
// compared. Model is empty for a store that never recorded it.
type EmbeddingSpace struct {
	Model string
	Dim   int
}

// ReembedState is how far a re-embedding is: the space searches use, the one being staged (zero when no
// re-embedding is under way), and the passages and facts that have a vector against those with a staged one.
type ReembedState struct {
	Active, Target             EmbeddingSpace
	Chunks, ChunksStaged       int
	Relations, RelationsStaged int
}

// ReembedStore re-embeds a store's passages and facts with another model, of the same dimension or not,
// while searches keep using the vectors they have: the new vectors are staged beside the old ones and
// searched from CommitReembed on, never before. The state is kept in the store, so a re-embedding
// interrupted at any point goes on where it stopped, keeping what was staged.
type ReembedStore interface {
	// EmbeddingSpace is the space of the vectors searches use now: every vector put or queried has its
	// dimension (ErrDimension otherwise).
	EmbeddingSpace() EmbeddingSpace
	// ReembedState reads the re-embedding under way, with its counts.
	ReembedState(ctx context.Context) (ReembedState, error)
	// BeginReembed stages vectors of target from now on. Begun again with the same target it keeps what
	// was staged; with another target it drops what was staged first.
	BeginReembed(ctx context.Context, target EmbeddingSpace) error
	// ReembedTodo returns up to limit passages (ID, Text) and up to limit facts (ID, SourceName, Type,
	// TargetName) that have a vector and no staged one yet, in a stable order.
	ReembedTodo(ctx context.Context, limit int) ([]Chunk, []Relation, error)
	// StageEmbeddings stores staged vectors of chunks and relations by ID, unknown IDs skipped; no search
	// reads them. A vector of another dimension than the target's is ErrDimension, and staging without a
	// re-embedding begun is an error; nothing is stored then.
	StageEmbeddings(ctx context.Context, chunks, relations map[string][]float32) error
	// CommitReembed makes the staged vectors the searched ones in one transaction, with the vector index
	// rebuilt for their dimension and the target recorded as the store's space; from then on vectors of
	// the old space are ErrDimension. Passages or facts still without a staged vector are
	// ErrReembedIncomplete, and nothing changes.
	CommitReembed(ctx context.Context) error
}

// DocumentMeta is what parsing learns about a document.
type DocumentMeta struct {
	Title  string
	Format string
}

// ChunkStore keeps chunks, their vectors and their extraction status, and searches them.
type ChunkStore interface {
	// PutChunks stores the chunks of a document (status pending, no embedding), replacing none that exist:
	// chunks with an existing ID keep their state, so a resumed job can call it again.
	PutChunks(ctx context.Context, docID string, chunks []Chunk) error
	// SetEmbeddings stores vectors by chunk ID and marks those chunks embedded.
	SetEmbeddings(ctx context.Context, vectors map[string][]float32) error
	// ReuseChunks carries unchanged passages over to a staged document: reuse maps a staged chunk's ID to
	// the chunk with the same text in the document it replaces, whose vector the staged chunk takes now
	// and whose extraction (mentions and relations' provenance) it takes in ReplaceDocument; it is marked
	// extracted. Pairs whose old chunk is not extracted, or whose new chunk is not staged, are skipped.
	ReuseChunks(ctx context.Context, reuse map[string]string) error
	// DocumentChunks returns a document's chunks in order, with status (embeddings omitted).
	DocumentChunks(ctx context.Context, docID string) ([]Chunk, error)
	// Chunks returns the chunks with these IDs (embeddings omitted) in the order asked; unknown IDs are skipped.
	Chunks(ctx context.Context, ids []string) ([]Chunk, error)
	// SearchText ranks chunks by BM25 over their text; query is plain words, never a query language.
	SearchText(ctx context.Context, query string, k int) ([]ScoredChunk, error)
	// SearchVector ranks embedded chunks by cosine similarity to vec.
	SearchVector(ctx context.Context, vec []float32, k int) ([]ScoredChunk, error)
}

// Extraction is what the model found in one chunk, with entity keys and relation IDs already resolved.
type Extraction struct {
	ChunkID   string
	Entities  []Entity
	Relations []Relation
}

// GraphStore keeps the entity graph and its provenance.
type GraphStore interface {
	// PutExtraction merges a chunk's entities by key and relations by ID with graphrag's merge rules
	// (PlanExtraction, MergeEntity, MergeRelation: aliases and provenance unioned, the description of more
	// characters kept, values merged) and marks the chunk extracted, in one transaction that never calls a
	// model and is safe to repeat. An extraction without its keys and IDs is ErrUnresolved.
	PutExtraction(ctx context.Context, x Extraction) error
	// MarkChunkFailed ends a chunk's extraction with a reason people can read.
	MarkChunkFailed(ctx context.Context, chunkID, reason string) error
	// RetryFailedChunks returns a document's failed chunks to embedded with their reasons cleared, so the
	// next job extracts them again, and says how many there were; other chunks are left as they are.
	RetryFailedChunks(ctx context.Context, docID string) (int, error)
	// Entities returns the entities with these keys; unknown keys are skipped.
	Entities(ctx context.Context, keys []string) ([]Entity, error)
	// SearchEntities finds entities whose name or aliases match the words of query (full text), best first.
	SearchEntities(ctx context.Context, query string, k int) ([]Entity, error)
	// LinkCandidates is what linking a question reads, in one call: the entities with these keys in the
	// order asked, each once, and those SearchEntities(query, k) finds, both without provenance (ChunkIDs
	// and DocIDs empty), so that a hub's thousands of mentions are not read. An empty query finds none.
	LinkCandidates(ctx context.Context, keys []string, query string, k int) (byKey, byWords []Entity, err error)
	// Neighborhood returns the relations within hops (1 or 2) of the start entities, nearest first, at most
	// limit of them.
	Neighborhood(ctx context.Context, keys []string, hops, limit int) ([]Edge, error)
	// Subgraph returns what a graph walk from the start entities and chunks reaches: the entities the start
	// chunks mention; the relations (with their ends' names and provenance, without vectors) touching a
	// start entity with at most MaxHubRelations of them, or joining two entities a start chunk mentions (one
	// of them with at most MaxHubRelations), at
	// most MaxRelations in all, best
	// supported first, then by type and ID, each with its vector's best cosine similarity to the query
	// vectors (0 without a vector); and for every entity met its mention count and the chunks that mention
	// it, at most PerEntity, in chunk order. Unknown keys and IDs are skipped.
	Subgraph(ctx context.Context, q SubgraphQuery) (Subgraph, error)
}

// Bounds of Subgraph: the start chunks' entities whose joining relations it reads, and the relations a
// start entity may have for all of them to be read (a hub's thousands of relations say little about a
// question, and reading them cost more than the rest of a walk; its relations to the start chunks'
// entities are still read).
const (
	MaxNear         = 500
	MaxHubRelations = 200
)

// SubgraphQuery is where a walk starts and how much of the graph it reads.
type SubgraphQuery struct {
	Keys     []string    // start entities
	ChunkIDs []string    // start chunks
	Vectors  [][]float32 // the queries' vectors, which relations are compared with
	// PerEntity bounds the chunks listed per entity, MaxRelations the relations read.
	PerEntity, MaxRelations int
}

// Subgraph is the part of the graph around a question that a walk ranks.
type Subgraph struct {
	Relations []Relation
	Near      map[string]float64  // relation ID -> best cosine similarity of its vector to a query vector
	Mentions  map[string][]string // entity key -> chunk IDs mentioning it (at most the asked number)
	Mentioned map[string]int      // entity key -> how many chunks mention it in all
	// ChunkEntities maps each start chunk to the keys of the entities it mentions.
	ChunkEntities map[string][]string
}

// CommunityStore keeps the communities of the entity graph (DetectCommunities) and their summaries
// (SummarizeCommunities), so that questions about the whole collection can be answered from them.
type CommunityStore interface {
	// GraphLinks returns every relation of the graph (staged ones excluded) as its ends and the chunks
	// that support it, ordered by relation ID.
	GraphLinks(ctx context.Context) ([]Link, error)
	// PutCommunities replaces every stored community by cs, in one transaction, kept in the order given. A
	// community stored before with the same ID and Signature keeps its Title, Summary and SummarizedAt
	// (those given in cs are ignored); every other one is stored without a summary.
	PutCommunities(ctx context.Context, cs []Community) error
	// Communities returns the stored communities in the order PutCommunities was given them.
	Communities(ctx context.Context) ([]Community, error)
	// SetCommunitySummary records the summary of the community with this ID while it has this signature;
	// ErrNotFound when none has both (it was recomputed meanwhile, so the summary describes another group).
	SetCommunitySummary(ctx context.Context, id, signature, title, summary string) error
}

// Conversation is a chat thread.
type Conversation struct {
	ID        string
	Title     string
	CreatedAt time.Time
	UpdatedAt time.Time
	Turns     int
	// Owner is the ID of the account that started it; empty for one started where nobody signs in (a
	// laptop install) or before conversations had owners. It is set when the conversation is created and
	// never changes.
	Owner string
}

// ConversationScope is whose conversations a caller may list, open, continue, rename and delete. The zero
// scope sees none.
type ConversationScope struct {
	// All sees every conversation: a laptop install without accounts, the command line.
	All bool
	// Owner sees the conversations of this account ID.
	Owner string
	// Unowned also sees the conversations without an owner (from before sign-in was on): admins.
	Unowned bool
}

// AllConversations sees every conversation.
var AllConversations = ConversationScope{All: true}

// Sees reports whether the scope includes c.
func (s ConversationScope) Sees(c Conversation) bool {
	return s.All || (s.Owner != "" && c.Owner == s.Owner) || (s.Unowned && c.Owner == "")
}

// Turn is one question and its answer in a conversation, with the agent's trace and citations stored as
// JSON owned by the agent package.
type Turn struct {
	ID             string
	ConversationID string
	Ordinal        int
	Question       string
	Answer         string
	Status         string // running, done, cancelled, failed
	Trace          []byte // JSON
	Citations      []byte // JSON
	CreatedAt      time.Time
}

// ConversationStore keeps conversations and their turns.
type ConversationStore interface {
	// PutConversation creates or updates (title) a conversation; its Owner is kept from its creation.
	PutConversation(ctx context.Context, c Conversation) error
	// Conversations lists the conversations the scope sees, most recently updated first.
	Conversations(ctx context.Context, scope ConversationScope) ([]Conversation, error)
	// Conversation returns one conversation the scope sees with its turns in order, or ErrNotFound (also
	// when it exists but is not the scope's, so an ID does not tell that it exists).
	Conversation(ctx context.Context, scope ConversationScope, id string) (Conversation, []Turn, error)
	// DeleteConversation removes a conversation the scope sees and its turns; one it does not see stays.
	DeleteConversation(ctx context.Context, scope ConversationScope, id string) error
	// PutTurn creates or replaces a turn by ID and touches its conversation's UpdatedAt.
	PutTurn(ctx context.Context, t Turn) error
}

// Stats counts what a store holds.
type Stats struct {
	Documents, Chunks, Embedded, Entities, Relations, Mentions int
}
