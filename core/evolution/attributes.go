package evolution

import (
	"context"

	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/storage"
)

// Attributes the linker can read, and the supersession they drive
// (docs/design/evolution.md, "Attributes" and "Supersession"). When a
// memory is remembered, entities.ReadAttributes reads
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

// Slot is where a memory's attributes compete: "project:<p>",
// "scope:user" or "scope:agent:<who>".
func Slot(project, scope, who string) string {
	switch scope {
	case ScopeUser:
		return "scope:user"
	case ScopeAgent:
		return "scope:agent:" + who
	}
	return "project:" + project
}

// readAttributes reads m's attributes, writes them and supersedes what
// they replace. It returns the memories it retired.
func (t Tx) readAttributes(ctx context.Context, m *storage.Memory, slot string) ([]string, error) {
	r := entities.ReadAttributes(m.Content)
	if r.Empty() {
		return nil, nil
	}
	type key struct{ entity, name string }
	written := map[key]bool{}
	w := t.statements(ctx, m, slot, func(a entities.Attribute) bool {
		k := key{a.Entity, a.Name}
		seen := written[k]
		written[k] = true
		return seen
	})
	for _, a := range r.Attributes {
		if err := w.attribute(a); err != nil {
			return nil, err
		}
	}
	for _, c := range r.Changes {
		if err := w.change(c); err != nil {
			return nil, err
		}
	}
	if err := w.siblings(r.Attributes); err != nil {
		return nil, err
	}
	return w.retireEmptied(nil)
}

// statementWriter writes what one memory states and supersedes what that
// replaces, in one transaction: a remembered memory's statements
// (readAttributes) and an edit's fresh ones (rereadAttributes) take this
// one path.
type statementWriter struct {
	t     Tx
	ctx   context.Context
	m     *storage.Memory
	slot  string
	stamp string
	// seen reports whether an attribute like a was written already, and
	// marks it written.
	seen func(a entities.Attribute) bool
	// The memories whose attributes were superseded, in order, each with
	// the first of them (the history event's reason).
	touched []string
	why     map[string]*storage.AttributeRow
}

func (t Tx) statements(ctx context.Context, m *storage.Memory, slot string, seen func(entities.Attribute) bool) *statementWriter {
	return &statementWriter{t: t, ctx: ctx, m: m, slot: slot, stamp: t.Stamp, seen: seen, why: map[string]*storage.AttributeRow{}}
}

// write records attribute a of the memory under its entity's aspect.
func (w *statementWriter) write(a entities.Attribute) error {
	if w.seen(a) {
		return nil
	}
	aspect, err := storage.UpsertAspect(w.ctx, w.t.Tx, newID(), a.Entity, a.Aspect, w.stamp)
	if err != nil {
		return err
	}
	return storage.InsertAttribute(w.ctx, w.t.Tx, &storage.AttributeRow{ID: newID(), MemoryID: w.m.ID, Slot: w.slot, Entity: a.Entity,
		Name: a.Name, Value: a.Value, Kind: a.Kind, CreatedAt: w.stamp}, aspect)
}

// supersede marks attribute o superseded by the memory.
func (w *statementWriter) supersede(o *storage.AttributeRow) error {
	if err := storage.SupersedeAttribute(w.ctx, w.t.Tx, o.ID, w.m.ID); err != nil {
		return err
	}
	if w.why[o.MemoryID] == nil {
		w.why[o.MemoryID] = o
		w.touched = append(w.touched, o.MemoryID)
	}
	return nil
}

// attribute states a: the other values of its entity and name in the
// slot are superseded.
func (w *statementWriter) attribute(a entities.Attribute) error {
	live, err := storage.LiveAttributesOf(w.ctx, w.t.Tx, w.slot, a.Entity, a.Name, w.m.ID)
	if err != nil {
		return err
	}
	for _, l := range live {
		if l.Value != a.Value {
			if err := w.supersede(l); err != nil {
				return err
			}
		}
	}
	return w.write(a)
}

// change states a move from one value to another: the live attributes
// holding the old value are superseded and their entity gets the new one
// (a decision's choice when none held it).
func (w *statementWriter) change(c entities.Change) error {
	live, err := storage.LiveAttributesValued(w.ctx, w.t.Tx, w.slot, c.Entity, c.From, w.m.ID)
	if err != nil {
		return err
	}
	if len(live) == 0 && c.Entity != "" && c.To != "" {
		if err := w.write(entities.Attribute{Entity: c.Entity, Aspect: entities.AspectDecisions, Name: "choice", Value: c.To, Kind: c.Kind}); err != nil {
			return err
		}
	}
	for _, l := range live {
		if err := w.supersede(l); err != nil {
			return err
		}
		if c.To == "" {
			continue
		}
		kind := l.Kind
		if c.Kind == entities.KindConstraint {
			kind = c.Kind
		}
		if err := w.write(entities.Attribute{Entity: l.Entity, Aspect: l.Aspect, Name: l.Name, Value: c.To, Kind: kind}); err != nil {
			return err
		}
	}
	return nil
}

// siblings supersedes the siblings of another name that the statements
// attrs clearly contradict (siblings.go).
func (w *statementWriter) siblings(attrs []entities.Attribute) error {
	clear, err := w.t.siblingContradictions(w.ctx, w.m, w.slot, attrs)
	if err != nil {
		return err
	}
	for _, l := range clear {
		if err := w.supersede(l); err != nil {
			return err
		}
	}
	return nil
}

// retireEmptied retires each memory whose attributes were superseded and
// that holds no live fact any more; extra goes into its history event.
func (w *statementWriter) retireEmptied(extra map[string]any) ([]string, error) {
	var retired []string
	for _, id := range w.touched {
		n, err := storage.CountLiveAttributes(w.ctx, w.t.Tx, id)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			continue // it still holds a live fact
		}
		a := w.why[id]
		meta := map[string]any{"successor": w.m.ID, "entity": a.Entity, "attribute": a.Name, "old_value": a.Value}
		for k, v := range extra {
			meta[k] = v
		}
		ok, err := w.t.retire(w.ctx, id, w.m.ID, false, meta)
		if err != nil {
			return nil, err
		}
		if ok {
			retired = append(retired, id)
		}
	}
	return retired, nil
}
