package evolution

import (
	"context"

	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/storage"
)

// An edit re-reads a memory's attributes (attributes.go), in the
// edit's write transaction:
//
//   - attributes the new content no longer states are removed (and all of
//     them when the memory moves to another slot: another project);
//   - what the new content states that the old did not is a new statement
//     and acts as one: it supersedes the other values of the same entity
//     and attribute in the slot and the siblings it clearly contradicts
//     (siblings.go), and retires a memory whose every fact is now
//     superseded, exactly as remembering it would;
//   - what both state stays as it was (an unchanged statement is not
//     stated again: it must not retire values stated after it);
//   - when the memory no longer states an attribute it superseded others
//     with (nor anything of that entity's aspect, for a sibling it
//     contradicted), the supersession has lost its reason and is undone: those
//     attributes are live again, and a memory it retired for them comes
//     back (a "recovered" history event says why), unless a live memory
//     already holds the same content. A correction ("staging runs
//     Postgres 16" was meant for prod) must not leave staging's real
//     value retired by a statement no one makes any more.
//
// With memory.supersede_attributes off, an edit only removes what is no
// longer stated.

// Edited re-reads the attributes of memory m, edited from old, in the
// edit's write transaction. It returns the memories the edit retired and
// those it brought back.
func (t Tx) Edited(ctx context.Context, m, old *storage.Memory) (retired, restored []string, err error) {
	slot := Slot(m.Project, m.Scope, m.Who)
	moved := slot != Slot(old.Project, old.Scope, old.Who)
	if m.Content == old.Content && !moved {
		return nil, nil, nil
	}
	now := entities.ReadAttributes(m.Content)
	var was entities.Reading
	if !moved {
		was = entities.ReadAttributes(old.Content)
	}
	rows, err := storage.MemoryAttributes(ctx, t.Tx, m.ID)
	if err != nil {
		return nil, nil, err
	}
	type fact struct{ entity, name, value string }
	held := map[fact]bool{}
	for _, r := range rows {
		if !moved && states(now, r) {
			held[fact{r.Entity, r.Name, r.Value}] = true
			continue
		}
		if err := storage.DeleteAttribute(ctx, t.Tx, r.ID); err != nil {
			return nil, nil, err
		}
	}
	if !t.SupersedeAttributes {
		return nil, nil, nil
	}
	// What m superseded before this edit (what it supersedes now is
	// judged after the new statements are written).
	others, err := storage.AttributesSupersededBy(ctx, t.Tx, m.ID)
	if err != nil {
		return nil, nil, err
	}

	// What the new content states afresh.
	w := t.statements(ctx, m, slot, func(a entities.Attribute) bool {
		k := fact{a.Entity, a.Name, a.Value}
		seen := held[k]
		held[k] = true
		return seen
	})
	var fresh []entities.Attribute // stated afresh by the edit
	for _, a := range now.Attributes {
		if hasAttribute(was, a) {
			if err := w.write(a); err != nil { // held already, or read before attributes were kept
				return nil, nil, err
			}
			continue
		}
		fresh = append(fresh, a)
		if err := w.attribute(a); err != nil {
			return nil, nil, err
		}
	}
	for _, c := range now.Changes {
		if hasChange(was, c) {
			continue
		}
		if err := w.change(c); err != nil {
			return nil, nil, err
		}
	}
	// Siblings of another name a fresh statement contradicts, as for a
	// remembered memory.
	if err := w.siblings(fresh); err != nil {
		return nil, nil, err
	}
	if retired, err = w.retireEmptied(map[string]any{"edited": true}); err != nil {
		return nil, nil, err
	}

	// What m superseded for an attribute it no longer states (in that
	// slot) comes back.
	names := map[[2]string]bool{}
	for k := range held {
		names[[2]string{k.entity, k.name}] = true
	}
	aspects := map[[2]string]bool{} // entity and aspect m still states something of
	for _, a := range now.Attributes {
		aspects[[2]string{a.Entity, a.Aspect}] = true
	}
	revived := map[string]*storage.AttributeRow{}
	var order []string
	for _, o := range others {
		if !moved && (names[[2]string{o.Entity, o.Name}] || aspects[[2]string{o.Entity, o.Aspect}] || retracts(now, o)) {
			continue // it still states the attribute or a sibling of it (or still retracts the value)
		}
		if err := storage.ReviveAttribute(ctx, t.Tx, o.ID); err != nil {
			return nil, nil, err
		}
		if revived[o.MemoryID] == nil {
			revived[o.MemoryID] = o
			order = append(order, o.MemoryID)
		}
	}
	for _, id := range order {
		ok, err := t.unretire(ctx, id, m.ID, revived[id])
		if err != nil {
			return nil, nil, err
		}
		if ok {
			restored = append(restored, id)
		}
	}
	return retired, restored, nil
}

// states reports whether reading r still states attribute row a.
func states(r entities.Reading, a *storage.AttributeRow) bool {
	for _, x := range r.Attributes {
		if x.Entity == a.Entity && x.Name == a.Name && x.Value == a.Value {
			return true
		}
	}
	for _, c := range r.Changes {
		if c.To == a.Value && (c.Entity == "" || c.Entity == a.Entity) {
			return true
		}
	}
	return false
}

// retracts reports whether reading r states a change away from
// attribute row a's value ("we reversed the gorm decision").
func retracts(r entities.Reading, a *storage.AttributeRow) bool {
	for _, c := range r.Changes {
		if c.From == a.Value && (c.Entity == "" || c.Entity == a.Entity) {
			return true
		}
	}
	return false
}

func hasAttribute(r entities.Reading, a entities.Attribute) bool {
	for _, x := range r.Attributes {
		if x.Entity == a.Entity && x.Name == a.Name && x.Value == a.Value {
			return true
		}
	}
	return false
}

func hasChange(r entities.Reading, c entities.Change) bool {
	for _, x := range r.Changes {
		if x == c {
			return true
		}
	}
	return false
}

// unretire brings back memory id, which successor retired for attribute
// a that successor no longer states, through the write path's recover
// (Restore): unless a live memory holds its content or idempotency key
// (then it stays retired, its successor link kept). It reports whether it
// came back.
func (t Tx) unretire(ctx context.Context, id, successor string, a *storage.AttributeRow) (bool, error) {
	o, err := storage.GetMemory(ctx, t.Tx, id)
	if err != nil {
		return false, err
	}
	evo, err := storage.MemoryEvolution(ctx, t.Tx, id)
	if err != nil {
		return false, err
	}
	if !o.IsDeleted || evo.SupersededBy != successor {
		return false, nil // live (it held another fact), or retired by another memory
	}
	if n, err := storage.CountLiveAttributes(ctx, t.Tx, id); err != nil || n == 0 {
		return false, err
	}
	reason := "its successor " + successor + " no longer states " + a.Entity + " " + a.Name
	return t.Restore(ctx, id, reason, map[string]any{"successor": successor, "entity": a.Entity, "attribute": a.Name, "value": a.Value})
}
