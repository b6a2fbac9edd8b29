// Package storebench measures retrieval on each store over a seeded synthetic corpus: hybrid search and
// 2-hop graph retrieval latency at 1k, 10k and 100k chunks, and the heap an open embedded store holds per
// 100k chunks. It has benchmarks only; `make bench` runs them. Built corpora are cached between runs (see
// cacheDir); the Neo4j benchmarks need NEO4J_URI and wipe that database.
package storebench
