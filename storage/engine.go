package storage

import (
	"context"

	"github.com/cairnmem/cairn/storage/engine"
	"github.com/cairnmem/cairn/storage/seam"
	"github.com/cairnmem/cairn/storage/sqlite"
)

// The engine behind the query functions, under the names the rest of
// cairn uses; doc.go says what each part is for. DB is storage/engine's,
// which opens SQLite (a file path) or PostgreSQL (a postgres:// URL).
// Only this file names the engines.

type (
	DB      = engine.DB      // an open database: WriteTx, Reader, the change feed, faults
	Options = engine.Options // what Open opens (Path: a file, or a postgres:// URL), and how
	Tx      = seam.Tx        // a write transaction's Querier, the engine's own
	Reader  = seam.Querier   // the read pool's Querier

	Fault      = sqlite.Fault // what went wrong with the database itself
	FaultState = sqlite.FaultState

	LegacyEmbedding = sqlite.LegacyEmbedding // a vector still in the float32 format

	Lock        = sqlite.Lock // one process serves a database file (not a URL)
	LockInfo    = sqlite.LockInfo
	LockedError = sqlite.LockedError
)

// The faults FaultOf tells apart.
const (
	FaultNone        = sqlite.FaultNone
	FaultFull        = sqlite.FaultFull
	FaultIO          = sqlite.FaultIO
	FaultCorrupt     = sqlite.FaultCorrupt
	FaultReadOnly    = sqlite.FaultReadOnly
	FaultUnreachable = engine.FaultUnreachable // PostgreSQL's server out of reach
	FaultBehind      = engine.FaultBehind      // PostgreSQL's change feed cut off past the log kept
)

var (
	ErrCorrupt       = sqlite.ErrCorrupt       // the database is damaged: writes are refused
	ErrLocked        = sqlite.ErrLocked        // another process holds the database (a *LockedError)
	ErrNotOnPostgres = engine.ErrNotOnPostgres // what only SQLite has, asked of PostgreSQL
	ErrSchemaNewer   = sqlite.ErrSchemaNewer   // the database is newer than this binary
	ErrBadChecksum   = sqlite.ErrBadChecksum   // an applied migration changed
	ErrOldServer     = engine.ErrOldServer     // PostgreSQL older than 15
	ErrNoPassword    = engine.ErrNoPassword    // storage.password_file is empty
)

// Open opens the database opts names, creating and migrating it.
func Open(ctx context.Context, opts Options) (*DB, error) { return engine.Open(ctx, opts) }

// OpenReadOnly opens an existing database for reading beside its owner.
func OpenReadOnly(ctx context.Context, opts Options) (*DB, error) {
	return engine.OpenReadOnly(ctx, opts)
}

// IsURL reports whether path is a PostgreSQL URL rather than a file.
func IsURL(path string) bool { return engine.IsURL(path) }

// Redact is a database path as it may be shown: a URL's password hidden.
func Redact(path string) string { return engine.Redact(path) }

// BackgroundReads marks ctx so the Reader runs it off the request pool.
func BackgroundReads(ctx context.Context) context.Context { return sqlite.BackgroundReads(ctx) }

// SchemaVersion is the newest schema version this binary knows.
func SchemaVersion() int { return sqlite.SchemaVersion() }

// FaultOf classifies err; FaultNone for an error that is not the database's.
func FaultOf(err error) Fault { return engine.FaultOf(err) }

// AcquireLock takes the lock of the database file at dbPath without waiting.
func AcquireLock(dbPath string) (*Lock, error) { return sqlite.AcquireLock(dbPath) }

// LockPath is the lock file of the database at dbPath.
func LockPath(dbPath string) string { return sqlite.LockPath(dbPath) }

// ReadLockInfo reads who holds the lock of the database at dbPath.
func ReadLockInfo(dbPath string) (LockInfo, bool) { return sqlite.ReadLockInfo(dbPath) }

// SQLite-only (storage/engine/sqliteonly.go says what each does on
// PostgreSQL): the full-text index's bulk merging and upkeep, its
// vocabulary, the file's pages, the vectors of stores from before
// migration 0011 (DB.CompactAfterConversion follows).
var (
	BulkFTSMerge           = engine.BulkFTSMerge
	CountFTSDocuments      = engine.CountFTSDocuments
	CheckFTSIntegrity      = engine.CheckFTSIntegrity
	RebuildFTS             = engine.RebuildFTS
	TermDocCounts          = engine.TermDocCounts
	PageStats              = engine.PageStats
	LegacyEmbeddings       = engine.LegacyEmbeddings
	RewriteLegacyEmbedding = engine.RewriteLegacyEmbedding
)
