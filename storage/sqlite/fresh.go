package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// A process that creates many new databases (a test binary opens hundreds
// of throwaway stores; running the migrations was more than half of their
// CPU) copies the first one it migrated instead of migrating each again:
// from its second new database on, Open writes the bytes of a database
// this process migrated with the same embedded migrations, which is the
// file migrating would have produced. A process that creates one
// database (a user's) migrates it as before and builds no image.

var fresh struct {
	sync.Mutex
	opens int
	built bool
	image []byte // a closed, migrated, empty database; nil when it failed
}

// freshImage returns the bytes of a new migrated database, or nil when
// this is the process's first new database or the image could not be
// built (the caller then migrates as usual).
func freshImage(ctx context.Context) []byte {
	fresh.Lock()
	defer fresh.Unlock()
	fresh.opens++
	if fresh.opens < 2 || fresh.built {
		return fresh.image
	}
	fresh.built = true
	img, err := buildFreshImage(ctx)
	if err == nil {
		fresh.image = img
	}
	return fresh.image
}

func buildFreshImage(ctx context.Context) ([]byte, error) {
	ms, err := Migrations()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "cairn-fresh-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "fresh.db")
	// Migrations given: Open migrates and does not come back here.
	db, err := Open(ctx, Options{Path: path, NoBackup: true, Migrations: ms})
	if err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	// Close checkpoints and truncates the WAL: the file holds everything.
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		return nil, fmt.Errorf("fresh image: the WAL kept %d bytes", st.Size())
	}
	img, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(img, []byte("SQLite format 3\x00")) {
		return nil, errors.New("fresh image: not a database file")
	}
	return img, nil
}

// writeFresh writes img as the new private file path, when it can: the
// bytes go to a temporary file first, linked to path only when whole, so
// a crash leaves no file, or an empty one (which opens as a new database
// and is migrated), never a torn copy; no fsync, as SQLite does not sync
// a new database's first commits either (synchronous=normal). A link
// fails when path exists (another process created it) or on a file
// system without links: the caller then opens path as it finds it.
func writeFresh(path string, img []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".new-*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(privateMode); err != nil {
		f.Close()
		return fmt.Errorf("create %s: %w", path, err)
	}
	if _, err = f.Write(img); err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	_ = os.Link(tmp, path)
	return nil
}
