package core

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// The inline entity linker's side of the write path (docs/design/graph.md,
// "Inline linker"; docs/design/evolution.md, "Decisions and
// constraints"). Everything here runs
// inside the caller's write transaction and does no network or model
// call: entities.Link reads the text, and the entities, their mention
// counts and the memory's links are written with the memory itself, so
// they are queryable the moment the write commits, whether or not the
// extraction pipeline runs. The pipeline refines them later (same
// canonical names, same tables; core/pipeline/graph.go).

// linkEntities records the entities m's content names and links them to m,
// in tx. A tentative mention (a capitalised word that only opens a
// sentence) links only to an entity the store already knows. Tombstones
// and a disabled graph link nothing.
func (s *Service) linkEntities(ctx context.Context, tx storage.Tx, m *storage.Memory) error {
	if !s.cfg.Graph.Enabled || m.IsDeleted || m.ID == "" {
		return nil
	}
	ms := entities.Link(m.Content)
	if len(ms) == 0 {
		return nil
	}
	now := s.Timestamp()
	for _, e := range ms {
		var id string
		var err error
		switch {
		case e.Tentative:
			id, err = storage.EntityID(ctx, tx, e.Canonical)
			if errors.Is(err, storage.ErrNotFound) {
				continue
			}
		default:
			id, err = storage.UpsertEntity(ctx, tx, NewID(), e.Name, e.Canonical, e.Type, now)
		}
		if err != nil {
			return fmt.Errorf("link entity %q: %w", e.Canonical, err)
		}
		if _, err := storage.LinkMention(ctx, tx, m.ID, id, e.Text(), GraphMentionConf); err != nil {
			return fmt.Errorf("link entity %q: %w", e.Canonical, err)
		}
	}
	return nil
}

// relinkEntities replaces m's entity links after its content changed (or
// it came back from the tombstones): the old links go, each entity
// counting one mention less (and disappearing with its relations when no
// memory names it any more), and the new content is linked.
func (s *Service) relinkEntities(ctx context.Context, tx storage.Tx, m *storage.Memory) error {
	if _, err := storage.UnlinkMemory(ctx, tx, m.ID); err != nil {
		return fmt.Errorf("unlink entities: %w", err)
	}
	return s.linkEntities(ctx, tx, m)
}

// protectDecision is decision auto-protection at remember time
// (docs/design/evolution.md, "Decisions and constraints"): content in
// decision language (entities.IsDecision) is typed
// "decision" unless the caller chose a type or type inference finds a more
// specific one than "fact" ("prefers X over Y" stays a preference), and
// its importance, unless the caller set one, is at least
// entities.DecisionImportance (0.85). A long memory split into chunks is
// judged as a whole: its chunks share its type and importance as they
// share its tags.
func protectDecision(m *storage.Memory, body string, in RememberInput) {
	if !entities.IsDecision(body) {
		return
	}
	if strings.TrimSpace(in.Type) == "" {
		if t := text.InferType(body); t == "fact" || t == "decision" {
			m.Type = "decision"
		}
	}
	if in.Importance == nil {
		m.Importance = max(m.Importance, entities.DecisionImportance)
	}
}
