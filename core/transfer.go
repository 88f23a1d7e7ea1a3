package core

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// Export calls fn for every memory matching f, oldest first. Deleted
// memories are included only when f asks for them.
func (s *Service) Export(ctx context.Context, f storage.MemoryFilter, fn func(*Memory) error) error {
	if e := CheckFilter(f); e != nil {
		return e
	}
	return storage.EachMemory(ctx, s.db.Reader(), f, func(m *storage.Memory) error { return fn(viewOf(m)) })
}

// ImportLine is one parsed line of a JSONL export.
type ImportLine struct {
	Line   int
	Memory Memory
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
// queued behind an import waits well under a second.
const importBatch = 2000

// Import writes exported memories through the write path, keeping every
// field (id, timestamps, version, counters). A record whose id exists is
// skipped; one whose content duplicates a live memory in its project is
// deduped (as is one repeating an earlier record of the import). Each
// record gets a "created" history event with reason "import". Records
// meet remember's guardrails: every line is checked (content length,
// tags) before anything is written, and secrets are redacted from content
// (before it is hashed) and from the other fields (prepareNew).
//
// Rows are written many per statement (storage.InsertMemories), so
// FTS5 indexes each batch as one segment instead of one per memory, and
// the entity linker remembers the entities of the batch (bulkLinker).
func (s *Service) Import(ctx context.Context, lines []ImportLine, actor Actor) (*ImportResult, error) {
	if err := s.CheckFrozen(); err != nil {
		return nil, err
	}
	for i := range lines {
		if e := s.importGuardrails(&lines[i]); e != nil {
			return nil, e
		}
	}
	actor = actor.Normalized()
	res := &ImportResult{Total: len(lines)}
	var created []string
	for start := 0; start < len(lines); start += importBatch {
		batch := lines[start:min(start+importBatch, len(lines))]
		var counts ImportResult
		var ids []string
		err := s.db.WriteTx(ctx, func(tx *storage.Tx) error {
			var err error
			counts, ids, err = s.importBatch(ctx, tx, batch, actor)
			return err
		})
		if err != nil {
			return res, err
		}
		res.Imported += counts.Imported
		res.Deduped += counts.Deduped
		res.Existing += counts.Existing
		created = append(created, ids...)
	}
	s.emb.SyncVectors(ctx, created...) // content already embedded under another id
	for _, id := range created {
		s.events.publish(Event{Kind: EventCreated, MemoryID: id, Actor: actor.Name})
	}
	return res, nil
}

// importBatch writes one batch of records in tx and returns what it did
// and the ids it created.
func (s *Service) importBatch(ctx context.Context, tx *storage.Tx, batch []ImportLine, actor Actor) (ImportResult, []string, error) {
	var res ImportResult
	ctx, linker := withBulkLinker(ctx)
	// What the batch itself holds, which the store does not show until
	// the rows are written.
	ids := map[string]bool{}
	hashes := map[[2]string]bool{} // live rows by (content hash, project)
	keys := map[string]bool{}      // live rows' idempotency keys
	rows := make([]*storage.Memory, 0, len(batch))
	lineOf := make([]int, 0, len(batch))
	for _, l := range batch {
		m := storageOf(&l.Memory)
		if m.ID != "" {
			if ids[m.ID] {
				res.Existing++
				continue
			}
			if _, err := storage.GetMemory(ctx, tx, m.ID); err == nil {
				res.Existing++
				continue
			} else if !errors.Is(err, storage.ErrNotFound) {
				return res, nil, err
			}
		}
		if !m.IsDeleted {
			if hashes[[2]string{m.ContentHash, m.Project}] {
				res.Deduped++
				continue
			}
			if _, err := storage.FindLiveByHash(ctx, tx, m.ContentHash, m.Project); err == nil {
				res.Deduped++
				continue
			} else if !errors.Is(err, storage.ErrNotFound) {
				return res, nil, err
			}
			if m.IdempotencyKey != "" {
				// The same request was already stored under this key.
				if keys[m.IdempotencyKey] {
					res.Deduped++
					continue
				}
				if _, err := findByIdempotencyKey(ctx, tx, m.IdempotencyKey); err == nil {
					res.Deduped++
					continue
				} else if !errors.Is(err, storage.ErrNotFound) {
					return res, nil, err
				}
			}
		}
		s.prepareNew(m, actor)
		ids[m.ID] = true
		if !m.IsDeleted {
			hashes[[2]string{m.ContentHash, m.Project}] = true
			if m.IdempotencyKey != "" {
				keys[m.IdempotencyKey] = true
			}
		}
		rows = append(rows, m)
		lineOf = append(lineOf, l.Line)
	}
	if err := storage.InsertMemories(ctx, tx, rows); err != nil {
		return res, nil, fmt.Errorf("insert memories: %w", err)
	}
	if s.cfg.Hints.Enabled {
		var hints []storage.HintRow
		for _, m := range rows {
			for _, h := range HeuristicHints(m.Content, m.Type, s.cfg.Hints.Max) {
				hints = append(hints, storage.HintRow{MemoryID: m.ID, Hint: h})
			}
		}
		if err := storage.InsertHeuristicHints(ctx, tx, hints, s.Timestamp()); err != nil {
			return res, nil, fmt.Errorf("write hints: %w", err)
		}
	}
	// What InsertNew writes after the row and its hints (afterInsert),
	// with the links and the events written many per statement.
	created := make([]string, 0, len(rows))
	events := make([]*storage.HistoryEvent, 0, len(rows))
	for i, m := range rows {
		if err := s.linkEntities(ctx, tx, m); err != nil {
			return res, nil, fmt.Errorf("line %d: %w", lineOf[i], err)
		}
		content := m.Content
		h, err := s.historyEvent(m.ID, storage.EventCreated, nil, &content, actor, "import", map[string]any{"line": lineOf[i]})
		if err != nil {
			return res, nil, fmt.Errorf("line %d: %w", lineOf[i], err)
		}
		events = append(events, h)
		if m.ExtractionStatus == "pending" && !m.IsDeleted {
			if err := s.enqueueJob(ctx, tx, m.ID, "extract"); err != nil {
				return res, nil, fmt.Errorf("line %d: %w", lineOf[i], err)
			}
		}
		created = append(created, m.ID)
	}
	if err := storage.InsertHistories(ctx, tx, events); err != nil {
		return res, nil, fmt.Errorf("write history: %w", err)
	}
	res.Imported = len(created)
	return res, created, linker.flush(ctx, tx)
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
		ID: v.ID, Type: typ, Category: v.Category, Content: norm.Storage, NormalizedContent: norm.Normalized,
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
