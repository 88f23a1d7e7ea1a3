package main

import (
	"context"
	"errors"
	"os"

	"github.com/cairnmem/cairn/core/hooks"
	"github.com/cairnmem/cairn/core/project"
	"github.com/cairnmem/cairn/storage"
)

// Project identity on the user's side (core/project): this process runs
// in the user's folder, as the user, so it may look at the file system;
// the server only ever resolves strings.

// migrateProjects gives the store's projects one identity when this
// process opens it (core/hooks: Hooks.MigrateProjects): a stored folder inside a
// repository becomes the repository's root, a short name the root named
// so. A failure is logged; the store still opens.
func (a *app) migrateProjects(ctx context.Context, hk *hooks.Hooks) {
	if n, err := hk.MigrateProjects(ctx, project.FindRoot); err != nil {
		a.log.Warn("project identity migration", "err", err)
	} else if n > 0 {
		a.log.Info("project identity migration", "projects", n)
	}
}

// localProject is the project a local command means: given empty, the
// current one (the repository of the working directory); a folder, its
// project; a name or an alias, the project it resolves to against the
// config and the projects the store knows (an ambiguous name is an error
// naming the candidates).
func (a *app) localProject(ctx context.Context, given string) (string, error) {
	n, err := project.Normalize(given)
	switch {
	case err != nil:
		return "", err
	case n == "":
		return project.Current(a.cfg)
	case project.IsPath(n):
		return project.ForDir(a.cfg.Projects, n), nil
	}
	return project.NewResolver(a.cfg.Projects, a.knownProjects(ctx)).Resolve(n)
}

// knownProjects reads the projects the store knows, read-only and without
// the lock (nil when there is no store yet).
func (a *app) knownProjects(ctx context.Context) []string {
	db, err := storage.OpenReadOnly(ctx, storage.Options{Path: a.database(), PasswordFile: a.cfg.Storage.PasswordFile, BusyTimeout: a.cfg.Storage.BusyTimeout.D()})
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			a.log.Warn("known projects", "err", err)
		}
		return nil
	}
	defer db.Close()
	known, err := storage.KnownProjects(ctx, db.Reader())
	if err != nil {
		a.log.Warn("known projects", "err", err)
	}
	return known
}
