package core

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// Export calls fn for every memory matching f with its evolution, oldest
// first. Forgotten memories are included only when f asks for them;
// superseded ones always (core/transfer_evolution.go).
func (s *Service) Export(ctx context.Context, f storage.MemoryFilter, fn func(*ExportRecord) error) error {
	if e := CheckFilter(f); e != nil {
		return e
	}
	return s.exportEach(ctx, f, fn)
}

// ImportLine is one parsed line of a JSONL export.
type ImportLine struct {
	Line   int
	Memory Memory
	// Evolution is what the line carries of the memory's evolution (nil
	// in an old export).
	Evolution *Carried

	target bool // another line names this memory as its successor
}

// ImportResult counts what an import did.
type ImportResult struct {
	Total    int `json:"total"`
	Imported int `json:"imported"`
	Deduped  int `json:"deduped"`
	Existing int `json:"existing"`
}

// importBatch is how many records share one write transaction: large
// enough that FTS5 writes few segments, small enough that a remember
// queued behind an import waits well under a second. bulkImportBatch is
// the size for cairn import into a store it holds alone (ImportProgress):
// each commit writes every index page a batch touched to the WAL, and the
// random keys (ids, hashes) touch most of them, so five times fewer
// commits save about a fifth of the writer's work at 100k.
const (
	importBatch     = 2000
	bulkImportBatch = 10000
)

// Import writes exported memories through the write path, keeping every
// field (id, timestamps, version, counters). A record whose id exists is
// skipped; one whose content duplicates a live memory in its project is
// deduped (as is one repeating an earlier record of the import). Each
// record gets a "created" history event with reason "import". Records
// meet remember's guardrails: every line is checked (content length,
// tags) before anything is written, and secrets are redacted from content
// (before it is hashed) and from the other fields (prepareNew).
//
// What needs no store (redaction, normalization, hashing, the entities a
// text names, hints) is computed on every core, a batch ahead of the
// writer, so a write transaction holds only the writes. Those are many
// rows per statement (storage.InsertMemories), so FTS5 indexes each batch
// as one segment instead of one per memory, and the batch's entity links
// take a few statements (linkBatch).
func (s *Service) Import(ctx context.Context, lines []ImportLine, actor Actor) (*ImportResult, error) {
	return s.importLines(ctx, lines, actor, nil, importBatch)
}

// ImportProgress is Import for a process that holds the store alone
// (cairn import without a server), calling progress (when not nil) after
// each committed batch with how many lines are done. Its transactions are
// larger (bulkImportBatch): no other process waits on them.
func (s *Service) ImportProgress(ctx context.Context, lines []ImportLine, actor Actor, progress func(done int)) (*ImportResult, error) {
	return s.importLines(ctx, lines, actor, progress, bulkImportBatch)
}

// importLines is Import with transactions of batchSize records.
func (s *Service) importLines(ctx context.Context, lines []ImportLine, actor Actor, progress func(done int), batchSize int) (*ImportResult, error) {
	if err := s.CheckFrozen(); err != nil {
		return nil, err
	}
	if e := s.importGuardrailsAll(lines); e != nil {
		return nil, e
	}
	if e := s.checkImportEvolution(ctx, lines); e != nil {
		return nil, e
	}
	actor = actor.Normalized()
	res := &ImportResult{Total: len(lines)}
	var created []string
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	bulk := len(lines) > importBatch
	if bulk {
		done, err := s.db.BulkLoad(ctx)
		if err != nil {
			s.log.Warn("import: bulk settings", "err", err)
		}
		defer done()
	}
	prepared := make(chan []importRecord, 1)
	go func() {
		defer close(prepared)
		for start := 0; start < len(lines); start += batchSize {
			batch := s.prepareImport(lines[start:min(start+batchSize, len(lines))])
			select {
			case prepared <- batch:
			case <-ctx.Done():
				return
			}
		}
	}()
	for batch := range prepared {
		var counts ImportResult
		var ids []string
		err := s.db.WriteTx(ctx, func(tx *storage.Tx) error {
			write := func() error {
				var err error
				counts, ids, err = s.importBatch(ctx, tx, batch, actor)
				return err
			}
			if bulk {
				return storage.BulkFTSMerge(ctx, tx, write)
			}
			return write()
		})
		if err != nil {
			return res, err
		}
		res.Imported += counts.Imported
		res.Deduped += counts.Deduped
		res.Existing += counts.Existing
		created = append(created, ids...)
		if progress != nil {
			progress(res.Imported + res.Deduped + res.Existing)
		}
	}
	if err := s.repointDeduped(ctx, lines); err != nil {
		return res, err
	}
	c := changes{actor: actor.Name, sync: created} // content already embedded under another id
	c.add(EventCreated, created...)
	s.committed(ctx, c)
	return res, nil
}

// importRecord is one line of an import with what is computed before its
// write transaction.
type importRecord struct {
	line     int
	m        *storage.Memory
	mentions []entities.Mention // what linkEntities would link
	hints    []string
	ev       *Carried // what the line carries of its evolution
}

// parallel runs fn over [0, n) split into one part per core.
func parallel(n int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), max(n/64, 1))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// importGuardrailsAll checks (and redacts) every line on every core; the
// error is the first bad line's.
func (s *Service) importGuardrailsAll(lines []ImportLine) *Error {
	errs := make([]*Error, len(lines))
	parallel(len(lines), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			errs[i] = s.importGuardrails(&lines[i])
		}
	})
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// prepareImport turns a batch of lines into rows with their entity
// mentions and hints, on every core.
func (s *Service) prepareImport(lines []ImportLine) []importRecord {
	out := make([]importRecord, len(lines))
	parallel(len(lines), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			m := storageOf(&lines[i].Memory)
			r := importRecord{line: lines[i].Line, m: m, ev: lines[i].Evolution}
			if s.cfg.Graph.Enabled && !m.IsDeleted {
				r.mentions = entities.Link(m.Content)
			}
			if s.cfg.Hints.Enabled {
				r.hints = HeuristicHints(m.Content, m.Type, s.cfg.Hints.Max)
			}
			out[i] = r
		}
	})
	return out
}

// importBatch writes one batch of records in tx and returns what it did
// and the ids it created.
func (s *Service) importBatch(ctx context.Context, tx *storage.Tx, batch []importRecord, actor Actor) (ImportResult, []string, error) {
	var res ImportResult
	// What the store holds, asked once for the batch.
	var ids, hashes, keys []string
	for _, r := range batch {
		if r.m.ID != "" {
			ids = append(ids, r.m.ID)
		}
		if !r.m.IsDeleted {
			hashes = append(hashes, r.m.ContentHash)
			if r.m.IdempotencyKey != "" {
				keys = append(keys, r.m.IdempotencyKey)
			}
		}
	}
	slices.Sort(ids) // in key order: each index walked once
	slices.Sort(hashes)
	existing, err := storage.ExistingIDs(ctx, tx, ids)
	if err != nil {
		return res, nil, err
	}
	live, err := storage.LiveHashes(ctx, tx, hashes)
	if err != nil {
		return res, nil, err
	}
	liveKeys, err := storage.LiveIdempotencyKeys(ctx, tx, keys)
	if err != nil {
		return res, nil, err
	}
	// existing, live and liveKeys then take in the batch's own records,
	// which the store does not show until the rows are written.
	kept := make([]importRecord, 0, len(batch))
	for _, r := range batch {
		m := r.m
		if m.ID != "" && existing[m.ID] {
			res.Existing++
			continue
		}
		if !m.IsDeleted {
			if live[[2]string{m.ContentHash, m.Project}] {
				res.Deduped++
				continue
			}
			if m.IdempotencyKey != "" && liveKeys[m.IdempotencyKey] {
				res.Deduped++ // the same request was already stored under this key
				continue
			}
		}
		s.prepareNew(m, actor)
		existing[m.ID] = true
		if !m.IsDeleted {
			live[[2]string{m.ContentHash, m.Project}] = true
			if m.IdempotencyKey != "" {
				liveKeys[m.IdempotencyKey] = true
			}
		}
		kept = append(kept, r)
	}
	rows := make([]*storage.Memory, len(kept))
	for i, r := range kept {
		rows[i] = r.m
	}
	rids, err := storage.InsertMemories(ctx, tx, rows)
	if err != nil {
		return res, nil, fmt.Errorf("insert memories: %w", err)
	}
	if s.cfg.Hints.Enabled {
		var hints []storage.HintRow
		for _, r := range kept {
			for _, h := range r.hints {
				hints = append(hints, storage.HintRow{MemoryID: r.m.ID, Hint: h})
			}
		}
		if err := storage.InsertHeuristicHints(ctx, tx, hints, s.Timestamp()); err != nil {
			return res, nil, fmt.Errorf("write hints: %w", err)
		}
	}
	// What InsertNew writes after the row and its hints (afterInsert),
	// many rows per statement.
	mentions := make([][]entities.Mention, len(kept))
	for i, r := range kept {
		mentions[i] = r.mentions
	}
	if err := s.linkBatch(ctx, tx, rids, mentions, s.Timestamp()); err != nil {
		return res, nil, err
	}
	if err := s.writeImportEvolution(ctx, tx, kept); err != nil {
		return res, nil, err
	}
	created := make([]string, 0, len(kept))
	events := make([]*storage.HistoryEvent, 0, len(kept))
	for _, r := range kept {
		m := r.m
		// The row holds the content (see storage.historyNewContent).
		h, err := s.historyEvent(m.ID, storage.EventCreated, nil, nil, actor, "import", map[string]any{"line": r.line})
		if err != nil {
			return res, nil, fmt.Errorf("line %d: %w", r.line, err)
		}
		events = append(events, h)
		if m.ExtractionStatus == "pending" && !m.IsDeleted {
			if err := s.enqueueJob(ctx, tx, m.ID, jobs.Extract); err != nil {
				return res, nil, fmt.Errorf("line %d: %w", r.line, err)
			}
		}
		created = append(created, m.ID)
	}
	if err := storage.InsertHistories(ctx, tx, events); err != nil {
		return res, nil, fmt.Errorf("write history: %w", err)
	}
	res.Imported = len(created)
	return res, created, nil
}

// storageOf turns an exported memory back into a row, re-deriving the
// normalized form and hash from its content.
func storageOf(v *Memory) *storage.Memory {
	norm := text.NormalizeContent(v.Content)
	vc := v.VectorClock
	if vc == "" {
		vc = "{}"
	}
	typ := strings.TrimSpace(v.Type)
	if typ == "" {
		typ = text.InferType(norm.Storage)
	}
	return &storage.Memory{
		ID: v.ID, Type: typ, Category: v.Category, Content: norm.Storage,
		ContentHash: norm.Hash, Confidence: v.Confidence, Importance: v.Importance, SourceID: v.SourceID,
		SourceType: OrDefault(v.SourceType, "manual"), Tags: text.CleanTags(v.Tags), Who: v.Who, Why: v.Why,
		Project: v.Project, SessionID: v.SessionID, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt,
		UpdatedBy: v.UpdatedBy, LastAccessed: v.LastAccessed, AccessCount: v.AccessCount, VectorClock: vc,
		Version: max(v.Version, 1), ManualOverride: v.ManualOverride, Pinned: v.Pinned, IsDeleted: v.IsDeleted,
		DeletedAt: v.DeletedAt, ExtractionStatus: OrDefault(v.ExtractionStatus, "none"),
		EmbeddingModel: v.EmbeddingModel, ExtractionModel: v.ExtractionModel, UpdateCount: v.UpdateCount,
		IdempotencyKey: v.IdempotencyKey, RuntimePath: v.RuntimePath, SourcePath: v.SourcePath,
		SourceSection: v.SourceSection,
	}
}

// importGuardrails checks one record as Remember checks its input and
// redacts its content; the error names the line and the field.
func (s *Service) importGuardrails(l *ImportLine) *Error {
	m := &l.Memory
	lineErr := func(e *Error) *Error {
		extra := map[string]any{"line": l.Line}
		for k, v := range e.Extra {
			extra[k] = v
		}
		return &Error{Code: e.Code, Message: fmt.Sprintf("line %d: %s", l.Line, e.Message), Extra: extra}
	}
	if n, limit := text.CharCount(m.Content), s.cfg.Guardrails.MaxRememberChars; n > limit {
		return lineErr(&Error{Code: CodeTooLarge,
			Message: fmt.Sprintf("content is %d characters; the limit is %d (guardrails.max_remember_chars); use the documents API for long text", n, limit),
			Extra:   map[string]any{"field": "content"}})
	}
	if e := CheckTags("tags", text.CleanTags(m.Tags)); e != nil {
		return lineErr(e)
	}
	m.Content = s.Redact(m.Content)
	return nil
}
