package core

import (
	"context"

	"github.com/cairnmem/cairn/storage"
)

// RemapProjectTx moves, in tx, every memory of project from into project
// to (project identity: a short name, or an unclean path, joins the root
// it resolves to; core/hooks decides which). Each moved memory gets an
// "updated" history event by actor; a memory whose content to already
// holds is soft-deleted as its duplicate ("deleted"). The project's
// sessions and transcripts move with it.
func (s *Service) RemapProjectTx(ctx context.Context, tx storage.Tx, from, to string, actor Actor) error {
	moves, err := storage.RemapProject(ctx, tx, from, to, s.Timestamp())
	if err != nil {
		return err
	}
	meta := map[string]any{"project_from": from, "project_to": to}
	for _, mv := range moves {
		event, reason := "updated", "project identity: "+from+" is "+to
		if mv.DuplicateOf != "" {
			event, reason = "deleted", "project identity: "+from+" is "+to+", which already holds this memory as "+mv.DuplicateOf
		}
		if err := s.AddHistory(ctx, tx, mv.ID, event, nil, nil, actor, reason, meta); err != nil {
			return err
		}
	}
	return nil
}
