package core

import (
	"context"

	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/storage"
)

// Attributes the linker can read, and the supersession they drive (seeds
// 003 and 004). When a memory is remembered, entities.ReadAttributes reads
// the subject/attribute/value statements it holds ("staging runs Postgres
// 14") inside the write transaction, with no network or model call, and
// they are written to entity_attributes under their entity and aspect. A
// new value of the same entity and attribute in the same slot (project or
// scope) supersedes the old attribute; an old memory whose every
// attribute is now superseded is superseded itself, exactly as a keyed
// fact is (soft-deleted, superseded_by set, a "superseded" history event,
// recoverable at any time). A memory that still holds another live fact
// stays live: only the attribute is marked, since retiring the memory
// would hide a fact no one replaced. Pinned memories are never retired by
// a reading. Statements of change ("we moved builds from CircleCI to
// GitHub Actions", "we reversed the gorm decision and use sqlc") retire
// the live attribute holding the old value and give its entity the new
// one.

// attributeSlot is where a memory's attributes compete: its project, or
// its user or agent scope.
func attributeSlot(project, scope, who string) string {
	switch scope {
	case ScopeUser:
		return "scope:user"
	case ScopeAgent:
		return "scope:agent:" + who
	}
	return "project:" + project
}

// readAttributes reads m's attributes, writes them and supersedes what
// they replace, in tx. It returns the memories it retired.
func (s *Service) readAttributes(ctx context.Context, tx *storage.Tx, m *storage.Memory, slot string, actor Actor) ([]string, error) {
	r := entities.ReadAttributes(m.Content)
	if r.Empty() {
		return nil, nil
	}
	now := s.Timestamp()
	type key struct{ entity, name string }
	written := map[key]bool{}
	write := func(a entities.Attribute) error {
		k := key{a.Entity, a.Name}
		if written[k] {
			return nil
		}
		written[k] = true
		aspect, err := storage.UpsertAspect(ctx, tx, NewID(), a.Entity, a.Aspect, now)
		if err != nil {
			return err
		}
		return storage.InsertAttribute(ctx, tx, &storage.AttributeRow{ID: NewID(), MemoryID: m.ID, Slot: slot, Entity: a.Entity,
			Name: a.Name, Value: a.Value, Kind: a.Kind, CreatedAt: now}, aspect)
	}
	var touched []string
	why := map[string]*storage.AttributeRow{}
	supersede := func(old *storage.AttributeRow) error {
		if err := storage.SupersedeAttribute(ctx, tx, old.ID, m.ID); err != nil {
			return err
		}
		if why[old.MemoryID] == nil {
			why[old.MemoryID] = old
			touched = append(touched, old.MemoryID)
		}
		return nil
	}
	for _, a := range r.Attributes {
		live, err := storage.LiveAttributesOf(ctx, tx, slot, a.Entity, a.Name, m.ID)
		if err != nil {
			return nil, err
		}
		for _, l := range live {
			if l.Value != a.Value {
				if err := supersede(l); err != nil {
					return nil, err
				}
			}
		}
		if err := write(a); err != nil {
			return nil, err
		}
	}
	for _, c := range r.Changes {
		live, err := storage.LiveAttributesValued(ctx, tx, slot, c.Entity, c.From, m.ID)
		if err != nil {
			return nil, err
		}
		if len(live) == 0 && c.Entity != "" && c.To != "" {
			if err := write(entities.Attribute{Entity: c.Entity, Aspect: entities.AspectDecisions, Name: "choice", Value: c.To, Kind: c.Kind}); err != nil {
				return nil, err
			}
		}
		for _, l := range live {
			if err := supersede(l); err != nil {
				return nil, err
			}
			if c.To == "" {
				continue
			}
			kind := l.Kind
			if c.Kind == entities.KindConstraint {
				kind = c.Kind
			}
			if err := write(entities.Attribute{Entity: l.Entity, Aspect: l.Aspect, Name: l.Name, Value: c.To, Kind: kind}); err != nil {
				return nil, err
			}
		}
	}
	// Siblings of another name the new statement contradicts (siblings.go).
	clear, err := s.siblingContradictions(ctx, tx, m, slot, r.Attributes)
	if err != nil {
		return nil, err
	}
	for _, l := range clear {
		if err := supersede(l); err != nil {
			return nil, err
		}
	}
	var retired []string
	for _, id := range touched {
		n, err := storage.CountLiveAttributes(ctx, tx, id)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			continue // it still holds a live fact
		}
		a := why[id]
		ok, err := s.retire(ctx, tx, id, m.ID, false, actor, map[string]any{"successor": m.ID,
			"entity": a.Entity, "attribute": a.Name, "old_value": a.Value})
		if err != nil {
			return nil, err
		}
		if ok {
			retired = append(retired, id)
		}
	}
	return retired, nil
}

// MemoryAttributes are the attributes read from memory id, live and
// superseded, with their entity and aspect.
func (s *Service) MemoryAttributes(ctx context.Context, id string) ([]*storage.AttributeRow, error) {
	return storage.MemoryAttributes(ctx, s.db.Reader(), id)
}
