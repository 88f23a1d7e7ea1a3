package pipeline

import (
	"context"
	"errors"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/storage"
)

// UPDATE decisions supersede (docs/design/evolution.md, "Supersession").
// When the pipeline decides that a fact replaces a memory, the memory is
// not rewritten in place: the fact becomes a memory of its own (or the live
// memory already holding it), and the old memory is superseded by it
// through evolution.Tx.Supersede. The old memory leaves recall and
// injections, points to its successor, keeps its content and history, and
// comes back with recover. Both sides record it:
// the successor's "created" event names the proposal and the memory it
// supersedes, the old one's "superseded" event names the proposal and its
// successor. This is how controlled-write mode (with
// allow_update_delete) applies an UPDATE and how approving a shadow
// proposal applies one; both are guarded by the target's version at
// proposal time, and pinned targets are refused.

// applyUpdate applies UPDATE proposal p with actor. It returns the
// successor's id and whether the successor was created (not an existing
// live memory with the same content).
func (s *Pipeline) applyUpdate(ctx context.Context, p *storage.Proposal, model string, actor core.Actor, reason string) (string, bool, error) {
	if p.Action != extract.ActionUpdate || p.TargetMemoryID == "" {
		return "", false, core.Invalid("action", "only an update with a target supersedes")
	}
	src := s.proposalSource(ctx, p.SourceMemoryID)
	var successor string
	var created bool
	err := s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		successor, created = "", false
		target, err := storage.GetMemory(ctx, tx, p.TargetMemoryID)
		if errors.Is(err, storage.ErrNotFound) {
			return core.ErrNotFound
		} else if err != nil {
			return err
		}
		if target.Pinned {
			return &core.Error{Code: core.CodePinned, Message: "the proposal's target is pinned; the pipeline never changes pinned memories"}
		}
		if target.IsDeleted {
			return &core.Error{Code: core.CodeAlreadyDeleted, Message: "the proposal's target is already deleted"}
		}
		if p.TargetVersion > 0 && target.Version != p.TargetVersion {
			return &core.Error{Code: core.CodeVersionConflict, Message: "version conflict: the target changed since the proposal was made",
				Extra: map[string]any{"current_version": target.Version, "proposal_version": p.TargetVersion}}
		}
		if src.Project == "" && !isSessionSource(src.ID) {
			src.Project = target.Project
		}
		id, deduped, err := s.insertFact(ctx, tx, p, src, model, actor, target.ID)
		if err != nil {
			return err
		}
		if id == target.ID {
			return core.Invalid("fact", "the fact is the target's own content; nothing replaces it")
		}
		var ifv *int64
		if p.TargetVersion > 0 {
			v := p.TargetVersion
			ifv = &v
		}
		if err := s.svc.EvolutionTx(tx, actor).Supersede(ctx, evolution.SupersedeInput{Old: target.ID, Successor: id, IfVersion: ifv,
			Meta: map[string]any{"proposalId": p.ID, "reason": reason}}); err != nil {
			return err
		}
		successor, created = id, !deduped
		return nil
	})
	if err != nil {
		return "", false, err
	}
	s.svc.Publish(core.Event{Kind: core.EventDeleted, MemoryID: p.TargetMemoryID, Actor: actor.Name})
	if created {
		s.vec.EmbedSoon()
		s.svc.Publish(core.Event{Kind: core.EventCreated, MemoryID: successor, Actor: actor.Name})
	}
	return successor, created, nil
}
