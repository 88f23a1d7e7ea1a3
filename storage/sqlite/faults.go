package sqlite

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// Fault is what went wrong with the database file itself, as opposed to a
// query: the disk is full, the file cannot be read or written, it is
// damaged, or it cannot be written at all.
type Fault string

// The faults, from an SQLite result code (or the OS error under it).
const (
	FaultNone     Fault = ""
	FaultFull     Fault = "full"     // SQLITE_FULL, ENOSPC
	FaultIO       Fault = "io"       // SQLITE_IOERR
	FaultCorrupt  Fault = "corrupt"  // SQLITE_CORRUPT, SQLITE_NOTADB, a failed integrity check
	FaultReadOnly Fault = "readonly" // SQLITE_READONLY
)

// ErrCorrupt is returned when the database file is damaged: by Open when
// its integrity check fails, and by WriteTx once a damaged page was met.
var ErrCorrupt = errors.New("the database file is damaged")

// FaultOf classifies err; FaultNone for errors that are not about the file.
func FaultOf(err error) Fault {
	if err == nil {
		return FaultNone
	}
	if errors.Is(err, ErrCorrupt) {
		return FaultCorrupt
	}
	// The driver returns *sqlite3.Error or a bare result code, possibly
	// wrapped; both convert to the primary ErrorCode.
	var code sqlite3.ErrorCode
	if errors.As(err, &code) {
		switch code {
		case sqlite3.FULL:
			return FaultFull
		case sqlite3.IOERR:
			return FaultIO
		case sqlite3.CORRUPT, sqlite3.NOTADB:
			return FaultCorrupt
		case sqlite3.READONLY:
			return FaultReadOnly
		}
	}
	if errors.Is(err, syscall.ENOSPC) {
		return FaultFull
	}
	return FaultNone
}

// FaultState is the last fault the database met, for health reports.
type FaultState struct {
	Fault   Fault     `json:"fault"`
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// faults tracks the faults met and the writer's liveness. A damaged file
// stays damaged until the process restarts (Open checks it again); any
// other fault is cleared by the next commit, which proves the file
// writable again.
type faults struct {
	mu      sync.Mutex
	last    FaultState
	corrupt bool

	writeSince atomic.Int64 // unix nanos the running write began; 0 when idle
	lastCommit atomic.Int64 // unix nanos of the last commit
}

// NoteFault records err when it is a fault of the file and returns its
// kind. Callers that see storage errors outside WriteTx (reads) report
// them here so health tells the truth.
func (db *DB) NoteFault(err error) Fault {
	f := FaultOf(err)
	if f == FaultNone {
		return f
	}
	db.faults.mu.Lock()
	defer db.faults.mu.Unlock()
	db.faults.last = FaultState{Fault: f, Message: err.Error(), At: time.Now()}
	if f == FaultCorrupt {
		db.faults.corrupt = true
	}
	return f
}

// LastFault returns the fault the database is in, if any: a damaged file,
// or a fault no commit has cleared since.
func (db *DB) LastFault() (FaultState, bool) {
	db.faults.mu.Lock()
	defer db.faults.mu.Unlock()
	return db.faults.last, db.faults.last.Fault != FaultNone
}

// WriterBusy returns how long the write transaction in progress has run;
// 0 when the writer is idle.
func (db *DB) WriterBusy() time.Duration {
	since := db.faults.writeSince.Load()
	if since == 0 {
		return 0
	}
	return time.Since(time.Unix(0, since))
}

// LastCommit returns when the last write transaction committed (zero
// before the first).
func (db *DB) LastCommit() time.Time {
	if n := db.faults.lastCommit.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

func (db *DB) refuseWrites() error {
	db.faults.mu.Lock()
	defer db.faults.mu.Unlock()
	if !db.faults.corrupt {
		return nil
	}
	return fmt.Errorf("%w (%s); writes are refused: stop cairn, restore a backup or recover the file, and start again",
		ErrCorrupt, db.faults.last.Message)
}

func (db *DB) committed() {
	db.faults.lastCommit.Store(time.Now().UnixNano())
	db.faults.mu.Lock()
	defer db.faults.mu.Unlock()
	if !db.faults.corrupt {
		db.faults.last = FaultState{}
	}
}
