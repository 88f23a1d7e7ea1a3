// Package core is cairn's domain: the Service that owns the memory
// lifecycle on top of one storage.DB, and the smaller types that hang off
// it. It knows nothing of HTTP (core/httpapi serves it) and holds no SQL
// (storage does); every write goes through the Service's one write path.
//
// The files, by what they own:
//
//	service.go    Service, NewService, Actor, the kill switch, accessors
//	memory.go     the write path: Remember, dedup, chunking, InsertNew, AddHistory
//	mutate.go     Get, List, Modify, Forget, Recover, history, RecentMemories
//	forget.go     batch forget with its confirm token
//	bulk.go       the bulk write path: PrepareBatch, InsertBatch (an import's batches)
//	recall.go     Recall: keyword, vector and hybrid legs, fusion and scoring
//	search.go     the keyword (FTS5) leg
//	hints.go      heuristic prospective hints, searched beside content
//	graph.go      the graph boost of recall and the entity listing
//	similar.go    Similar memories (the vector index's neighbours, hydrated)
//	projects.go   RemapProjectTx: a project's memories moved to its identity (core/hooks)
//	runtime.go    the pipeline's run-time state and the workers' liveness
//	status.go     memory totals; Publish for changes made outside the write path
//	dedup.go      the deduplicate repair's write (retire duplicates, merge their tags)
//	redact.go     secret redaction, counted for diagnostics
//	fields.go     bounds (tags, tag filters) and redaction of the fields around content
//	faults.go     storage faults (full disk, I/O error, damage, read-only) as Errors
//	refusals.go   refused mutations (version conflicts, scope denials) in the error ring
//	events.go     change events the TUI subscribes to; what follows a commit
//	errors.go     Error: a code and a message, mapped to HTTP by httpapi
//
// Subsystems built on a Service live in packages of their own and get their
// one instance per Service with For: core/ops (diagnostics, repairs,
// maintenance, retention), core/pipeline (extraction, decisions, proposals,
// the graph's writes) and core/documents (document ingest). Leaf packages
// need no Service: core/config, core/text, core/extract, core/fetch,
// core/vector, core/analytics and core/auth; and core imports two below
// it, built beside the Service by core/app: core/vectors (the embedder,
// the vector index, pending embeddings) and core/jobs (the job queue).
// core/vector, core/analytics and core/auth.
//
// core/evolution sits below core: keys, scopes, attributes and
// supersession run inside core's write transactions through the value
// EvolutionTx lends them (and RecoverTx restores for them). core/transfer
// (JSONL export and import, Signet import) sits above core and writes
// through InsertBatch and EvolutionTx.
package core
