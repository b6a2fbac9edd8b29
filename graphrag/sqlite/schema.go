package sqlite

// migrations are applied in order; the meta table records how many ran. Append, never edit: a file built
// with an older version replays only the missing steps.
var migrations = []string{
	// 1: documents, chunks with full text and vectors, the entity graph, conversations.
	`
CREATE TABLE documents (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL,
	title      TEXT NOT NULL DEFAULT '',
	format     TEXT NOT NULL DEFAULT '',
	hash       TEXT NOT NULL,
	size       INTEGER NOT NULL,
	status     TEXT NOT NULL,
	error      TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE INDEX documents_created ON documents(created_at);

CREATE TABLE sources (
	doc_id TEXT PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
	bytes  BLOB NOT NULL
);

-- seq is the stable rowid the full-text index points at; embedding is little-endian float32, last so the
-- other columns read without touching its overflow pages.
CREATE TABLE chunks (
	seq       INTEGER PRIMARY KEY,
	id        TEXT NOT NULL UNIQUE,
	doc_id    TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
	ordinal   INTEGER NOT NULL,
	section   TEXT NOT NULL DEFAULT '[]',
	text      TEXT NOT NULL,
	tokens    INTEGER NOT NULL DEFAULT 0,
	status    TEXT NOT NULL,
	error     TEXT NOT NULL DEFAULT '',
	embedding BLOB
);
CREATE INDEX chunks_doc ON chunks(doc_id, ordinal);

CREATE VIRTUAL TABLE chunks_fts USING fts5(
	text, content='chunks', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
	INSERT INTO chunks_fts(rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
	INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;
CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text ON chunks BEGIN
	INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.seq, old.text);
	INSERT INTO chunks_fts(rowid, text) VALUES (new.seq, new.text);
END;

CREATE TABLE entities (
	seq         INTEGER PRIMARY KEY,
	key         TEXT NOT NULL UNIQUE,
	name        TEXT NOT NULL,
	type        TEXT NOT NULL DEFAULT '',
	description TEXT NOT NULL DEFAULT '',
	aliases     TEXT NOT NULL DEFAULT '[]'
);

CREATE VIRTUAL TABLE entities_fts USING fts5(
	name, aliases, content='entities', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER entities_fts_insert AFTER INSERT ON entities BEGIN
	INSERT INTO entities_fts(rowid, name, aliases) VALUES (new.seq, new.name, new.aliases);
END;
CREATE TRIGGER entities_fts_delete AFTER DELETE ON entities BEGIN
	INSERT INTO entities_fts(entities_fts, rowid, name, aliases) VALUES ('delete', old.seq, old.name, old.aliases);
END;
CREATE TRIGGER entities_fts_update AFTER UPDATE OF name, aliases ON entities BEGIN
	INSERT INTO entities_fts(entities_fts, rowid, name, aliases) VALUES ('delete', old.seq, old.name, old.aliases);
	INSERT INTO entities_fts(rowid, name, aliases) VALUES (new.seq, new.name, new.aliases);
END;

-- An entity lives while a chunk mentions it: deleting a chunk drops its mentions, and the store then drops
-- the entities left without any.
CREATE TABLE mentions (
	entity_key TEXT NOT NULL REFERENCES entities(key) ON DELETE CASCADE,
	chunk_id   TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
	PRIMARY KEY (entity_key, chunk_id)
) WITHOUT ROWID;
CREATE INDEX mentions_chunk ON mentions(chunk_id);

CREATE TABLE relations (
	id          TEXT PRIMARY KEY,
	source      TEXT NOT NULL REFERENCES entities(key) ON DELETE CASCADE,
	target      TEXT NOT NULL REFERENCES entities(key) ON DELETE CASCADE,
	type        TEXT NOT NULL,
	description TEXT NOT NULL DEFAULT '',
	vals        TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX relations_source ON relations(source);
CREATE INDEX relations_target ON relations(target);

CREATE TABLE relation_chunks (
	relation_id TEXT NOT NULL REFERENCES relations(id) ON DELETE CASCADE,
	chunk_id    TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
	PRIMARY KEY (relation_id, chunk_id)
) WITHOUT ROWID;
CREATE INDEX relation_chunks_chunk ON relation_chunks(chunk_id);

CREATE TABLE conversations (
	id         TEXT PRIMARY KEY,
	title      TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE INDEX conversations_updated ON conversations(updated_at);

CREATE TABLE turns (
	id              TEXT PRIMARY KEY,
	conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
	ordinal         INTEGER NOT NULL,
	question        TEXT NOT NULL DEFAULT '',
	answer          TEXT NOT NULL DEFAULT '',
	status          TEXT NOT NULL DEFAULT '',
	trace           BLOB,
	citations       BLOB,
	created_at      INTEGER NOT NULL
);
CREATE INDEX turns_conversation ON turns(conversation_id, ordinal);
`,
	// 2: the per-term document counts of the chunk index, read to leave out words most chunks hold.
	`CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');`,
	// 3: the vector of each relation's sentence, which graph retrieval compares with the question's.
	`ALTER TABLE relations ADD COLUMN embedding BLOB;`,
	// 4: replacing a document: the one a new version replaces, and what a staged chunk will contribute to
	// the graph once the new version is complete (JSON, see staged in document_replace.go).
	`ALTER TABLE documents ADD COLUMN replaces TEXT NOT NULL DEFAULT '';
ALTER TABLE chunks ADD COLUMN staged TEXT;`,
	// 5: the page (PDF page, PPTX slide, XLSX sheet) each chunk starts on, 0 for formats without pages.
	`ALTER TABLE chunks ADD COLUMN page INTEGER NOT NULL DEFAULT 0;`,
	// 6: the communities of the entity graph (graphrag.DetectCommunities) and their summaries; lists are JSON.
	`CREATE TABLE communities (
	id            TEXT PRIMARY KEY,
	ordinal       INTEGER NOT NULL,
	signature     TEXT NOT NULL,
	entities      TEXT NOT NULL DEFAULT '[]',
	relations     TEXT NOT NULL DEFAULT '[]',
	chunk_ids     TEXT NOT NULL DEFAULT '[]',
	weight        INTEGER NOT NULL DEFAULT 0,
	title         TEXT NOT NULL DEFAULT '',
	summary       TEXT NOT NULL DEFAULT '',
	summarized_at INTEGER NOT NULL DEFAULT 0
);`,
	// 7: re-embedding: each chunk's and relation's vector from the model being moved to, staged beside the
	// searched one until the re-embedding commits (reindex.go).
	`ALTER TABLE chunks ADD COLUMN embedding_next BLOB;
ALTER TABLE relations ADD COLUMN embedding_next BLOB;
CREATE INDEX chunks_reembed ON chunks(seq) WHERE embedding IS NOT NULL AND embedding_next IS NULL;
CREATE INDEX relations_reembed ON relations(id) WHERE embedding IS NOT NULL AND embedding_next IS NULL;`,
	// 8: accounts, sessions, API tokens and the audit log of package auth (authSchema in auth.go).
	authSchema,
	// 9: the edits of the graph (graphrag.Edit as JSON in body; status and time as columns), and the
	// entity keys each concerns, so an extraction finds the edits of its entities.
	`CREATE TABLE edits (
	id         TEXT PRIMARY KEY,
	kind       TEXT NOT NULL,
	status     TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	body       TEXT NOT NULL
);
CREATE INDEX edits_status ON edits(status, created_at);
CREATE TABLE edit_keys (
	key     TEXT NOT NULL,
	edit_id TEXT NOT NULL REFERENCES edits(id) ON DELETE CASCADE,
	PRIMARY KEY (key, edit_id)
) WITHOUT ROWID;`,
	// 10: the account that started each conversation ('' for those started without accounts, before this).
	`ALTER TABLE conversations ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX conversations_owner ON conversations(owner, updated_at);`,
	// 11: the events of answers being written and the leases on work under way (runSchema in run_events.go).
	runSchema,
	// 12: re-extracting the graph (reextract.go): each passage's staged extraction (graphrag.Extraction as
	// JSON, or 'keep'), with partial indexes of the passages still to do and of those staged.
	`ALTER TABLE chunks ADD COLUMN graph_next TEXT;
CREATE INDEX chunks_reextract ON chunks(seq) WHERE graph_next IS NULL AND status IN ('extracted', 'failed');
CREATE INDEX chunks_reextracted ON chunks(seq) WHERE graph_next IS NOT NULL;`,
	// 13: workspaces, the accounts' memberships and the workspace of each API token (workspaceSchema in
	// auth_workspace.go); what the file held is the default workspace.
	workspaceSchema,
	// 14: the count of changes to the searchable chunk vectors under a random token naming this file,
	// which the vector index file beside it records, so that Open knows whether that file is current
	// (vector_index_file.go). Triggers count every change of a vector, whoever writes it: a chunk inserted
	// with one or deleted, a vector set outside a staged document, a staged document made searchable.
	`CREATE TABLE vector_changes (id INTEGER PRIMARY KEY CHECK (id = 1), token TEXT NOT NULL, n INTEGER NOT NULL);
INSERT INTO vector_changes VALUES (1, lower(hex(randomblob(16))), 0);
CREATE TRIGGER chunks_vector_insert AFTER INSERT ON chunks WHEN new.embedding IS NOT NULL BEGIN
	UPDATE vector_changes SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER chunks_vector_update AFTER UPDATE OF embedding ON chunks
	WHEN (SELECT replaces FROM documents WHERE id = new.doc_id) = '' BEGIN
	UPDATE vector_changes SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER chunks_vector_delete AFTER DELETE ON chunks WHEN old.embedding IS NOT NULL BEGIN
	UPDATE vector_changes SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER documents_vectors_publish AFTER UPDATE OF replaces ON documents
	WHEN old.replaces <> '' AND new.replaces = '' BEGIN
	UPDATE vector_changes SET n = n + 1 WHERE id = 1;
END;`,
	// 15: each workspace's entity types and the workspace of each audit event (workspaceSettingsSchema in
	// auth_workspace.go).
	workspaceSettingsSchema,
	// 16: each relation's support (the chunks that support it) and each entity's mention count (the chunks
	// that mention it), kept by triggers whoever writes (a cascade from a deleted chunk, relation or entity
	// fires them too), and indexes of each end of a relation holding the other end, the support, type and
	// ID, which replace the ends' indexes: a walk ranks the relations around its seeds from these indexes
	// alone and reads the rows of the few it keeps, and reads the mention counts of the entities it meets
	// from their rows (counting each candidate's supports, reading its row, vector included, and counting
	// a hub's thousands of mentions were most of a graph read).
	`ALTER TABLE relations ADD COLUMN support INTEGER NOT NULL DEFAULT 0;
UPDATE relations SET support = (SELECT count(*) FROM relation_chunks rc WHERE rc.relation_id = relations.id);
CREATE TRIGGER relation_chunks_support_insert AFTER INSERT ON relation_chunks BEGIN
	UPDATE relations SET support = support + 1 WHERE id = new.relation_id;
END;
CREATE TRIGGER relation_chunks_support_delete AFTER DELETE ON relation_chunks BEGIN
	UPDATE relations SET support = support - 1 WHERE id = old.relation_id;
END;
CREATE TRIGGER relation_chunks_support_update AFTER UPDATE OF relation_id ON relation_chunks BEGIN
	UPDATE relations SET support = support - 1 WHERE id = old.relation_id;
	UPDATE relations SET support = support + 1 WHERE id = new.relation_id;
END;
CREATE INDEX relations_source_ranked ON relations(source, target, support, type, id);
CREATE INDEX relations_target_ranked ON relations(target, source, support, type, id);
DROP INDEX relations_source;
DROP INDEX relations_target;
ALTER TABLE entities ADD COLUMN mention_count INTEGER NOT NULL DEFAULT 0;
UPDATE entities SET mention_count = (SELECT count(*) FROM mentions m WHERE m.entity_key = entities.key);
CREATE TRIGGER mentions_count_insert AFTER INSERT ON mentions BEGIN
	UPDATE entities SET mention_count = mention_count + 1 WHERE key = new.entity_key;
END;
CREATE TRIGGER mentions_count_delete AFTER DELETE ON mentions BEGIN
	UPDATE entities SET mention_count = mention_count - 1 WHERE key = old.entity_key;
END;
CREATE TRIGGER mentions_count_update AFTER UPDATE OF entity_key ON mentions BEGIN
	UPDATE entities SET mention_count = mention_count - 1 WHERE key = old.entity_key;
	UPDATE entities SET mention_count = mention_count + 1 WHERE key = new.entity_key;
END;`,
	// 17: each entity's relation count (as source plus as target: a relation of an entity with itself counts
	// twice), kept by triggers on relations whoever writes (a cascade from a deleted entity fires them too):
	// a walk tells the hubs among the entities it meets from their rows instead of counting up to 201 of
	// each one's relations (hubsQuery).
	`ALTER TABLE entities ADD COLUMN relation_count INTEGER NOT NULL DEFAULT 0;
UPDATE entities SET relation_count = (SELECT count(*) FROM relations r WHERE r.source = entities.key) +
	(SELECT count(*) FROM relations r WHERE r.target = entities.key);
CREATE TRIGGER relations_count_insert AFTER INSERT ON relations BEGIN
	UPDATE entities SET relation_count = relation_count + 1 WHERE key = new.source;
	UPDATE entities SET relation_count = relation_count + 1 WHERE key = new.target;
END;
CREATE TRIGGER relations_count_delete AFTER DELETE ON relations BEGIN
	UPDATE entities SET relation_count = relation_count - 1 WHERE key = old.source;
	UPDATE entities SET relation_count = relation_count - 1 WHERE key = old.target;
END;
CREATE TRIGGER relations_count_update AFTER UPDATE OF source, target ON relations BEGIN
	UPDATE entities SET relation_count = relation_count - 1 WHERE key = old.source;
	UPDATE entities SET relation_count = relation_count - 1 WHERE key = old.target;
	UPDATE entities SET relation_count = relation_count + 1 WHERE key = new.source;
	UPDATE entities SET relation_count = relation_count + 1 WHERE key = new.target;
END;`,
}
