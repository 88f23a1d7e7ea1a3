package core

import (
	"context"
	"fmt"
	"slices"

	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/core/internal/parallel"
	"github.com/cairnmem/cairn/storage"
)

// The bulk write path: many memories written in one transaction with few
// statements (an import). What needs no store (the entities a text names,
// hints) is computed by PrepareBatch on every core, ahead of the writer,
// so a write transaction holds only the writes; InsertBatch writes the
// rows many per statement (storage.InsertMemories), so FTS5 indexes each
// batch as one segment instead of one per memory, and the batch's entity
// links take a few statements (linkBatch).

// BatchRow is one memory of a bulk write.
type BatchRow struct {
	// Memory is the row to write; InsertBatch fills its id, timestamps
	// and defaults as InsertNew does.
	Memory *storage.Memory
	// Meta goes on its "created" history event.
	Meta map[string]any

	mentions []entities.Mention // what linkEntities would link (PrepareBatch)
	hints    []string
}

// BatchResult is what InsertBatch did with its rows.
type BatchResult struct {
	// Inserted are the indexes of the rows written, in order.
	Inserted []int
	// Existing counts rows whose id the store holds already (skipped).
	Existing int
	// Deduped counts rows whose content in their project, or whose
	// idempotency key, a live memory holds already (skipped).
	Deduped int
}

// PrepareBatch computes, on every core and outside any transaction, what
// InsertBatch writes beside each row: the entities its content names and
// its hints.
func (s *Service) PrepareBatch(rows []*BatchRow) {
	parallel.Ranges(len(rows), func(lo, hi int) {
		for _, r := range rows[lo:hi] {
			m := r.Memory
			if s.cfg.Graph.Enabled && !m.IsDeleted {
				r.mentions = entities.Link(m.Content)
			}
			if s.cfg.Hints.Enabled {
				r.hints = HeuristicHints(m.Content, m.Type, s.cfg.Hints.Max)
			}
		}
	})
}

// InsertBatch writes rows (prepared by PrepareBatch) in tx through the
// write path, as InsertNew writes one memory: a row whose id the store
// holds is skipped, as is one whose content a live memory of its project
// holds or whose idempotency key a live memory holds (rows earlier in the
// batch count as held). The others are written with their fields
// redacted and their id, timestamps and defaults filled (prepareNew),
// their hints, their entity links, a "created" history event with reason
// and the row's Meta, and an extraction job when they are pending.
func (s *Service) InsertBatch(ctx context.Context, tx storage.Tx, rows []*BatchRow, actor Actor, reason string) (*BatchResult, error) {
	res := &BatchResult{}
	// What the store holds, asked once for the batch.
	var ids, hashes, keys []string
	for _, r := range rows {
		m := r.Memory
		m.IdempotencyKey = s.redact.Key(m.IdempotencyKey) // before it is matched (fields.go)
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
		if !m.IsDeleted {
			hashes = append(hashes, m.ContentHash)
			if m.IdempotencyKey != "" {
				keys = append(keys, m.IdempotencyKey)
			}
		}
	}
	slices.Sort(ids) // in key order: each index walked once
	slices.Sort(hashes)
	existing, err := storage.ExistingIDs(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	live, err := storage.LiveHashes(ctx, tx, hashes)
	if err != nil {
		return nil, err
	}
	liveKeys, err := storage.LiveIdempotencyKeys(ctx, tx, keys)
	if err != nil {
		return nil, err
	}
	// existing, live and liveKeys then take in the batch's own rows,
	// which the store does not show until they are written.
	for i, r := range rows {
		m := r.Memory
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
		res.Inserted = append(res.Inserted, i)
	}
	kept := make([]*storage.Memory, len(res.Inserted))
	for j, i := range res.Inserted {
		kept[j] = rows[i].Memory
	}
	rids, err := storage.InsertMemories(ctx, tx, kept)
	if err != nil {
		return nil, fmt.Errorf("insert memories: %w", err)
	}
	if s.cfg.Hints.Enabled {
		var hints []storage.HintRow
		for _, i := range res.Inserted {
			for _, h := range rows[i].hints {
				hints = append(hints, storage.HintRow{MemoryID: rows[i].Memory.ID, Hint: h})
			}
		}
		if err := storage.InsertHeuristicHints(ctx, tx, hints, s.Timestamp()); err != nil {
			return nil, fmt.Errorf("write hints: %w", err)
		}
	}
	// What InsertNew writes after the row and its hints (afterInsert),
	// many rows per statement.
	mentions := make([][]entities.Mention, len(res.Inserted))
	for j, i := range res.Inserted {
		mentions[j] = rows[i].mentions
	}
	if err := s.linkBatch(ctx, tx, rids, mentions, s.Timestamp()); err != nil {
		return nil, err
	}
	events := make([]*storage.HistoryEvent, 0, len(res.Inserted))
	for _, i := range res.Inserted {
		m := rows[i].Memory
		// The row holds the content (see storage.historyNewContent).
		h, err := s.historyEvent(m.ID, storage.EventCreated, nil, nil, actor, reason, rows[i].Meta)
		if err != nil {
			return nil, fmt.Errorf("memory %s: %w", m.ID, err)
		}
		events = append(events, h)
		if m.ExtractionStatus == "pending" && !m.IsDeleted {
			if err := s.enqueueJob(ctx, tx, m.ID, "extract"); err != nil {
				return nil, fmt.Errorf("memory %s: %w", m.ID, err)
			}
		}
	}
	if err := storage.InsertHistories(ctx, tx, events); err != nil {
		return nil, fmt.Errorf("write history: %w", err)
	}
	return res, nil
}

// CopyHistory writes, in tx, a history event copied as it is from
// another store (its id, actor and time), for a memory brought over from
// it; it reports false when the store holds an event of that id already
// (an import run twice adds nothing).
func (s *Service) CopyHistory(ctx context.Context, tx storage.Tx, h *storage.HistoryEvent) (bool, error) {
	// Its who, why and ids pass the redactor as new events' do.
	h.ChangedBy, h.Reason = s.redact.Name(h.ChangedBy), s.redact.Field(h.Reason)
	h.SessionID, h.RequestID = s.redact.Key(h.SessionID), s.redact.Key(h.RequestID)
	return storage.InsertHistoryIfAbsent(ctx, tx, h)
}
