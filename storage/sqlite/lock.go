package sqlite

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// LockInfo is what the process holding a database writes into its lock file,
// so that a second cairn can say who holds it and where its API listens.
type LockInfo struct {
	PID       int    `json:"pid"`
	Addr      string `json:"addr,omitempty"`
	StartedAt string `json:"started_at"`
}

// LockedError reports that another process holds the database.
type LockedError struct {
	Path   string
	Holder LockInfo
}

func (e *LockedError) Error() string {
	msg := fmt.Sprintf("%s is in use by another cairn (pid %d", e.Path, e.Holder.PID)
	if e.Holder.Addr != "" {
		msg += ", serving " + e.Holder.Addr
	}
	return msg + ")"
}

// Is makes errors.Is(err, ErrLocked) true for a *LockedError.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Lock is an exclusive advisory lock on a database, held for the life of the
// process that serves it. The kernel releases it if the process dies.
type Lock struct {
	f    *os.File
	info LockInfo
}

// timeLayout is storage.TimeLayout, the one timestamp format cairn stores:
// the lock file's and schema_migrations' times are written in it too.
const timeLayout = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// LockPath is the lock file used for the database at dbPath.
func LockPath(dbPath string) string { return dbPath + ".lock" }

// AcquireLock takes the lock for dbPath without waiting. If another process
// holds it, the error is a *LockedError describing that process.
func AcquireLock(dbPath string) (*Lock, error) {
	p := LockPath(dbPath)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			holder, _ := ReadLockInfo(dbPath)
			return nil, &LockedError{Path: dbPath, Holder: holder}
		}
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	l := &Lock{f: f, info: LockInfo{PID: os.Getpid(), StartedAt: formatTime(time.Now())}}
	if err := l.write(); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// SetAddr records the address the holder's API listens on.
func (l *Lock) SetAddr(addr string) error {
	l.info.Addr = addr
	return l.write()
}

func (l *Lock) write() error {
	b, _ := json.Marshal(l.info)
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.WriteAt(append(b, '\n'), 0)
	return err
}

// Release drops the lock. The file stays (emptied): removing it would let two
// processes lock different inodes of the same path.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	_ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	_ = l.f.Close()
	l.f = nil
}

// ReadLockInfo reads the holder information of dbPath's lock file, if any.
// It reports ok=false when nobody holds the lock.
func ReadLockInfo(dbPath string) (LockInfo, bool) {
	var info LockInfo
	b, err := os.ReadFile(LockPath(dbPath))
	if err != nil {
		return info, false
	}
	if json.Unmarshal([]byte(strings.TrimSpace(string(b))), &info) != nil {
		return info, false
	}
	return info, info.PID > 0
}

// HeldByOther reports whether another live process holds dbPath's lock.
func HeldByOther(dbPath string) (LockInfo, bool) {
	l, err := AcquireLock(dbPath)
	if err == nil {
		l.Release()
		return LockInfo{}, false
	}
	var le *LockedError
	if errors.As(err, &le) {
		return le.Holder, true
	}
	return LockInfo{}, false
}
