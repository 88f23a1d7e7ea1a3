package core

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnmem/cairn/core/keyword"
	"github.com/cairnmem/cairn/storage"
)

// The keyword index (core/keyword) is kept in step with memories_fts: it
// indexes memories.content for every row, live or deleted, as the FTS5
// table does. The database reports which rows its commits changed
// (storage.TakeMemoryChanges); each search first applies them to the
// index (reading those rows back), so a memory is found by the next
// search after its commit. When the changes since the last build grow
// large (an import), the index is rebuilt in the background while
// searches go on with the old one, and FTS5 answers until the first
// build is done.

// keywordSyncBuildRows: a store this small is indexed by the first
// search itself, before it answers.
const keywordSyncBuildRows = 20000

// keywordIndex is the in-memory keyword index of one database and how it
// follows it.
type keywordIndex struct {
	db  *storage.DB
	log *slog.Logger

	ix atomic.Pointer[keyword.Index]

	mu         sync.Mutex // applying changes, starting and finishing builds
	building   bool
	buildErr   error
	sinceBuild []int64 // rows changed while a build runs

	// beforeApply, when set (tests), runs between reading the index and
	// taking its lock to apply changes: where a build can swap in.
	beforeApply func()
}

// current returns the index, up to date with every commit so far, or nil
// while it is being built.
func (st *keywordIndex) current(ctx context.Context) (*keyword.Index, error) {
	ix := st.ix.Load()
	if ix == nil {
		st.mu.Lock()
		if err := st.buildErr; err != nil {
			st.buildErr = nil
			st.mu.Unlock()
			return nil, err
		}
		building := st.building
		st.mu.Unlock()
		if building {
			return nil, nil
		}
		n, err := storage.CountMemoryRows(ctx, st.db.Reader())
		if err != nil {
			return nil, err
		}
		if n > keywordSyncBuildRows {
			go st.rebuild(context.WithoutCancel(ctx))
			return nil, nil
		}
		if err := st.rebuild(ctx); err != nil {
			return nil, err
		}
		return st.ix.Load(), nil
	}
	if st.db.PendingMemoryChanges() == 0 {
		return ix, nil
	}
	if st.beforeApply != nil {
		st.beforeApply()
	}
	st.mu.Lock()
	// A build may have swapped its index in since ix was read: the
	// changes taken now go to the index searched from now on.
	ix = st.ix.Load()
	rids := st.db.TakeMemoryChanges()
	if len(rids) == 0 {
		st.mu.Unlock()
		return ix, nil
	}
	if st.building {
		st.sinceBuild = append(st.sinceBuild, rids...)
	}
	err := applyKeywordChanges(ctx, st.db, ix, rids)
	if err != nil {
		st.db.ReturnMemoryChanges(rids)
	}
	rebuild := err == nil && !st.building && ix.NeedsRebuild()
	st.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if rebuild {
		go st.rebuild(context.WithoutCancel(ctx))
	}
	return ix, nil
}

// applyKeywordChanges reads the rows rids back, with the rows whose
// context they are, and updates ix.
func applyKeywordChanges(ctx context.Context, db *storage.DB, ix *keyword.Index, rids []int64) error {
	succ, err := storage.ContextSuccessors(ctx, db.Reader(), rids)
	if err != nil {
		return err
	}
	rids = append(slices.Clip(rids), succ...)
	texts, err := storage.MemoryTexts(ctx, db.Reader(), rids)
	if err != nil {
		return err
	}
	ids := make([]uint32, len(rids))
	docs := make(map[uint32]keyword.Text, len(texts))
	for i, r := range rids {
		ids[i] = uint32(r)
	}
	for r, t := range texts {
		docs[uint32(r)] = keyword.Text{Content: t.Content, Context: t.Context}
	}
	ix.Update(ids, docs)
	return nil
}

// rebuild builds the index from the table and swaps it in; changes
// committed meanwhile are applied to both the old index (still searched)
// and the new one before the swap. One build runs at a time.
func (st *keywordIndex) rebuild(ctx context.Context) error {
	build := st.startBuild(ctx)
	if build == nil {
		return nil
	}
	return build(ctx)
}

// startBuild marks a build as under way, so that searches from now on
// are answered by FTS5 (while there is no index) rather than start one,
// and returns the build to run; nil when one already runs.
func (st *keywordIndex) startBuild(ctx context.Context) func(context.Context) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.building {
		return nil
	}
	st.building, st.sinceBuild = true, nil
	// The build reads a snapshot taken after this: changes committed
	// before it are in the snapshot.
	taken := st.db.TakeMemoryChanges()
	if old := st.ix.Load(); old != nil && len(taken) > 0 {
		if err := applyKeywordChanges(ctx, st.db, old, taken); err != nil {
			st.db.ReturnMemoryChanges(taken)
		}
	}
	return st.build
}

// build reads the table into a new index and swaps it in.
func (st *keywordIndex) build(ctx context.Context) error {
	start := time.Now()
	var iterErr error
	ix := keyword.Build(func(yield func(keyword.Doc) bool) {
		iterErr = storage.EachMemoryText(ctx, st.db.Reader(), func(rid int64, t storage.IndexedText) error {
			if !yield(keyword.Doc{ID: uint32(rid), Text: keyword.Text{Content: t.Content, Context: t.Context}}) {
				return context.Canceled
			}
			return nil
		})
	})

	st.mu.Lock()
	defer st.mu.Unlock()
	st.building = false
	if iterErr != nil {
		st.buildErr = iterErr
		if ctx.Err() == nil { // not a server stopping mid-build
			st.log.Warn("keyword index build failed", "err", iterErr)
		}
		return iterErr
	}
	late := append(st.sinceBuild, st.db.TakeMemoryChanges()...)
	st.sinceBuild = nil
	if len(late) > 0 {
		if err := applyKeywordChanges(ctx, st.db, ix, late); err != nil {
			st.db.ReturnMemoryChanges(late)
			st.buildErr = err
			return err
		}
	}
	st.ix.Store(ix)
	// The build's garbage (every row's text, the postings before
	// compression) is several times the index: give it back to the
	// system now rather than keep it as the process's high-water mark.
	debug.FreeOSMemory()
	stats := ix.Stats()
	st.log.Info("keyword index built", "docs", stats.Docs, "terms", stats.Terms, "bytes", stats.Bytes,
		"took", time.Since(start).Round(time.Millisecond))
	return nil
}

// stats describes the index (zero before its first build).
func (st *keywordIndex) stats() keyword.Stats {
	if ix := st.ix.Load(); ix != nil {
		return ix.Stats()
	}
	return keyword.Stats{}
}

// WarmKeywordIndex starts building the keyword index, so that searches
// from now on do not wait for it (FTS5 answers them until it is built),
// and returns the build, for the caller to run in a goroutine: a server
// does at start.
func (s *Service) WarmKeywordIndex(ctx context.Context) func(context.Context) error {
	// On PostgreSQL the index is the keyword leg's only answer (no FTS5).
	if (!s.cfg.Search.KeywordIndex && !s.db.Postgres()) || s.db.ReadOnly() || s.keyword.ix.Load() != nil {
		return func(context.Context) error { return nil }
	}
	if build := s.keyword.startBuild(ctx); build != nil {
		return build
	}
	return func(context.Context) error { return nil }
}

// TermDocCounts returns, for each term, how many memories hold it: from
// FTS5 on SQLite, from the in-memory keyword index on PostgreSQL (which
// has no FTS5; an error while the index is first built).
func (s *Service) TermDocCounts(ctx context.Context, terms []string) (map[string]int, error) {
	if !s.db.Postgres() {
		return storage.TermDocCounts(ctx, s.db.Reader(), terms)
	}
	ix, err := s.keyword.current(ctx)
	if err != nil {
		return nil, err
	}
	if ix == nil {
		return nil, errKeywordIndexBuilding
	}
	out := make(map[string]int, len(terms))
	toks := make([]string, len(terms))
	for i, t := range terms {
		if q, ok := keyword.Query([]string{t}); ok && len(q) == 1 {
			toks[i] = q[0]
		}
	}
	for i, n := range ix.DocFreq(toks) {
		out[terms[i]] = n
	}
	return out, nil
}

var errKeywordIndexBuilding = errors.New("the keyword index is being built")
