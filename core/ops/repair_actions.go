package ops

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cairnmem/cairn/core"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/core/vectors"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/retention"
)

// ---------------------------------------------------------------------------
// check-fts
// ---------------------------------------------------------------------------

// FTSCheck is the state of the full-text index.
//
// memories_fts is an external-content FTS5 index over memories.content
// kept by triggers on insert, hard delete and content update. Soft deletes
// do not touch it (queries join memories and drop deleted rows), so the
// index must hold exactly one document per memories row, live or deleted.
// It is consistent when the documents it holds (memories_fts_docsize, one
// row per document) equal the rows of memories and FTS5's integrity-check,
// which also compares the index with the content table, passes.
type FTSCheck struct {
	Rows           int    `json:"rows"`    // memories rows, live and deleted
	Indexed        int    `json:"indexed"` // documents in the index
	IntegrityError string `json:"integrityError,omitempty"`
	Mismatch       bool   `json:"mismatch"`
}

// CheckFTS checks the full-text index. FTS5's integrity-check is an INSERT
// command, so it runs in a write transaction that changes nothing; it
// reads the whole index, which takes about a second per 100k memories.
func (s *Ops) CheckFTS(ctx context.Context) (*FTSCheck, error) {
	if s.svc.DB().Postgres() {
		return nil, fmt.Errorf("check the full-text index: %w", storage.ErrNotOnPostgres)
	}
	c := &FTSCheck{}
	err := s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		var err error
		if c.Rows, err = storage.CountMemoryRows(ctx, tx); err != nil {
			return err
		}
		indexed, err := storage.CountFTSDocuments(ctx, tx)
		if err != nil {
			c.IntegrityError = err.Error()
			return nil
		}
		c.Indexed = int(indexed)
		if err := storage.CheckFTSIntegrity(ctx, tx); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			c.IntegrityError = err.Error()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.Mismatch = c.Rows != c.Indexed || c.IntegrityError != ""
	return c, nil
}

// RebuildFTS rebuilds the full-text index from the memories table.
func (s *Ops) RebuildFTS(ctx context.Context) error {
	if s.svc.DB().Postgres() {
		return fmt.Errorf("rebuild the full-text index: %w", storage.ErrNotOnPostgres)
	}
	return s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		return storage.RebuildFTS(ctx, tx)
	})
}

func (s *Ops) repairCheckFTS(ctx context.Context, opts RepairOptions) (*RepairResult, error) {
	res := &RepairResult{Action: RepairCheckFTS, DryRun: opts.DryRun}
	c, err := s.CheckFTS(ctx)
	if err != nil {
		return nil, err
	}
	state := fmt.Sprintf("%d memories rows, %d indexed", c.Rows, c.Indexed)
	if c.IntegrityError != "" {
		state += ", integrity-check failed: " + c.IntegrityError
	}
	if !c.Mismatch {
		res.Success = true
		res.Message = "full-text index consistent (" + state + ")"
		return res, nil
	}
	res.Affected = max(abs(c.Rows-c.Indexed), 1)
	if !opts.Repair || opts.DryRun {
		res.Message = "full-text index mismatch (" + state + "); run with repair to rebuild it"
		if opts.Repair {
			res.Message = "full-text index mismatch (" + state + "); would rebuild it"
		}
		return res, nil
	}
	if err := s.RebuildFTS(ctx); err != nil {
		return nil, fmt.Errorf("rebuild full-text index: %w", err)
	}
	after, err := s.CheckFTS(ctx)
	if err != nil {
		return nil, err
	}
	res.Success = !after.Mismatch
	res.Message = fmt.Sprintf("full-text index rebuilt (was %s; now %d rows, %d indexed)", state, after.Rows, after.Indexed)
	if after.Mismatch {
		res.Message += ", still inconsistent: " + after.IntegrityError
	}
	return res, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// ---------------------------------------------------------------------------
// retention-sweep
// ---------------------------------------------------------------------------

// RetentionPreview counts what a sweep would remove now: graph links and
// the entities and relations left with none, vectors, tombstones, history,
// completed and dead jobs.
func (s *Ops) RetentionPreview(ctx context.Context) (*RetentionReport, error) {
	cfg := s.svc.Config().Retention
	now := s.svc.Now()
	cut := func(d config.Duration) string { return storage.FormatTime(now.Add(-d.D())) }
	rep := &RetentionReport{}
	b, err := retention.CountBacklog(ctx, s.svc.DB().Reader(), retention.Cutoffs{
		Tombstones: cut(cfg.TombstoneWindow), History: cut(cfg.HistoryWindow),
		CompletedJobs: cut(cfg.CompletedJobsWindow), DeadJobs: cut(cfg.DeadJobsWindow)})
	if err != nil {
		return nil, err
	}
	rep.GraphLinks, rep.Tombstones, rep.History, rep.CompletedJobs, rep.DeadJobs =
		b.GraphLinks, b.Tombstones, b.History, b.CompletedJobs, b.DeadJobs
	rep.Embeddings, rep.GraphEntities, rep.GraphRelations, err = retention.CountSweptGraphAndVectors(ctx, s.svc.DB().Reader(), cut(cfg.TombstoneWindow))
	if err != nil {
		return nil, err
	}
	if rep.Pruned, err = s.countPrunable(ctx); err != nil {
		return nil, err
	}
	return rep, nil
}

func (s *Ops) repairRetentionSweep(ctx context.Context, opts RepairOptions) (*RepairResult, error) {
	res := &RepairResult{Action: RepairRetentionSweep, DryRun: opts.DryRun, Success: true}
	if opts.DryRun {
		rep, err := s.RetentionPreview(ctx)
		if err != nil {
			return nil, err
		}
		res.Affected = int(rep.Total())
		res.Message = "would remove " + rep.String()
		return res, nil
	}
	rep, err := s.retentionSweep(ctx, opts.BatchSize)
	if err != nil {
		return nil, err
	}
	res.Affected = int(rep.Total())
	res.Message = "removed " + rep.String()
	if rep.Capped {
		res.Message += " (stopped at retention.max_batches; the rest waits for the next sweep)"
	}
	return res, nil
}

// ---------------------------------------------------------------------------
// re-embed
// ---------------------------------------------------------------------------

func (s *Ops) repairReEmbed(ctx context.Context, opts RepairOptions) (*RepairResult, error) {
	res := &RepairResult{Action: RepairReEmbed, DryRun: opts.DryRun}
	if s.vec.Embedder() == nil {
		res.Message = "no embedding provider configured (embedding.provider = none): nothing can be embedded"
		return res, nil
	}
	batch := opts.BatchSize
	if batch <= 0 {
		batch = 50
	}
	pending, err := s.vec.CountPendingEmbeddings(ctx)
	if err != nil {
		return nil, err
	}
	res.Success = true
	if opts.DryRun {
		res.Affected = pending
		if !opts.FullSweep {
			res.Affected = min(pending, batch)
		}
		res.Message = fmt.Sprintf("would embed %d of %d memories with missing or stale vectors", res.Affected, pending)
		return res, nil
	}
	model := s.vec.Embedder().Model()
	// Under continuous writes the backlog may never reach zero: a full
	// sweep makes at most the passes the backlog it started with needs.
	passes := 1
	if opts.FullSweep {
		passes = pending/batch + 2
	}
	for pass := 0; pass < passes; pass++ {
		// Oldest first: a repair catches up on the backlog in the order it
		// built up.
		pend, err := storage.OldestPendingEmbeddings(ctx, s.svc.DB().Reader(), model, batch)
		if err != nil {
			return nil, err
		}
		var uniq []vectors.PendingRow
		seen := map[string]bool{}
		for _, p := range vectors.PendingRows(pend) {
			if !seen[p.Hash] { // one provider call per distinct content
				seen[p.Hash] = true
				uniq = append(uniq, p)
			}
		}
		if len(uniq) == 0 {
			break
		}
		// The provider is called outside any transaction; embedRows stores
		// each provider batch in its own short one and updates the vector
		// index.
		n, err := s.vec.EmbedRows(ctx, uniq)
		res.Affected += n
		if err != nil {
			res.Success = false
			res.Message = fmt.Sprintf("embedded %d memories, then the provider failed: %v", res.Affected, err)
			return res, nil
		}
		// Other live memories with the same content (another project, or
		// beyond this batch) share the vector: mark and index them too.
		hashes := make([]string, 0, len(uniq))
		for _, p := range uniq {
			hashes = append(hashes, p.Hash)
		}
		var others []string
		if err := s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
			var err error
			others, err = storage.MarkEmbeddedByHash(ctx, tx, model, hashes)
			return err
		}); err != nil {
			return nil, err
		}
		if len(others) > 0 {
			s.vec.SyncVectors(ctx, others...)
			res.Affected += len(others)
		}
	}
	left, err := s.vec.CountPendingEmbeddings(ctx)
	if err != nil {
		return nil, err
	}
	res.Message = fmt.Sprintf("embedded %d memories; %d still without a vector for %s", res.Affected, left, model)
	return res, nil
}

// EmbeddingGaps is GET /api/repair/embedding-gaps.
type EmbeddingGaps struct {
	Unembedded int    `json:"unembedded"`
	Total      int    `json:"total"`
	Coverage   string `json:"coverage"` // like "96.5%"
}

// EmbeddingGaps counts live memories without a vector for the current
// model. Without an embedder every memory is unembedded.
func (s *Ops) EmbeddingGaps(ctx context.Context) (*EmbeddingGaps, error) {
	var g EmbeddingGaps
	var err error
	if g.Total, err = storage.CountMemories(ctx, s.svc.DB().Reader(), storage.MemoryFilter{}); err != nil {
		return nil, err
	}
	g.Unembedded = g.Total
	if s.vec.Embedder() != nil {
		n, err := s.vec.CountPendingEmbeddings(ctx)
		if err != nil {
			return nil, err
		}
		g.Unembedded = n
	}
	cov := 100.0
	if g.Total > 0 {
		cov = 100 * float64(g.Total-g.Unembedded) / float64(g.Total)
	}
	g.Coverage = fmt.Sprintf("%.1f%%", math.Floor(cov*10)/10)
	return &g, nil
}

// ---------------------------------------------------------------------------
// clean-orphans
// ---------------------------------------------------------------------------

func (s *Ops) repairCleanOrphans(ctx context.Context, opts RepairOptions) (*RepairResult, error) {
	res := &RepairResult{Action: RepairCleanOrphans, DryRun: opts.DryRun, Success: true}
	if opts.DryRun {
		n, err := storage.CountOrphanEmbeddings(ctx, s.svc.DB().Reader())
		if err != nil {
			return nil, err
		}
		res.Affected = n
		res.Message = fmt.Sprintf("would delete %d vectors whose memory is missing or deleted", n)
		return res, nil
	}
	batch := opts.BatchSize
	if batch <= 0 {
		batch = 500
	}
	// Only vectors no live memory uses go, so the in-memory index (live
	// memories only) loses nothing.
	var after int64
	for {
		var n, last int64
		err := s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
			var err error
			n, last, err = storage.DeleteOrphanEmbeddings(ctx, tx, after, batch, "")
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("clean orphan vectors: %w", err)
		}
		res.Affected += int(n)
		if last == 0 {
			break
		}
		after = last
	}
	res.Message = fmt.Sprintf("deleted %d vectors whose memory is missing or deleted", res.Affected)
	return res, nil
}

// ---------------------------------------------------------------------------
// deduplicate
// ---------------------------------------------------------------------------

// Exact duplicates. The unique index idx_memories_hash_live keeps two live
// memories of one project from sharing a content hash, and the hash is
// sha256 of the normalized content, so the write path cannot make exact
// duplicates within a project. What can still duplicate is rows whose
// stored hash differs while their normalized content is identical: rows
// written by another tool or an older cairn, or imported straight into
// the table. A cluster is therefore: live, not pinned, not manual_override
// memories of the same project (NULL and ” alike) with the same non-empty
// normalized content (text.NormalizeContent, derived from content). The
// same fact in two projects is not a duplicate: projects are kept apart on
// purpose. storage.DedupClusters finds them.

// normalized is the form exact duplicates share.
func normalized(content string) string { return text.NormalizeContent(content).Normalized }

// DedupStats is GET /api/repair/dedup-stats.
type DedupStats struct {
	ExactClusters int `json:"exactClusters"`
	ExactExcess   int `json:"exactExcess"` // rows a deduplicate would retire
	TotalActive   int `json:"totalActive"`
}

// DedupStats counts exact duplicate clusters (pinned and manual_override
// Rows excluded) among live memories.
func (s *Ops) DedupStats(ctx context.Context) (*DedupStats, error) {
	var st DedupStats
	r := s.svc.DB().Reader()
	var err error
	if st.ExactClusters, st.ExactExcess, err = storage.DedupClusterStats(ctx, r, normalized); err != nil {
		return nil, err
	}
	if st.TotalActive, err = storage.CountMemories(ctx, r, storage.MemoryFilter{}); err != nil {
		return nil, err
	}
	return &st, nil
}

// keeperScore ranks a cluster's rows as Signet's deduplication does
// (docs/design/operations.md, "Repairs"): importance first, then use,
// edits and recency. Pinned rows never reach a cluster here.
func keeperScore(m *storage.Memory) float64 {
	score := 3*m.Importance + float64(min(m.AccessCount, 50))/50 + float64(min(m.UpdateCount, 20))/20
	if t, err := storage.ParseTime(m.UpdatedAt); err == nil {
		score += float64(t.UnixMilli()) / 1e15
	}
	return score
}

func (s *Ops) repairDeduplicate(ctx context.Context, actor core.Actor, opts RepairOptions) (*RepairResult, error) {
	res := &RepairResult{Action: RepairDeduplicate, DryRun: opts.DryRun, Success: true}
	if !opts.DryRun {
		if err := s.svc.CheckFrozen(); err != nil {
			return nil, err
		}
	}
	batch := opts.BatchSize
	if batch <= 0 {
		batch = 100
	}
	found, err := storage.DedupClusters(ctx, s.svc.DB().Reader(), normalized, batch)
	if err != nil {
		return nil, err
	}
	clusters := found
	excess := 0
	for _, c := range found {
		excess += c.Size - 1
	}
	if opts.DryRun {
		res.Affected = excess
		res.Message = fmt.Sprintf("would retire %d duplicates in %d clusters", excess, len(clusters))
		return res, nil
	}
	reason := "dedup: duplicate of %s"
	merged := 0
	for _, c := range clusters {
		var touched []string
		err := s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
			touched = touched[:0]
			n, ids, err := s.mergeCluster(ctx, tx, c, actor, reason, opts.Reason)
			merged += n
			touched = append(touched, ids...)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("deduplicate: %w", err)
		}
		if len(touched) > 0 {
			s.vec.SyncVectors(ctx, touched...)
			for _, id := range touched[1:] {
				s.svc.Publish(core.Event{Kind: core.EventDeleted, MemoryID: id, Actor: actor.Name})
			}
			s.svc.Publish(core.Event{Kind: core.EventUpdated, MemoryID: touched[0], Actor: actor.Name})
		}
	}
	res.Affected = merged
	res.Message = fmt.Sprintf("retired %d duplicates in %d clusters", merged, len(clusters))
	return res, nil
}

// mergeCluster re-reads one cluster inside the transaction (rows may have
// changed since it was found), keeps the best row, merges the others' tags
// into it and soft-deletes them. It returns how many rows it retired and
// the ids it touched, keeper first.
func (s *Ops) mergeCluster(ctx context.Context, tx storage.Tx, c storage.DedupCluster, actor core.Actor, reasonFmt, why string) (int, []string, error) {
	ms, err := storage.DedupClusterMembers(ctx, tx, normalized, c)
	if err != nil {
		return 0, nil, err
	}
	if len(ms) < 2 {
		return 0, nil, nil
	}
	keeper := ms[0]
	for _, m := range ms[1:] {
		if keeperScore(m) > keeperScore(keeper) {
			keeper = m
		}
	}
	tags := slices.Clone(keeper.Tags)
	var added, retired []string
	for _, m := range ms {
		if m == keeper {
			continue
		}
		for _, t := range m.Tags {
			if !slices.ContainsFunc(tags, func(k string) bool { return strings.EqualFold(k, t) }) {
				tags = append(tags, t)
				added = append(added, t)
			}
		}
		retired = append(retired, m.ID)
	}
	// The duplicates are retired without a version increment, as Signet
	// retires them: nothing about the row changed but its being a duplicate.
	merge := core.DuplicateMerge{Keeper: keeper.ID, Duplicates: retired, Reason: fmt.Sprintf(reasonFmt, keeper.ID),
		Meta: map[string]any{"repairAction": RepairDeduplicate, "keeper": keeper.ID}}
	if len(added) > 0 {
		merge.Tags = tags
	}
	if err := s.svc.MergeDuplicatesTx(ctx, tx, merge, actor); err != nil {
		return 0, nil, err
	}
	meta := map[string]any{"repairAction": RepairDeduplicate, "duplicates": retired, "tagsAdded": added}
	if why != "" {
		meta["requestReason"] = why
	}
	if err := s.svc.AddHistory(ctx, tx, keeper.ID, storage.EventMerged, nil, nil, actor,
		fmt.Sprintf("dedup: merged %d duplicates", len(retired)), meta); err != nil {
		return 0, nil, err
	}
	return len(retired), append([]string{keeper.ID}, retired...), nil
}
