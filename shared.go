package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
)

// A store on PostgreSQL (storage.url, --database): several servers share
// it, so there is no lock file and no file to find first; the engine
// checks the server's version and migrates under an advisory lock
// (docs/design/postgres.md). Its URL is shown with the password hidden,
// in errors and logs alike.

// openShared opens the PostgreSQL store storage.url names and builds the
// app on it. Its errors name the setting (--database when given) and what
// to do.
func (a *app) openShared(ctx context.Context) (*store, error) {
	field := "storage.url"
	if a.databaseFlag {
		field = "--database"
	}
	db, err := storage.Open(ctx, storage.Options{Path: a.cfg.Storage.URL, PasswordFile: a.cfg.Storage.PasswordFile})
	if err != nil {
		switch {
		case errors.Is(err, storage.ErrOldServer):
			return nil, fmt.Errorf("%s: %w: cairn needs PostgreSQL 15 or newer", field, err)
		case errors.Is(err, storage.ErrSchemaNewer), errors.Is(err, storage.ErrBadChecksum):
			return nil, fmt.Errorf("%s: this cairn cannot migrate the database (%w): run the cairn that last served it, or a newer one", field, err)
		case errors.Is(err, storage.ErrNoPassword):
			return nil, fmt.Errorf("storage.password_file: %w", err)
		}
		return nil, fmt.Errorf("%s: cannot open the PostgreSQL database: %w", field, err)
	}
	return a.serveStore(ctx, db)
}

// namedFlag renames, in a configuration error about key, the key as the
// flag that set it: the user typed --database, not storage.url.
func namedFlag(err error, key, flag string) error {
	var ce *config.ConfigError
	if errors.As(err, &ce) && ce.Key == key {
		c := *ce
		c.Key = flag
		return &c
	}
	return err
}

// database is what storage.Open opens: the URL, else the file.
func (a *app) database() string {
	if a.cfg.Storage.URL != "" {
		return a.cfg.Storage.URL
	}
	return a.paths.Database
}
