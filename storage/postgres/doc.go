// Package postgres is the second engine behind storage:
// PostgreSQL 15 or newer, shared by several cairn servers (issue 31),
// through github.com/jackc/pgx/v5 and its database/sql adapter
// (pgx/v5/stdlib), so that its rows are the *sql.Rows storage's Querier
// returns. Like storage/sqlite it imports nothing of cairn's but
// storage's leaves, and only storage and storage/engine (which opens it
// for a postgres:// URL) may import it (core/app/layout_test.go).
//
//	db.go       Open: the URL (libpq form), the password from it, a file or the environment
//	            (PGPASSWORD, ~/.pgpass), redacted in every error; the server's version (15+); Close
//	stmt.go     Querier, Tx and Reader (SQLite's ? parameters rebound, a bool bound as a 0/1 flag
//	            or a boolean); WriteTx: one transaction at a time across every server (a
//	            transaction-scoped advisory lock), committed or rolled back whole
//	rebind.go   Rebind: ? and ?N to $n outside literals and comments, cached by query text
//	migrate.go  migrations/*.sql, embedded, applied once in order under an advisory lock, with
//	            SHA-256 checksums; a changed applied migration or a newer schema refused
//	changes.go  the change feed across servers: memory_changes (a trigger logs each row's rid in
//	            the writing transaction) read from a cursor of transaction ids, LISTEN/NOTIFY
//	follow.go   Follower: the feed gathered in the background (a notification, or a poll), with
//	            SQLite's Pending/Take/ReturnMemoryChanges, for a server's in-memory indexes; its
//	            cursor recorded (Beat) and the log pruned below the live followers' (PruneFollowed)
//	faults.go   FaultOf: SQLSTATEs and the connection as the SQLite engine's faults, and unreachable
//	jobs.go     the job lease: FOR UPDATE SKIP LOCKED, one server per job, without the write lock
//
// Its schema is the SQLite engine's less what only SQLite has (FTS5, the
// float32 vectors' index): 0001 its final shape after its migration 0024,
// then one migration here for each there (0005 for its 0025), and what
// storage's queries need of SQLite's implicit columns and views (0003,
// 0004); migrations/0001_schema.sql says what differs, and a test in
// storage compares the two catalogs.
//
// What is left (docs/design/postgres.md): the database's health in
// diagnostics, relaxing the one write lock.
package postgres
