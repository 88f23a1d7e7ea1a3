// Package sqlite is the engine behind storage: a SQLite database file
// through github.com/ncruces/go-sqlite3 (no cgo), opened, migrated and
// kept. It imports nothing of cairn's and knows the rows only as its
// migrations build them; storage runs its queries on it and gives its
// names to the rest of cairn (storage/engine.go), and nothing else
// imports it.
//
// It provides the seam storage/doc.go lists (docs/design/storage.md,
// "The seam"):
//
//	db.go         Open: WAL, pragmas, one writer connection, a reader pool and a background reader; Close
//	stmt.go       Querier, Tx and Reader with their prepared-statement caches; BackgroundReads
//	writer.go     WriteTx: BEGIN IMMEDIATE on the one writer, waiting writes grouped in one commit, each in a savepoint
//	changes.go    the change feed: the rids of memories rows each commit changed (update and WAL hooks)
//	faults.go     faults of the file (full, I/O, damaged, read-only), the writer's liveness, writes refused once damaged
//	bulkload.go   bulk-load mode: a larger writer cache, rarer checkpoints, FTS5 merging less
//	migrate.go    migrations/*.sql, embedded, applied once in order with SHA-256 checksums; a backup first; a newer schema refused
//	readonly.go   OpenReadOnly: reads beside the owner, no lock, no writer, this binary's schema only
//
// and what only SQLite has, which another engine would do its own way or
// not at all:
//
//	checkpoint.go  WAL checkpoints off the writer, on a connection of their own; the WAL kept bounded while readers overlap
//	integrity.go   quick_check at open, private file modes
//	compact.go     the float32 vectors of stores from before 0011, converted; VACUUM after them and after 0017
//	fts.go         the FTS5 index's upkeep (count, integrity-check, rebuild), its vocabulary, the file's pages
//	lock.go        the lock file: one process serves a database file
package sqlite
