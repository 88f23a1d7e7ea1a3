package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
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

// writeFresh writes img as the new private file path; false when path
// appeared meanwhile (the caller opens it as it finds it).
func writeFresh(path string, img []byte) (bool, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, privateMode)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("create %s: %w", path, err)
	}
	if _, err = f.Write(img); err == nil {
		err = f.Sync() // never a torn copy where a new store was
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return false, fmt.Errorf("create %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return false, fmt.Errorf("create %s: %w", path, err)
	}
	return true, nil
}
