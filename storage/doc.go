// Package storage holds cairn's SQL: every query is a named function here
// taking a Querier, over rows of its own (Memory, HistoryEvent, Job, ...);
// only the retention sweep's are apart, in storage/retention, which builds
// on this package. It runs on an engine that keeps the rows: SQLite
// (storage/sqlite: opening the file, the writer, the migrations, the lock
// file), or PostgreSQL shared by several servers (storage/postgres),
// chosen by storage/engine's DB from the path or URL Open is given, under
// the names of engine.go, so the rest of cairn never names the engine.
// A write transaction is the engine's own (storage/seam's Tx).
//
// The seam, what the query functions and their callers need of an engine
// (docs/design/storage.md, "The seam"):
//
//   - Statements: a Querier (QueryContext, QueryRowContext, ExecContext,
//     with database/sql's results) whose prepared statements the engine
//     caches by their text.
//   - Write transactions: DB.WriteTx runs fn, committed if it returns nil;
//     writes are serialized, so what fn reads holds until it commits (the
//     job lease, dedup and if_version rely on it). Calls may share a
//     commit, each in a savepoint; a started fn runs whole.
//   - Reads: DB.Reader, a Querier of committed rows that never waits for
//     the writer; BackgroundReads keeps a read off the request pool.
//   - The change feed the in-memory keyword index follows:
//     Pending/Take/ReturnMemoryChanges, the rids of memories rows that
//     commits changed.
//   - Faults: FaultOf and DB.NoteFault, LastFault, WriterBusy, LastCommit.
//   - Bulk loads: DB.BulkLoad around an import (tuning only).
//   - Open, OpenReadOnly, Close; the schema and its checksummed
//     migrations are the engine's.
//
// SQLite-only, and said so where they are: the full-text index (FTS5) and
// the queries on it (SearchFTS, MatchHints, TermDocCounts, its upkeep),
// the file's pages, WAL checkpoints, VACUUM, the lock file, and the SQL
// dialect the query functions are written in.
//
// On PostgreSQL every query function runs but FTS5's; those of engine.go
// answer ErrNotOnPostgres there, or run as they can (docs/design/postgres.md).
package storage
