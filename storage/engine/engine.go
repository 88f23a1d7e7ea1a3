// Package engine is storage's engine-neutral handle: DB opens either
// engine by what it is given (a file path: SQLite, storage/sqlite; a
// postgres:// or postgresql:// URL: PostgreSQL, storage/postgres) and
// offers the seam of docs/design/storage.md on both, so that the rest of
// cairn, through storage's names (storage/engine.go), never knows which
// runs. A write transaction is the engine's own (seam.Tx), handed to fn
// as it is; the reader is the engine's. What only SQLite has (the
// full-text index, the file, its lock) answers ErrNotOnPostgres on
// PostgreSQL, or does nothing where nothing is the right answer.
//
// It is part of storage and, with storage, the only package that imports
// the engines (core/app/layout_test.go).
package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnmem/cairn/storage/postgres"
	"github.com/cairnmem/cairn/storage/seam"
	"github.com/cairnmem/cairn/storage/sqlite"
)

// ErrNotOnPostgres answers what only the SQLite engine has: the
// full-text index (FTS5), the database file's pages, its WAL, VACUUM, the
// vectors of stores from before SQLite's migration 0011.
var ErrNotOnPostgres = errors.New("not on PostgreSQL: only the SQLite store has this")

// PostgreSQL's refusals at Open: a server older than 15, an empty
// password file. A database this binary cannot migrate is refused with
// sqlite's ErrSchemaNewer or ErrBadChecksum (storage/schema's, shared).
var (
	ErrOldServer  = postgres.ErrOldServer
	ErrNoPassword = postgres.ErrNoPassword
)

// FaultUnreachable is PostgreSQL's fault beyond SQLite's: the server is
// out of reach (the connection failed or was lost, the server shut down).
const FaultUnreachable = sqlite.Fault(postgres.FaultUnreachable)

// FaultBehind is this server's change feed cut off for longer than the
// log is kept (postgres.LiveWindow): its indexes may miss other servers'
// changes until it restarts. It stays until then.
const FaultBehind = sqlite.Fault("behind")

// IsURL reports whether path names a PostgreSQL database rather than a
// file: a postgres:// or postgresql:// URL.
func IsURL(path string) bool {
	return strings.HasPrefix(path, "postgres://") || strings.HasPrefix(path, "postgresql://")
}

// Redact is path as it may be shown: a URL with its password hidden, a
// file path as it is.
func Redact(path string) string {
	if IsURL(path) {
		return postgres.Redact(path)
	}
	return path
}

// Options says what Open opens: SQLite's options, and PostgreSQL's.
type Options struct {
	// Path is the database: a file (SQLite), or a postgres:// URL.
	Path string

	// SQLite's (storage/sqlite's Options).
	Synchronous       string
	BusyTimeout       time.Duration
	ReadConns         int
	NoBackup          bool
	Migrations        []sqlite.Migration
	CheckInBackground bool

	// PostgreSQL's (storage/postgres's Options): the password's file
	// (else the URL's, PGPASSWORD or ~/.pgpass) and the pool's size.
	PasswordFile string
	MaxConns     int
}

func (o Options) sqlite() sqlite.Options {
	return sqlite.Options{Path: o.Path, Synchronous: o.Synchronous, BusyTimeout: o.BusyTimeout,
		ReadConns: o.ReadConns, NoBackup: o.NoBackup, Migrations: o.Migrations, CheckInBackground: o.CheckInBackground}
}

func (o Options) postgres() postgres.Options {
	return postgres.Options{URL: o.Path, PasswordFile: o.PasswordFile, MaxConns: o.MaxConns}
}

// DB is an open database on either engine: exactly one of lite and pg.
type DB struct {
	lite *sqlite.DB

	pg     *postgres.DB
	reader seam.Querier // pg's reader, made once
	shared sharedState  // pg's faults, liveness and change feed
}

// sharedState is what DB keeps for PostgreSQL that its SQLite engine
// keeps itself: the faults met, the writer's liveness, the follower.
type sharedState struct {
	mu     sync.Mutex
	last   sqlite.FaultState
	follow *postgres.Follower // started by the first change read

	writeSince atomic.Int64 // unix nanos the running WriteTx began; 0 when idle
	lastCommit atomic.Int64
}

// Open opens the database opts.Path names, creating and migrating it.
func Open(ctx context.Context, opts Options) (*DB, error) {
	if IsURL(opts.Path) {
		pg, err := postgres.Open(ctx, opts.postgres())
		if err != nil {
			return nil, err
		}
		return &DB{pg: pg, reader: pg.Reader()}, nil
	}
	lite, err := sqlite.Open(ctx, opts.sqlite())
	if err != nil {
		return nil, err
	}
	return &DB{lite: lite}, nil
}

// OpenReadOnly opens an existing database for reading beside its owner.
// A PostgreSQL database is opened as Open does: several processes are
// its point, and none owns it.
func OpenReadOnly(ctx context.Context, opts Options) (*DB, error) {
	if IsURL(opts.Path) {
		return Open(ctx, opts)
	}
	lite, err := sqlite.OpenReadOnly(ctx, opts.sqlite())
	if err != nil {
		return nil, err
	}
	return &DB{lite: lite}, nil
}

// Postgres reports whether db is on PostgreSQL: shared by several
// servers, without FTS5.
func (db *DB) Postgres() bool { return db.pg != nil }

// Close closes the database (and stops the change feed's follower).
func (db *DB) Close() error {
	if db.lite != nil {
		return db.lite.Close()
	}
	db.shared.mu.Lock()
	f := db.shared.follow
	db.shared.follow = nil
	db.shared.mu.Unlock()
	if f != nil {
		f.Stop()
	}
	return db.pg.Close()
}

// Path is the database file, or the URL with its password hidden.
func (db *DB) Path() string {
	if db.lite != nil {
		return db.lite.Path()
	}
	return db.pg.Redacted()
}

// ReadOnly reports whether db was opened read-only beside its owner (a
// SQLite file only).
func (db *DB) ReadOnly() bool { return db.lite != nil && db.lite.ReadOnly() }

// Reader is the Querier of committed rows that never waits for a writer.
func (db *DB) Reader() seam.Querier {
	if db.lite != nil {
		return db.lite.Reader()
	}
	return db.reader
}

// WriteTx runs fn in a write transaction, committed if it returns nil.
// Write transactions are serialized: in the process (SQLite's one
// writer), or across every server (PostgreSQL's advisory lock).
func (db *DB) WriteTx(ctx context.Context, fn func(tx seam.Tx) error) error {
	if db.lite != nil {
		return db.lite.WriteTxSeam(ctx, fn)
	}
	began := time.Now().UnixNano()
	db.shared.writeSince.Store(began)
	defer db.shared.writeSince.CompareAndSwap(began, 0)
	var own []int64
	err := db.pg.WriteTx(ctx, func(t *postgres.Tx) error {
		if err := fn(t); err != nil {
			return err
		}
		var err error
		own, err = postgres.OwnChanges(ctx, t)
		return err
	})
	if err != nil {
		db.NoteFault(err)
		return err
	}
	if f := db.follower(false); f != nil && len(own) > 0 {
		// Read your writes: this server's indexes see its commit at once.
		f.Add(own)
	}
	db.shared.lastCommit.Store(time.Now().UnixNano())
	db.shared.mu.Lock()
	db.shared.last = sqlite.FaultState{}
	db.shared.mu.Unlock()
	return nil
}

// LeaseJob leases a job on PostgreSQL without the write lock (FOR UPDATE
// SKIP LOCKED: one server per job) and returns its id, or "" when none is
// due. ok is false on SQLite, whose lease runs in a WriteTx
// (storage.LeaseJob).
func (db *DB) LeaseJob(ctx context.Context, owner string, types []string, now string) (id string, ok bool, err error) {
	if db.lite != nil {
		return "", false, nil
	}
	id, err = db.pg.LeaseJob(ctx, owner, types, now)
	if errors.Is(err, postgres.ErrNoJob) {
		return "", true, nil
	}
	if err != nil {
		db.NoteFault(err)
	}
	return id, true, err
}

// BulkLoad readies the engine for a bulk write until done is called
// (SQLite's tuning; nothing on PostgreSQL).
func (db *DB) BulkLoad(ctx context.Context) (done func(), err error) {
	if db.lite != nil {
		return db.lite.BulkLoad(ctx)
	}
	return func() {}, nil
}

// CompactAfterConversion rebuilds the SQLite file (VACUUM).
func (db *DB) CompactAfterConversion(ctx context.Context) (before, after int64, err error) {
	if db.lite != nil {
		return db.lite.CompactAfterConversion(ctx)
	}
	return 0, 0, ErrNotOnPostgres
}

// DatabaseSize is the database's size in bytes: the file's pages on
// SQLite, pg_database_size on PostgreSQL (the whole database, indexes and
// the change log included).
func (db *DB) DatabaseSize(ctx context.Context) (int64, error) {
	if db.lite != nil {
		pages, size, _, err := sqlite.PageStats(ctx, db.lite.Reader())
		return pages * size, err
	}
	var n int64
	err := db.reader.QueryRowContext(ctx, `SELECT pg_database_size(current_database())`).Scan(&n)
	return n, err
}

// FaultOf classifies err as either engine's fault; FaultNone for an
// error of a query.
func FaultOf(err error) sqlite.Fault {
	if f := sqlite.FaultOf(err); f != sqlite.FaultNone {
		return f
	}
	return sqlite.Fault(postgres.FaultOf(err))
}

// NoteFault records err when it is a fault of the database and returns
// its kind.
func (db *DB) NoteFault(err error) sqlite.Fault {
	if db.lite != nil {
		return db.lite.NoteFault(err)
	}
	f := FaultOf(err)
	if f == sqlite.FaultNone {
		return f
	}
	db.shared.mu.Lock()
	db.shared.last = sqlite.FaultState{Fault: f, Message: err.Error(), At: time.Now()}
	db.shared.mu.Unlock()
	return f
}

// LastFault returns the fault the database is in, if any: one no commit
// has cleared since.
func (db *DB) LastFault() (sqlite.FaultState, bool) {
	if db.lite != nil {
		return db.lite.LastFault()
	}
	db.shared.mu.Lock()
	defer db.shared.mu.Unlock()
	if f := db.shared.follow; f != nil && f.Behind() {
		return sqlite.FaultState{Fault: FaultBehind, Message: "the change feed was cut off for over " + postgres.LiveWindow.String() + ": restart this server to rebuild its indexes", At: time.Now()}, true
	}
	return db.shared.last, db.shared.last.Fault != sqlite.FaultNone
}

// WriterBusy is how long the write transaction in progress has run.
func (db *DB) WriterBusy() time.Duration {
	if db.lite != nil {
		return db.lite.WriterBusy()
	}
	if since := db.shared.writeSince.Load(); since != 0 {
		return time.Since(time.Unix(0, since))
	}
	return 0
}

// LastCommit is when this process's last write transaction committed.
func (db *DB) LastCommit() time.Time {
	if db.lite != nil {
		return db.lite.LastCommit()
	}
	if n := db.shared.lastCommit.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// The change feed: the rids of memories rows that commits changed, for
// the in-memory keyword index. On SQLite, this process's commits (its
// commit hooks); on PostgreSQL, every server's, gathered by a Follower
// from the first Take on.

// PendingMemoryChanges is how many changed rids wait, cheaply.
func (db *DB) PendingMemoryChanges() int {
	if db.lite != nil {
		return db.lite.PendingMemoryChanges()
	}
	if f := db.follower(false); f != nil {
		return f.PendingMemoryChanges()
	}
	return 0
}

// TakeMemoryChanges returns the rids changed since the last Take, once.
func (db *DB) TakeMemoryChanges() []int64 {
	if db.lite != nil {
		return db.lite.TakeMemoryChanges()
	}
	if f := db.follower(true); f != nil {
		return f.TakeMemoryChanges()
	}
	return nil
}

// ReturnMemoryChanges puts rids taken back, when reading them failed.
func (db *DB) ReturnMemoryChanges(rids []int64) {
	if db.lite != nil {
		db.lite.ReturnMemoryChanges(rids)
		return
	}
	if f := db.follower(true); f != nil {
		f.ReturnMemoryChanges(rids)
	}
}

// TakeSharedChanges returns, on PostgreSQL, the rids any server's commits
// changed since the last call, apart from TakeMemoryChanges: for the
// vector index, which on SQLite follows this process's own writes (its
// one process writes them all) and gets nil here.
func (db *DB) TakeSharedChanges() []int64 {
	if db.lite != nil {
		return nil
	}
	if f := db.follower(true); f != nil {
		return f.TakeVectorChanges()
	}
	return nil
}

// FollowErr is the change feed's last failure on PostgreSQL, nil once a
// read succeeds again (and always on SQLite).
func (db *DB) FollowErr() error {
	if db.lite != nil {
		return nil
	}
	if f := db.follower(false); f != nil {
		return f.Err()
	}
	return nil
}

// follower is the PostgreSQL change feed's Follower, started when start
// is set (the first Take), else nil until then; nil if it cannot start
// (the server out of reach: the next Take tries again).
func (db *DB) follower(start bool) *postgres.Follower {
	db.shared.mu.Lock()
	defer db.shared.mu.Unlock()
	if db.shared.follow != nil || !start {
		return db.shared.follow
	}
	f, err := db.pg.Follow(context.Background(), 0)
	if err != nil {
		db.shared.last = sqlite.FaultState{Fault: FaultOf(err), Message: fmt.Sprintf("change feed: %v", err), At: time.Now()}
		return nil
	}
	db.shared.follow = f
	return f
}
