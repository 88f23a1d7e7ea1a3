package storage

import (
	"context"

	"github.com/cairnmem/cairn/storage/sqlite"
)

// The engine behind the query functions, SQLite (storage/sqlite), under
// the names the rest of cairn uses; doc.go says what each part is for.
// Only this file names the engine.

type (
	DB      = sqlite.DB      // an open database: WriteTx, Reader, the change feed, faults
	Options = sqlite.Options // what Open opens, and how
	Tx      = sqlite.Tx      // a write transaction's Querier
	Reader  = sqlite.Reader  // the read pool's Querier

	Fault      = sqlite.Fault // what went wrong with the database itself
	FaultState = sqlite.FaultState

	LegacyEmbedding = sqlite.LegacyEmbedding // a vector still in the float32 format

	Lock        = sqlite.Lock // one process serves a database file
	LockInfo    = sqlite.LockInfo
	LockedError = sqlite.LockedError
)

// The faults FaultOf tells apart.
const (
	FaultNone     = sqlite.FaultNone
	FaultFull     = sqlite.FaultFull
	FaultIO       = sqlite.FaultIO
	FaultCorrupt  = sqlite.FaultCorrupt
	FaultReadOnly = sqlite.FaultReadOnly
)

var (
	ErrCorrupt = sqlite.ErrCorrupt // the database is damaged: writes are refused
	ErrLocked  = sqlite.ErrLocked  // another process holds the database (a *LockedError)
)

// Open opens the database opts names, creating and migrating it.
func Open(ctx context.Context, opts Options) (*DB, error) { return sqlite.Open(ctx, opts) }

// OpenReadOnly opens an existing database for reading beside its owner.
func OpenReadOnly(ctx context.Context, opts Options) (*DB, error) {
	return sqlite.OpenReadOnly(ctx, opts)
}

// BackgroundReads marks ctx so the Reader runs it off the request pool.
func BackgroundReads(ctx context.Context) context.Context { return sqlite.BackgroundReads(ctx) }

// SchemaVersion is the newest schema version this binary knows.
func SchemaVersion() int { return sqlite.SchemaVersion() }

// FaultOf classifies err; FaultNone for an error that is not the database's.
func FaultOf(err error) Fault { return sqlite.FaultOf(err) }

// AcquireLock takes the lock of the database at dbPath without waiting.
func AcquireLock(dbPath string) (*Lock, error) { return sqlite.AcquireLock(dbPath) }

// LockPath is the lock file of the database at dbPath.
func LockPath(dbPath string) string { return sqlite.LockPath(dbPath) }

// ReadLockInfo reads who holds the lock of the database at dbPath.
func ReadLockInfo(dbPath string) (LockInfo, bool) { return sqlite.ReadLockInfo(dbPath) }

// SQLite-only (doc.go): the full-text index's bulk merging and upkeep, its
// vocabulary, the file's pages, and the vectors of stores from before
// migration 0011, converted once (DB.CompactAfterConversion follows).

// BulkFTSMerge runs fn, a bulk write in tx, with fewer index merges.
func BulkFTSMerge(ctx context.Context, tx *Tx, fn func() error) error {
	return sqlite.BulkFTSMerge(ctx, tx, fn)
}

// CountFTSDocuments counts the documents the full-text index holds.
func CountFTSDocuments(ctx context.Context, q Querier) (int64, error) {
	return sqlite.CountFTSDocuments(ctx, q)
}

// CheckFTSIntegrity checks the full-text index against memories.
func CheckFTSIntegrity(ctx context.Context, tx *Tx) error { return sqlite.CheckFTSIntegrity(ctx, tx) }

// RebuildFTS rebuilds the full-text index from memories.
func RebuildFTS(ctx context.Context, tx *Tx) error { return sqlite.RebuildFTS(ctx, tx) }

// TermDocCounts returns, for each term, how many memories contain it.
func TermDocCounts(ctx context.Context, q Querier, terms []string) (map[string]int, error) {
	return sqlite.TermDocCounts(ctx, q, terms)
}

// PageStats returns the database file's page count, page size and free pages.
func PageStats(ctx context.Context, q Querier) (pages, size, free int64, err error) {
	return sqlite.PageStats(ctx, q)
}

// LegacyEmbeddings returns up to limit vectors still stored as float32.
func LegacyEmbeddings(ctx context.Context, q Querier, limit int) ([]LegacyEmbedding, error) {
	return sqlite.LegacyEmbeddings(ctx, q, limit)
}

// RewriteLegacyEmbedding replaces the float32 vector of row id with blob.
func RewriteLegacyEmbedding(ctx context.Context, q Querier, id int64, blob []byte) error {
	return sqlite.RewriteLegacyEmbedding(ctx, q, id, blob)
}
