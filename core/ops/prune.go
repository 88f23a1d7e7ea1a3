package ops

import (
	"context"
	"fmt"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/retention"
)

// pruneActor is who the per-project bound's deletions are recorded as.
var pruneActor = core.Actor{Name: "retention", Type: core.ActorDaemon}

// pruneOverfull keeps every project under retention.max_memories_per_project,
// the user scope under retention.max_memories_user and each agent's under
// retention.max_memories_per_agent: each over its bound forgets its least worth keeping memories (PruneCandidates),
// as soft deletes through the one write path with a history reason, in
// batches of the sweep's size.
func (s *Ops) pruneOverfull(ctx context.Context, rep *RetentionReport, batch, maxBatches int) error {
	cfg := s.svc.Config().Retention
	if cfg.MaxMemoriesPerProject <= 0 && cfg.MaxMemoriesUser <= 0 && cfg.MaxMemoriesPerAgent <= 0 {
		return nil
	}
	over, err := retention.OverfullSlots(ctx, s.svc.DB().Reader(), cfg.MaxMemoriesPerProject, cfg.MaxMemoriesUser, cfg.MaxMemoriesPerAgent)
	if err != nil {
		return fmt.Errorf("retention bound: %w", err)
	}
	cutoff := storage.FormatTime(s.svc.Now().Add(-cfg.PruneMinAge.D()))
	for slot, excess := range over {
		reason := fmt.Sprintf("retention: the project is over retention.max_memories_per_project (%d); the oldest unused memory goes first", cfg.MaxMemoriesPerProject)
		switch slot.Scope {
		case evolution.ScopeUser:
			reason = fmt.Sprintf("retention: the user scope is over retention.max_memories_user (%d); the oldest unused memory goes first", cfg.MaxMemoriesUser)
		case evolution.ScopeAgent:
			reason = fmt.Sprintf("retention: the agent %q is over retention.max_memories_per_agent (%d); the oldest unused memory goes first", slot.Who, cfg.MaxMemoriesPerAgent)
		}
		for b := 0; excess > 0 && b < maxBatches; b++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			ids, err := retention.PruneCandidates(ctx, s.svc.DB().Reader(), slot, cutoff, min(excess, batch))
			if err != nil {
				return fmt.Errorf("retention bound: %w", err)
			}
			if len(ids) == 0 {
				break // the rest is protected
			}
			var gone []string
			err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
				gone = gone[:0]
				for _, id := range ids {
					res, err := s.svc.ForgetTx(ctx, tx, core.ForgetInput{ID: id, Reason: reason}, pruneActor)
					if res == nil {
						return err
					}
					if res.Status == core.StatusDeleted {
						gone = append(gone, id)
					}
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("retention bound: %w", err)
			}
			s.vec.Drop(gone...)
			rep.Pruned += int64(len(gone))
			excess -= len(gone)
			if len(gone) == 0 {
				break
			}
		}
	}
	return nil
}

// countPrunable is what pruneOverfull would forget now.
func (s *Ops) countPrunable(ctx context.Context) (int64, error) {
	cfg := s.svc.Config().Retention
	if cfg.MaxMemoriesPerProject <= 0 && cfg.MaxMemoriesUser <= 0 && cfg.MaxMemoriesPerAgent <= 0 {
		return 0, nil
	}
	over, err := retention.OverfullSlots(ctx, s.svc.DB().Reader(), cfg.MaxMemoriesPerProject, cfg.MaxMemoriesUser, cfg.MaxMemoriesPerAgent)
	if err != nil {
		return 0, err
	}
	cutoff := storage.FormatTime(s.svc.Now().Add(-cfg.PruneMinAge.D()))
	var n int64
	for slot, excess := range over {
		ids, err := retention.PruneCandidates(ctx, s.svc.DB().Reader(), slot, cutoff, excess)
		if err != nil {
			return 0, err
		}
		n += int64(len(ids))
	}
	return n, nil
}
