package evolution

import (
	"context"
	"errors"

	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/storage"
)

// Structural classification with a model (docs/design/pipeline.md,
// "Structural classification"). The pipeline's structural_classify job asks
// the model, once per entity, which aspect of the entity each of its
// memories is about and whether it is an attribute or a constraint
// (core/pipeline/classify_job.go). Its answer lands
// here, in one write transaction with no model call: the aspects are
// upserted into entity_aspects, the attributes the linker read are filed
// under them with their kind, and a memory the linker read nothing from
// gets the attribute the model named. A constraint stays a constraint
// (decision auto-protection: the linker's reading of a decision is never
// demoted). Without a provider the linker's heuristic classification
// (entities.ReadAttributes) stands alone.

// Classification files one memory under an entity's aspect.
type Classification struct {
	MemoryID string
	Aspect   string // canonical aspect name
	Kind     string // entities.KindAttribute or entities.KindConstraint
	// Name and Value are the attribute the model read; they are written
	// only for a memory the linker read no attribute of the entity from.
	Name, Value string
}

// ApplyClassification writes cs for entity in slot and returns how many
// memories it filed. Deleted or missing memories are skipped.
func (t Tx) ApplyClassification(ctx context.Context, slot, entity string, cs []Classification) (int, error) {
	now := t.Stamp
	n := 0
	for _, c := range cs {
		if c.Aspect == "" || entity == "" {
			continue
		}
		m, err := storage.GetMemory(ctx, t.Tx, c.MemoryID)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		} else if err != nil {
			return n, err
		}
		if m.IsDeleted {
			continue
		}
		kind := entities.KindAttribute
		if c.Kind == entities.KindConstraint {
			kind = entities.KindConstraint
		}
		rows, err := storage.MemoryEntityAttributes(ctx, t.Tx, c.MemoryID, entity)
		if err != nil {
			return n, err
		}
		if len(rows) == 0 && (c.Name == "" || c.Value == "") {
			continue
		}
		aspect, err := storage.UpsertAspect(ctx, t.Tx, newID(), entity, c.Aspect, now)
		if err != nil {
			return n, err
		}
		if len(rows) == 0 {
			if err := storage.InsertAttribute(ctx, t.Tx, &storage.AttributeRow{ID: newID(), MemoryID: c.MemoryID, Slot: slot,
				Entity: entity, Name: c.Name, Value: c.Value, Kind: kind, CreatedAt: now}, aspect); err != nil {
				return n, err
			}
			n++
			continue
		}
		for _, r := range rows {
			k := kind
			if r.Kind == entities.KindConstraint {
				k = entities.KindConstraint
			}
			if err := storage.SetAttributeClass(ctx, t.Tx, r.ID, aspect, k); err != nil {
				return n, err
			}
		}
		n++
	}
	return n, nil
}

// SupersedeSibling marks old's live attributes of entity's aspect in
// slot superseded by memory successor, and retires old when it holds no
// live attribute any more (never a pinned memory), as a replaced value
// is. It reports whether old was retired.
func (t Tx) SupersedeSibling(ctx context.Context, slot, old, successor, entity, aspect string, meta map[string]any) (bool, error) {
	if old == successor {
		return false, nil
	}
	for _, id := range []string{old, successor} {
		m, err := storage.GetMemory(ctx, t.Tx, id)
		if errors.Is(err, storage.ErrNotFound) {
			return false, nil
		} else if err != nil {
			return false, err
		}
		if m.IsDeleted {
			return false, nil
		}
	}
	sibs, err := storage.LiveSiblings(ctx, t.Tx, slot, entity, aspect, successor, 1000)
	if err != nil {
		return false, err
	}
	for _, r := range sibs {
		if r.MemoryID != old {
			continue
		}
		if err := storage.SupersedeAttribute(ctx, t.Tx, r.ID, successor); err != nil {
			return false, err
		}
	}
	if left, err := storage.CountLiveAttributes(ctx, t.Tx, old); err != nil || left > 0 {
		return false, err
	}
	full := map[string]any{"successor": successor, "entity": entity, "aspect": aspect}
	for k, v := range meta {
		full[k] = v
	}
	return t.retire(ctx, old, successor, false, full)
}

// ProposeSiblingReview records a pending UPDATE proposal from memory
// source to the sibling's memory, for review (see siblings.go).
func (t Tx) ProposeSiblingReview(ctx context.Context, source string, sib *storage.SiblingRow, why string) error {
	m, err := storage.GetMemory(ctx, t.Tx, source)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	if m.IsDeleted {
		return nil
	}
	return t.proposeSiblingReview(ctx, m, sib, why)
}
