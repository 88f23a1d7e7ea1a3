package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairnmem/cairn/storage/schema"
	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver" // also registers the "sqlite3" database/sql driver
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

func init() {
	// FTS5 is not compiled into the ncruces v0.35 core; register it for every
	// connection opened by this process.
	sqlite3.AutoExtension(fts5.Register)
}

// Defaults for [Options]; each can be overridden from config.
const (
	DefaultBusyTimeout = 5 * time.Second
	DefaultReadConns   = 16
)

// Options configures how a database file is opened.
type Options struct {
	// Path of the database file. ":memory:" is not supported: cairn relies on
	// WAL and on separate reader connections seeing the writer's commits.
	Path string
	// Synchronous is "normal" (the default; an acknowledged commit survives a
	// process crash) or "full" (it also survives power loss).
	Synchronous string
	// BusyTimeout bounds how long a connection waits for a lock.
	BusyTimeout time.Duration
	// ReadConns is the size of the reader pool.
	ReadConns int
	// NoBackup skips the backup copy normally taken before migrating an
	// existing file (used by tests that create throwaway databases).
	NoBackup bool
	// Migrations replaces the embedded migrations when set: tests open a
	// store as an older cairn left it with a prefix of Migrations().
	Migrations []Migration
	// CheckInBackground runs the start-up integrity check (quick_check,
	// most of an Open: 80 ms at 10k memories on an idle machine) after
	// Open returns, on the background reader, instead of before: a server
	// answers sooner. A damaged file found then faults the store (writes
	// refused, health unhealthy) instead of being refused at open.
	CheckInBackground bool
}

// DB is an open cairn database: one writer connection and a reader pool over
// the same file.
type DB struct {
	path       string
	write      *sql.DB
	read       *sql.DB
	side       *sql.DB // the background reader (BackgroundReads)
	writeStmts *stmtCache
	reader     *Reader
	writer     writer // group commit (writer.go)
	faults     faults
	changes    *memoryChanges // rows of memories written (changes.go)
	migrated   []int          // versions this Open applied
	bulk       bulkLoads      // bulk writes under way (BulkLoad)
	check      backgroundCheck
}

// Sentinel errors returned by the engine.
var (
	ErrSchemaNewer  = schema.ErrSchemaNewer
	ErrLocked       = errors.New("database is in use by another cairn process")
	ErrBadChecksum  = schema.ErrBadChecksum
	ErrUnsupported  = errors.New("unsupported storage option")
	errNilTxFunc    = errors.New("storage: nil transaction function")
	errReadOnlyPath = errors.New("storage: database path is empty")
)

// Open opens (creating if needed) the database at opts.Path, applies pending
// migrations and returns it ready for use. It does not take the process lock;
// see [AcquireLock].
func Open(ctx context.Context, opts Options) (*DB, error) {
	if opts.Path == "" {
		return nil, errReadOnlyPath
	}
	if opts.Path == ":memory:" || strings.HasPrefix(opts.Path, "file::memory:") {
		return nil, fmt.Errorf("%w: in-memory databases", ErrUnsupported)
	}
	sync := strings.ToLower(opts.Synchronous)
	if sync == "" {
		sync = "normal"
	}
	if sync != "normal" && sync != "full" {
		return nil, fmt.Errorf("%w: synchronous=%q (want normal or full)", ErrUnsupported, opts.Synchronous)
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = DefaultBusyTimeout
	}
	if opts.ReadConns <= 0 {
		opts.ReadConns = DefaultReadConns
	}
	if err := os.MkdirAll(filepath.Dir(opts.Path), 0o700); err != nil {
		return nil, fmt.Errorf("create database folder: %w", err)
	}
	existed := fileExists(opts.Path)
	check := existed && needsCheck(opts.Path)
	if !existed && opts.Migrations == nil {
		if img := freshImage(ctx); img != nil {
			if err := writeFresh(opts.Path, img); err != nil {
				return nil, err
			}
		}
	}
	if err := createPrivate(opts.Path); err != nil {
		return nil, err
	}

	changes := &memoryChanges{ckpt: newCheckpointer()}
	write, err := driver.Open(dsn(opts.Path, sync, opts.BusyTimeout, false), func(c *sqlite3.Conn) error {
		if err := stablePlans(c); err != nil {
			return err
		}
		return changes.watch(c)
	})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", opts.Path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	if err := write.PingContext(ctx); err != nil {
		write.Close()
		if FaultOf(err) == FaultCorrupt {
			return nil, corruptError(opts.Path, err.Error())
		}
		return nil, fmt.Errorf("open %s: %w", opts.Path, err)
	}
	// A damaged file is refused before anything writes to it: serving it
	// would answer from half an index and keep writing over broken pages.
	if check && !opts.CheckInBackground {
		if err := quickCheck(ctx, write, opts.Path); err != nil {
			write.Close()
			return nil, err
		}
	}

	db := &DB{path: opts.Path, write: write, writeStmts: newStmtCache(write), changes: changes}
	ms := opts.Migrations
	if ms == nil {
		if ms, err = Migrations(); err != nil {
			write.Close()
			return nil, err
		}
	}
	if err := db.migrate(ctx, ms, existed && !opts.NoBackup); err != nil {
		write.Close()
		return nil, err
	}
	if existed {
		db.compactAfterMigrations(ctx)
	}

	read, err := driver.Open(dsn(opts.Path, sync, opts.BusyTimeout, true), stablePlans)
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open %s for reading: %w", opts.Path, err)
	}
	read.SetMaxOpenConns(opts.ReadConns)
	read.SetMaxIdleConns(opts.ReadConns)
	db.read = read
	// One more reader connection for background reads (BackgroundReads).
	side, err := driver.Open(dsn(opts.Path, sync, opts.BusyTimeout, true), stablePlans)
	if err != nil {
		read.Close()
		write.Close()
		return nil, fmt.Errorf("open %s for reading: %w", opts.Path, err)
	}
	side.SetMaxOpenConns(1)
	side.SetMaxIdleConns(1)
	db.side = side
	db.reader = &Reader{cache: newStmtCache(read), side: newStmtCache(side)}
	// And one that checkpoints the WAL off the writer (checkpoint.go).
	ckpt, err := driver.Open(dsn(opts.Path, sync, checkpointBusy, false), stablePlans)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s for checkpoints: %w", opts.Path, err)
	}
	changes.ckpt.readersBusy = func() bool { return read.Stats().InUse > 0 || side.Stats().InUse > 0 }
	changes.ckpt.start(ckpt)
	if err := restrictFiles(opts.Path); err != nil {
		db.Close()
		return nil, err
	}
	if check && opts.CheckInBackground {
		db.checkInBackground()
	}
	return db, nil
}

// stablePlans turns on SQLite's query planner stability guarantee on a
// new connection: plans no longer depend on the values bound to a
// statement. Without it this SQLite plans "LIMIT ?" for the value bound
// and prepares the statement again whenever the value changes: every
// search and candidate load (their limits follow the query) parsed and
// planned its SQL anew, about a tenth of a recall's CPU. Results are the
// same either way; only the work to reach them differs.
func stablePlans(c *sqlite3.Conn) error {
	_, err := c.Config(sqlite3.DBCONFIG_ENABLE_QPSG, true)
	return err
}

func dsn(path, sync string, busy time.Duration, readOnly bool) string {
	q := url.Values{}
	// Order matters to the driver: busy timeout first.
	pragmas := []string{
		fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()),
		"journal_mode(wal)",
		"synchronous(" + sync + ")",
		"foreign_keys(on)",
		"temp_store(memory)",
		// Memory-mapped reads: loading the vector index and full-text
		// scans otherwise spend most of their time in read syscalls.
		// Bounded (256 MiB: the hot tables of a 100k store) so a large
		// store does not map its whole file; with the page cache of each
		// connection (2 MB, SQLite's default, five connections) SQLite's
		// share of the RSS stays small (see README: Memory).
		"mmap_size(268435456)",
		"cache_size(-2000)",
	}
	if readOnly {
		pragmas = append(pragmas, "query_only(1)")
	} else {
		pragmas = append(pragmas, fmt.Sprintf("journal_size_limit(%d)", walSizeLimit))
		q.Set("_txlock", "immediate")
	}
	q["_pragma"] = pragmas
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: q.Encode()}
	return u.String()
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Size() > 0
}

// Path returns the database file path.
func (db *DB) Path() string { return db.path }

// Reader returns the reader pool. Queries on it never block on the writer.
func (db *DB) Reader() *Reader { return db.reader }

// Close checkpoints the WAL into the main file and closes every connection.
func (db *DB) Close() error {
	db.check.stop()
	db.stopWriter()
	var errs []error
	if db.changes != nil {
		errs = append(errs, db.changes.ckpt.close())
	}
	if db.reader != nil {
		db.reader.cache.close()
		db.reader.side.close()
	}
	if db.read != nil {
		errs = append(errs, db.read.Close())
	}
	if db.side != nil {
		errs = append(errs, db.side.Close())
	}
	if db.writeStmts != nil {
		db.writeStmts.close()
	}
	if db.write != nil {
		// TRUNCATE leaves a zero-length WAL so the file is self-contained.
		if _, err := db.write.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			errs = append(errs, fmt.Errorf("checkpoint: %w", err))
		}
		errs = append(errs, db.write.Close())
	}
	return errors.Join(errs...)
}
