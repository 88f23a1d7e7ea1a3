package core

import (
	"errors"

	"github.com/cairnmem/cairn/storage"
)

// Codes of the storage faults: the database file, not the request, is
// what failed. The API answers 507 for a full disk or an I/O error and 503
// for a damaged or read-only file (httpapi.StatusOf).
const (
	CodeStorageFull     = "storage_full"
	CodeStorageIO       = "storage_io"
	CodeStorageCorrupt  = "storage_corrupt"
	CodeStorageReadOnly = "storage_readonly"
	// PostgreSQL's: the server out of reach; this server's indexes may
	// have missed changes of others (its change feed was cut off).
	CodeStorageUnreachable = "storage_unreachable"
	CodeStorageBehind      = "storage_behind"
	// What only the SQLite store has (the full-text index, the file),
	// asked of a PostgreSQL one.
	CodeNotOnPostgres = "not_on_postgres"
)

// storageFault turns a fault of the database file into an Error that says
// what happened; nil for any other error.
func storageFault(err error) *Error {
	if errors.Is(err, storage.ErrNotOnPostgres) {
		return &Error{Code: CodeNotOnPostgres, Message: err.Error(), Err: err}
	}
	e := StorageFaultError(storage.FaultOf(err))
	if e != nil {
		e.Err = err
	}
	return e
}

// StorageFaultError is the Error of a storage fault; nil for FaultNone.
func StorageFaultError(f storage.Fault) *Error {
	var code, msg string
	switch f {
	case storage.FaultFull:
		code, msg = CodeStorageFull, "the database could not be written: the disk is full (database or disk is full); free disk space and retry"
	case storage.FaultIO:
		code, msg = CodeStorageIO, "the database file could not be read or written (disk I/O error); check the disk and cairn's log"
	case storage.FaultCorrupt:
		code, msg = CodeStorageCorrupt, "the database file is damaged (database disk image is malformed); writes are refused until cairn is restarted on a sound file"
	case storage.FaultReadOnly:
		code, msg = CodeStorageReadOnly, "the database is read-only (attempt to write a readonly database); check the file's permissions and the filesystem"
	case storage.FaultUnreachable:
		code, msg = CodeStorageUnreachable, "the PostgreSQL server is out of reach (the connection failed or was lost); check the server and the network"
	case storage.FaultBehind:
		code, msg = CodeStorageBehind, "this server's change feed was cut off for longer than the log is kept: its indexes may miss other servers' changes; restart it"
	default:
		return nil
	}
	return &Error{Code: code, Message: msg}
}

// IsStorageFault reports whether code is one of the storage fault codes.
func IsStorageFault(code string) bool {
	switch code {
	case CodeStorageFull, CodeStorageIO, CodeStorageCorrupt, CodeStorageReadOnly, CodeStorageUnreachable, CodeStorageBehind:
		return true
	}
	return false
}
