package ops

import (
	"context"
	"fmt"
	"time"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/retention"
)

// RetentionReport counts what one retention sweep removed, per step.
type RetentionReport struct {
	// Step 0: memories forgotten to keep a project under
	// retention.max_memories_per_project.
	Pruned int64 `json:"pruned"`
	// Step 1: graph links of purged tombstones.
	GraphMemories  int64 `json:"graphMemories"`
	GraphLinks     int64 `json:"graphLinks"`
	GraphEntities  int64 `json:"graphEntities"`
	GraphRelations int64 `json:"graphRelations"`
	// Step 2: vectors of purged tombstones (and of memories already gone).
	Embeddings int64 `json:"embeddings"`
	// Step 3: tombstones hard-deleted, with their full-text entries.
	Tombstones int64 `json:"tombstones"`
	// Steps 4 to 6.
	History       int64 `json:"history"`
	CompletedJobs int64 `json:"completedJobs"`
	DeadJobs      int64 `json:"deadJobs"`
	// Capped is true when a step stopped at retention.max_batches with
	// rows left for the next sweep.
	Capped     bool  `json:"capped"`
	DurationMs int64 `json:"durationMs"`
}

// Total is every row removed by the sweep.
func (r *RetentionReport) Total() int64 {
	return r.Pruned + r.GraphLinks + r.GraphEntities + r.GraphRelations + r.Embeddings + r.Tombstones +
		r.History + r.CompletedJobs + r.DeadJobs
}

func (r *RetentionReport) String() string {
	return fmt.Sprintf("graph links %d (entities %d, relations %d), embeddings %d, tombstones %d, history %d, completed jobs %d, dead jobs %d",
		r.GraphLinks, r.GraphEntities, r.GraphRelations, r.Embeddings, r.Tombstones, r.History, r.CompletedJobs, r.DeadJobs)
}

// RetentionSweep runs one retention sweep (see retentionSweep). It shares
// the retention-sweep repair's single flight: while either runs, the other
// gets 409 repair_in_progress.
func (s *Ops) RetentionSweep(ctx context.Context) (*RetentionReport, error) {
	release, err := s.repair.acquire(RepairRetentionSweep)
	if err != nil {
		return nil, err
	}
	defer release()
	return s.retentionSweep(ctx, 0)
}

// RetentionSweep purges, in order and each step in its own short write
// transactions of at most batch rows:
//
//  1. the entity links of tombstones past retention.tombstone_window (and of
//     memories already gone), decrementing entity mention counts and
//     deleting entities left with none, with their relations;
//  2. the vectors of those tombstones, unless a live or still recoverable
//     memory has the same content hash;
//  3. the tombstones themselves (the FTS delete trigger fires per row);
//  4. history events past retention.history_window;
//  5. completed jobs past retention.completed_jobs_window;
//  6. dead jobs past retention.dead_jobs_window.
//
// Windows are measured against the service clock from stored timestamps.
// batch 0 means retention.batch_size.
func (s *Ops) retentionSweep(ctx context.Context, batch int) (*RetentionReport, error) {
	cfg := s.svc.Config().Retention
	if batch <= 0 {
		batch = cfg.BatchSize
	}
	if batch <= 0 {
		batch = config.DefaultRetentionBatchSize
	}
	maxBatches := cfg.MaxBatches
	if maxBatches <= 0 {
		maxBatches = config.DefaultRetentionMaxBatches
	}
	start := time.Now()
	now := s.svc.Now()
	cut := func(d config.Duration) string { return storage.FormatTime(now.Add(-d.D())) }
	tombCut := cut(cfg.TombstoneWindow)
	rep := &RetentionReport{}

	// loop runs step until it removes nothing (done) or the cap is hit.
	loop := func(name string, step func(tx storage.Tx) (more bool, err error)) error {
		for i := 0; ; i++ {
			if i == maxBatches {
				rep.Capped = true
				return nil
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			var more bool
			err := s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
				var err error
				more, err = step(tx)
				return err
			})
			if err != nil {
				return fmt.Errorf("retention %s: %w", name, err)
			}
			if !more {
				return nil
			}
		}
	}

	// 0. Projects over their bound forget their oldest unused memories
	// (soft deletes through the one write path, recoverable).
	if err := s.pruneOverfull(ctx, rep, batch, maxBatches); err != nil {
		return rep, err
	}
	// 1. Graph links.
	err := loop("graph links", func(tx storage.Tx) (bool, error) {
		g, err := retention.PurgeGraphLinks(ctx, tx, tombCut, batch)
		rep.GraphMemories += g.Memories
		rep.GraphLinks += g.Links
		rep.GraphEntities += g.Entities
		rep.GraphRelations += g.Relation
		return g.Memories > 0, err
	})
	if err != nil {
		return rep, err
	}
	// 2. Vectors of the tombstones about to go, then vectors no memory row
	// refers to any more (their memory was purged before).
	var after int64
	err = loop("embeddings", func(tx storage.Tx) (bool, error) {
		n, last, err := storage.PurgeTombstoneEmbeddings(ctx, tx, tombCut, after, batch)
		rep.Embeddings += n
		after = last
		return last > 0, err
	})
	if err != nil {
		return rep, err
	}
	after = 0
	err = loop("orphan embeddings", func(tx storage.Tx) (bool, error) {
		n, last, err := storage.DeleteOrphanEmbeddings(ctx, tx, after, batch, tombCut)
		rep.Embeddings += n
		after = last
		return last > 0, err
	})
	if err != nil {
		return rep, err
	}
	// 3. Tombstones.
	var purged []string
	err = loop("tombstones", func(tx storage.Tx) (bool, error) {
		ids, err := retention.PurgeTombstones(ctx, tx, tombCut, batch)
		if err != nil {
			return false, err
		}
		rep.Tombstones += int64(len(ids))
		purged = append(purged, ids...)
		return len(ids) > 0, nil
	})
	s.vec.Drop(purged...) // tombstones are not indexed; this only guards against drift
	if err != nil {
		return rep, err
	}
	// 4 to 6. History and jobs.
	counted := func(dst *int64, f func(tx storage.Tx) (int64, error)) func(tx storage.Tx) (bool, error) {
		return func(tx storage.Tx) (bool, error) {
			n, err := f(tx)
			*dst += n
			return n > 0, err
		}
	}
	steps := []struct {
		name string
		dst  *int64
		f    func(tx storage.Tx) (int64, error)
	}{
		{"history", &rep.History, func(tx storage.Tx) (int64, error) {
			return retention.PurgeHistory(ctx, tx, cut(cfg.HistoryWindow), batch)
		}},
		{"completed jobs", &rep.CompletedJobs, func(tx storage.Tx) (int64, error) {
			return retention.PurgeJobs(ctx, tx, storage.JobCompleted, cut(cfg.CompletedJobsWindow), batch)
		}},
		{"dead jobs", &rep.DeadJobs, func(tx storage.Tx) (int64, error) {
			return retention.PurgeJobs(ctx, tx, storage.JobDead, cut(cfg.DeadJobsWindow), batch)
		}},
	}
	for _, st := range steps {
		if err := loop(st.name, counted(st.dst, st.f)); err != nil {
			return rep, err
		}
	}
	rep.DurationMs = time.Since(start).Milliseconds()
	return rep, nil
}
