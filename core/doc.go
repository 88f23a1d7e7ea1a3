// Package core is cairn's domain: the Service that owns the memory
// lifecycle on top of one storage.DB — its one write path, recall and
// history. It knows nothing of HTTP (core/httpapi serves it) and holds no
// SQL (storage does). Every change to a memory row and its history goes
// through the Service: capabilities that write memories do it through the
// transaction-scoped parts of the write path (InsertNew, ForgetTx,
// RecoverTx, AddHistory, InsertBatch, EvolutionTx, RemapProjectTx,
// MergeDuplicatesTx), never with their own writes to those rows
// (writepath_test.go keeps it so).
//
// The files, by what they own:
//
//	service.go      Service, NewService, Actor, the kill switch, accessors
//	memory.go       the write path: Remember, dedup, chunking, InsertNew, AddHistory, Get, List
//	mutate.go       Modify, Forget/ForgetTx, Recover/RecoverTx, ModifyBatch, history reads
//	forget.go       batch forget with its preview and confirm token
//	bulk.go         the bulk write path: PrepareBatch, InsertBatch (an import's batches)
//	linker.go       the inline entity linker inside the write transaction
//	linker_bulk.go  entity linking for bulk inserts
//	hints.go        heuristic prospective hints, written on insert and searched in recall
//	projects.go     RemapProjectTx: a project's memories moved to its identity
//	dedup.go        the deduplicate repair's write (retire duplicates, merge their tags)
//	recall.go       Recall: the legs, fusion, scoring, dampening, decay, hydration
//	search.go       the keyword leg (the in-memory index, or FTS5)
//	keyindex.go     the in-memory keyword index, kept in step with commits
//	coverage.go     word coverage of a memory by the query
//	termweights.go  the query's words weighed by IDF in coverage (search.coverage_idf)
//	speaker.go      the speaker factor for conversation turns
//	neighbors.go    the lift toward a session neighbour's score (search.neighbor_weight)
//	constraints.go  constraints in the dampening's resolution boost
//	graph.go        recall's graph boost (one hop, under a deadline) and the hub penalty
//	rerank.go       reranking by a model (reranker.enabled)
//	similar.go      Similar memories (the vector index's neighbours, hydrated)
//	fields.go       bounds (tags, filters) and the redaction of the fields around content
//	redact.go       the Redactor: secrets removed from what is stored, counted
//	filters.go      the memory and history filters recall and the lists take
//	tuiquery.go     history search (the TUI's history filter)
//	events.go       change events (Subscribe) and what follows each commit
//	foreground.go   requests in flight, and the Throttle background work waits on
//	runtime.go      the pipeline's run-time state and the workers' liveness
//	status.go       memory totals; Publish for changes made outside the write path
//	faults.go       storage faults (full disk, I/O error, damage, read-only) as Errors
//	refusals.go     refused mutations (version conflicts, scope denials) in the error ring
//	errors.go       Error: a code and a message, mapped to HTTP by httpapi
//
// core imports storage, the leaf libraries (core/config, core/text,
// core/entities, core/keyword, core/analytics, core/wire) and the packages
// below it, which never import core: core/evolution (keys, scopes,
// attributes and supersession, run inside core's write transactions through
// the value EvolutionTx lends them), core/vectors (the embedder, the vector
// index, pending embeddings) and core/jobs (the job queue). The
// capabilities built on a Service (core/hooks, core/sessions,
// core/transfer, core/ops, core/pipeline, core/documents,
// core/connectors, core/graph) import core, and core/app builds them all
// once per open store; core imports none of them. core/app's
// layout_test.go enforces these arrows and core's size.
package core
