package hooks

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/project"
	"github.com/cairnmem/cairn/storage"
)

// identityActor is who project identity's moves are recorded as.
var identityActor = core.Actor{Name: "project-identity", Type: core.ActorDaemon}

// Resolver returns a project resolver over the config's [projects.NAME]
// tables and the projects the store knows.
func (hk *Hooks) Resolver(ctx context.Context) (*project.Resolver, error) {
	known, err := storage.KnownProjects(ctx, hk.db.Reader())
	if err != nil {
		return nil, err
	}
	return project.NewResolver(hk.cfg.Projects, known), nil
}

// ResolveProject maps a project as a user or a request names it (a short
// name, an alias, a folder) to its identity, by strings only: the server
// never opens or stats a path a request names. Bad or ambiguous names are
// an invalid "project" field.
func (hk *Hooks) ResolveProject(ctx context.Context, name string) (string, error) {
	if strings.TrimSpace(name) == "" {
		return "", nil
	}
	r, err := hk.Resolver(ctx)
	if err != nil {
		return "", err
	}
	id, err := r.Resolve(name)
	if err != nil {
		return "", core.Invalid("project", "%s", err.Error())
	}
	return id, nil
}

// identify sets h.Project to its identity: normalized when the shim
// resolved it, else resolved; a confined caller's project is its token's
// and stays as it is.
func (hk *Hooks) identify(ctx context.Context, h *Request) error {
	if err := h.checkIdentifiers(); err != nil {
		return err
	}
	if h.Confined {
		return nil
	}
	if h.ProjectResolved {
		id, err := project.Normalize(h.Project)
		if err != nil {
			return core.Invalid("project", "%s", err.Error())
		}
		h.Project = id
	} else {
		id, err := hk.ResolveProject(ctx, h.Project)
		if err != nil {
			return err
		}
		h.Project = id
	}
	h.ProjectNames = hk.adoptNames(ctx, h.Project, h.ReadOnly)
	return nil
}

// Steps of the project identity migration (project_steps).
const (
	// projectStepRoots maps absolute project paths to their repository
	// roots: it stats the folders, so it runs once, at open, in the local
	// process (never for a request).
	projectStepRoots = "repository-roots"
)

// MigrateProjects gives every stored project one identity: an absolute
// path inside a repository becomes the repository's root (findRoot, once,
// recorded in project_steps), and a short name becomes the one known root
// with that display name or the root of a config name or alias (at every
// open: a name stored before its root was seen joins it when it is).
// Each changed memory gets a history event; a memory whose content its new
// project already holds is soft-deleted as a duplicate. It returns the
// number of projects remapped.
func (hk *Hooks) MigrateProjects(ctx context.Context, findRoot func(dir string) string) (int, error) {
	if hk.frozen() {
		return 0, nil
	}
	r := hk.db.Reader()
	known, err := storage.KnownProjects(ctx, r)
	if err != nil {
		return 0, err
	}
	done, err := storage.ProjectStepDone(ctx, r, projectStepRoots)
	if err != nil {
		return 0, err
	}
	remap := map[string]string{}
	if !done && findRoot != nil {
		for _, id := range known {
			n, err := project.Normalize(id)
			if err != nil || !project.IsPath(n) {
				continue
			}
			if root := findRoot(n); root != "" && root != id {
				remap[id] = root
			}
		}
	}
	// Names resolve against the roots as they will be after the step.
	var roots []string
	for _, id := range known {
		if to, ok := remap[id]; ok {
			roots = append(roots, to)
		} else if n, err := project.Normalize(id); err == nil && n != id {
			remap[id] = n // an unclean path ("/a/b/") joins its clean form
			roots = append(roots, n)
		} else {
			roots = append(roots, id)
		}
	}
	res := project.NewResolver(hk.cfg.Projects, roots)
	for _, id := range known {
		if _, ok := remap[id]; ok || project.IsPath(id) {
			continue
		}
		if to, err := res.Resolve(id); err == nil && to != id {
			remap[id] = to
		} else if err != nil {
			hk.log.Warn("project identity: name left as it is", "project", id, "err", err)
		}
	}
	froms := make([]string, 0, len(remap))
	for from := range remap {
		froms = append(froms, from)
	}
	slices.Sort(froms)
	err = hk.db.WriteTx(ctx, func(tx storage.Tx) error {
		now := hk.timestamp()
		for _, from := range froms {
			to := remap[from]
			if err := hk.mem.RemapProjectTx(ctx, tx, from, to, identityActor); err != nil {
				return fmt.Errorf("project %s → %s: %w", from, to, err)
			}
		}
		if !done && findRoot != nil {
			return storage.MarkProjectStep(ctx, tx, projectStepRoots, now)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if len(froms) > 0 {
		hk.log.Info("project identity: projects remapped", "projects", len(froms))
	}
	return len(froms), nil
}

// Short names stored before their repository was seen ("--project atlas"
// from a folder outside it) belong to the root a hook names once it
// resolves them: the display name of that root, or a config name or alias
// of it. Hooks adopt them at once, so the first session in a repository
// gets memories saved under its short name.

// namesOf returns the stored projects that are short names resolving to
// root (strings only, nothing on disk).
func (hk *Hooks) namesOf(ctx context.Context, root string) ([]string, error) {
	if root == "" || !project.IsPath(root) {
		return nil, nil
	}
	known, err := storage.KnownProjects(ctx, hk.db.Reader())
	if err != nil {
		return nil, err
	}
	var names []string
	roots := []string{root}
	for _, k := range known {
		if project.IsPath(k) {
			roots = append(roots, k)
		} else {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	res := project.NewResolver(hk.cfg.Projects, roots)
	var out []string
	for _, n := range names {
		if to, err := res.Resolve(n); err == nil && to == root {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// adoptNames moves the memories of the short names that resolve to root
// into root (history records each move; a duplicate of a memory root
// already holds is soft-deleted). It returns the names it could not move
// (a read-only store, frozen mutations): hooks then also match them.
func (hk *Hooks) adoptNames(ctx context.Context, root string, readOnly bool) []string {
	names, err := hk.namesOf(ctx, root)
	if err != nil || len(names) == 0 {
		return nil
	}
	if readOnly || hk.frozen() {
		return names
	}
	err = hk.db.WriteTx(ctx, func(tx storage.Tx) error {
		for _, from := range names {
			if err := hk.mem.RemapProjectTx(ctx, tx, from, root, identityActor); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		hk.log.Debug("project identity: names matched, not moved", "root", root, "names", names, "err", err)
		return names
	}
	return nil
}
