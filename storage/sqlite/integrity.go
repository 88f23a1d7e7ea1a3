package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// QuickCheckMaxBytes bounds the start-up integrity check: a file up to this
// size is checked at every open (PRAGMA quick_check reads every page: about
// 80 ms for 10,000 memories, 25 MiB); a larger one only after a shutdown
// that was not clean, when a WAL was left behind. Every CLI command that
// opens the store pays the check, so the bound is small: at 250 MiB (100k
// memories) it took 0.7-1.5 s.
const QuickCheckMaxBytes = 32 << 20

// privateMode is the mode of every file holding memories: the database, its
// WAL and shared-memory files, and backups.
const privateMode fs.FileMode = 0o600

// createPrivate creates the database file with mode 0600 before SQLite
// opens it (SQLite would create it 0644 under the usual umask).
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, privateMode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return f.Close()
}

// restrictFiles makes the database's files private whatever the umask and
// whoever created them: SQLite creates the WAL and shared-memory files with
// 0666 masked by the umask.
func restrictFiles(path string) error {
	var errs []error
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil && st.Mode().Perm()&^privateMode != 0 {
			err = os.Chmod(p, privateMode)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("make %s private: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// needsCheck says whether Open checks the file: always when it is small
// enough, and after an unclean shutdown (a WAL with frames in it; Close
// leaves none).
func needsCheck(path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	if st.Size() <= QuickCheckMaxBytes {
		return true
	}
	wal, err := os.Stat(path + "-wal")
	return err == nil && wal.Size() > 0
}

// quickCheck runs PRAGMA quick_check on the writer connection and turns a
// damaged file into ErrCorrupt with what SQLite found and how to recover.
func quickCheck(ctx context.Context, db *sql.DB, path string) error {
	rows, err := db.QueryContext(ctx, `PRAGMA quick_check(5)`)
	if err != nil {
		return corruptError(path, err.Error())
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return corruptError(path, err.Error())
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return corruptError(path, err.Error())
	}
	if len(problems) > 0 {
		return corruptError(path, strings.Join(problems, "; "))
	}
	return nil
}

func corruptError(path, found string) error {
	return fmt.Errorf("%w: %s failed its integrity check (%s); cairn will not use it. "+
		"Restore a backup (%s.bak-v*), or salvage what is readable with `sqlite3 %s .recover | sqlite3 recovered.db` "+
		"and point storage.path at the result", ErrCorrupt, path, found, path, path)
}

// backgroundCheck is the start-up integrity check run after Open
// (Options.CheckInBackground).
type backgroundCheck struct {
	cancel context.CancelFunc // nil when none runs
	done   chan struct{}
}

// checkInBackground runs quick_check on the background reader; a damaged
// file is noted as a fault, which refuses writes from then on.
func (db *DB) checkInBackground() {
	ctx, cancel := context.WithCancel(context.Background())
	db.check = backgroundCheck{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(db.check.done)
		if err := quickCheck(ctx, db.side, db.path); err != nil && ctx.Err() == nil {
			db.NoteFault(err)
		}
	}()
}

// stop ends a check still running (Close) and waits for it.
func (c *backgroundCheck) stop() {
	if c.cancel == nil {
		return
	}
	c.cancel()
	<-c.done
}
