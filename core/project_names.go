package core

import (
	"context"
	"slices"

	"github.com/cairnmem/cairn/core/project"
	"github.com/cairnmem/cairn/storage"
)

// Short names stored before their repository was seen ("--project atlas"
// from a folder outside it) belong to the root a hook names once it
// resolves them: the display name of that root, or a config name or alias
// of it. Hooks adopt them at once, so the first session in a repository
// gets memories saved under its short name.

// identityActor is who project identity's moves are recorded as.
var identityActor = Actor{Name: "project-identity", Type: ActorDaemon}

// namesOf returns the stored projects that are short names resolving to
// root (strings only, nothing on disk).
func (s *Hooks) namesOf(ctx context.Context, root string) ([]string, error) {
	if root == "" || !project.IsPath(root) {
		return nil, nil
	}
	known, err := storage.KnownProjects(ctx, s.svc.db.Reader())
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
	res := project.NewResolver(s.svc.cfg.Projects, roots)
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
func (s *Hooks) adoptNames(ctx context.Context, root string) []string {
	names, err := s.namesOf(ctx, root)
	if err != nil || len(names) == 0 {
		return nil
	}
	if s.svc.MutationsFrozen() {
		return names
	}
	err = s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
		for _, from := range names {
			if err := s.svc.RemapProjectTx(ctx, tx, from, root, identityActor); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.svc.log.Debug("project identity: names matched, not moved", "root", root, "names", names, "err", err)
		return names
	}
	return nil
}
