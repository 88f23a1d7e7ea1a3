package evolution

import (
	"context"

	"github.com/cairnmem/cairn/storage"
)

// Supersession by a decision (docs/design/evolution.md, "Supersession"):
// when the pipeline decides that a new fact replaces an old memory (an
// UPDATE, applied in controlled-write mode or approved from review), or a
// contradiction detector finds that a new attribute contradicts a
// sibling's, the old memory is never overwritten. Its successor is a memory
// of its own holding the new content, and the old one is retired through
// the same path as a keyed fact's old value (retire in evolve.go):
// soft-deleted with superseded_by set, a "superseded" history event, out of
// recall and injections, kept by retention, and restorable with recover.

// EventSupersedes is the successor's side of a supersession by a
// decision: the history event naming the memory it replaced.
const EventSupersedes = "supersedes"

// SupersedeInput names a memory to retire and the memory that replaces it.
type SupersedeInput struct {
	Old       string
	Successor string
	// IfVersion guards Old: a memory changed since the decision was made
	// is not retired (version_conflict).
	IfVersion *int64
	// Meta is recorded on the "superseded" event (with the successor).
	Meta map[string]any
}

// Supersede retires in.Old in favour of in.Successor. The
// successor takes the old memory's key when it has none (it holds the
// same fact's new value). A pinned, deleted or
// changed old memory is refused with its error code (pinned,
// already_deleted, version_conflict); a memory never supersedes itself.
func (t Tx) Supersede(ctx context.Context, in SupersedeInput) error {
	if in.Old == in.Successor {
		return invalid("target", "a memory cannot supersede itself")
	}
	if err := t.inherit(ctx, in.Old, in.Successor); err != nil {
		return err
	}
	meta := map[string]any{"successor": in.Successor}
	for k, v := range in.Meta {
		meta[k] = v
	}
	// A refusal comes with its error, which carries its code.
	if _, err := t.Forget(ctx, in.Old, "superseded by "+in.Successor, in.IfVersion, false); err != nil {
		return err
	}
	if err := storage.SetSupersededBy(ctx, t.Tx, in.Old, in.Successor); err != nil {
		return err
	}
	if err := t.Record(ctx, in.Old, EventSuperseded, "superseded by "+in.Successor, meta); err != nil {
		return err
	}
	smeta := map[string]any{"supersedes": in.Old}
	for k, v := range in.Meta {
		smeta[k] = v
	}
	return t.Record(ctx, in.Successor, EventSupersedes, "supersedes "+in.Old, smeta)
}

// inherit gives successor old's key when it has none of its own.
func (t Tx) inherit(ctx context.Context, old, successor string) error {
	oe, err := storage.MemoryEvolution(ctx, t.Tx, old)
	if err != nil {
		return err
	}
	ne, err := storage.MemoryEvolution(ctx, t.Tx, successor)
	if err != nil {
		return err
	}
	if oe.Key != "" && ne.Key == "" {
		return storage.SetMemoryKey(ctx, t.Tx, successor, oe.Key)
	}
	return nil
}
