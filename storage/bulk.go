package storage

import (
	"context"
	"strings"
)

// Bulk writes for import. A statement that fires a trigger writing a
// full-text table opens a statement savepoint, and FTS5 flushes what it
// holds in memory to a new segment at every savepoint: written row by row,
// each memory becomes a segment of its own, which FTS5 then spends most of
// an import merging. Written many rows per statement, a chunk of memories
// is one segment.

// bulkRows is how many rows one bulk statement writes; memoryRows, how
// many memories (34 columns each: just under SQLite's 32,766 variables).
const (
	bulkRows   = 256
	memoryRows = 960
)

// InsertMemories inserts ms as InsertMemory does, many rows per statement.
func InsertMemories(ctx context.Context, q Querier, ms []*Memory) error {
	for start := 0; start < len(ms); start += memoryRows {
		part := ms[start:min(start+memoryRows, len(ms))]
		var sb strings.Builder
		sb.WriteString(insertMemoryHead)
		args := make([]any, 0, len(part)*34)
		for i, m := range part {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(insertMemoryRow)
			args = append(args, memoryArgs(m)...)
		}
		if _, err := q.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// HintRow is one heuristic hint of a memory.
type HintRow struct{ MemoryID, Hint string }

// InsertHeuristicHints adds heuristic hints to memories that have none
// yet (new ones), many rows per statement.
func InsertHeuristicHints(ctx context.Context, q Querier, hints []HintRow, now string) error {
	for start := 0; start < len(hints); start += 4 * bulkRows {
		part := hints[start:min(start+4*bulkRows, len(hints))]
		var sb strings.Builder
		sb.WriteString(`INSERT INTO memory_hints (memory_id, hint, source, created_at) VALUES `)
		args := make([]any, 0, len(part)*3)
		for i, h := range part {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`(?, ?, 'heuristic', ?)`)
			args = append(args, h.MemoryID, h.Hint, now)
		}
		if _, err := q.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// The columns and values of InsertMemory, for many rows per statement
// (TestInsertMemoriesAsInsertMemory keeps the two in step).
const insertMemoryHead = `INSERT INTO memories (
		id, type, category, content, normalized_content, content_hash, confidence, importance,
		source_id, source_type, tags, who, why, project, session_id, created_at, updated_at,
		updated_by, last_accessed, access_count, vector_clock, version, manual_override, pinned,
		is_deleted, deleted_at, extraction_status, embedding_model, extraction_model, update_count,
		idempotency_key, runtime_path, source_path, source_section
	) VALUES `

const insertMemoryRow = `(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

// memoryArgs are the values of insertMemoryRow for m.
func memoryArgs(m *Memory) []any {
	return []any{m.ID, m.Type, nullable(m.Category), m.Content, m.NormalizedContent, m.ContentHash, m.Confidence, m.Importance,
		nullable(m.SourceID), m.SourceType, EncodeTags(m.Tags), nullable(m.Who), nullable(m.Why), nullable(m.Project),
		nullable(m.SessionID), m.CreatedAt, m.UpdatedAt, m.UpdatedBy, nullable(m.LastAccessed), m.AccessCount,
		orDefault(m.VectorClock, "{}"), max(m.Version, 1), m.ManualOverride, m.Pinned, m.IsDeleted, nullable(m.DeletedAt),
		orDefault(m.ExtractionStatus, "none"), nullable(m.EmbeddingModel), nullable(m.ExtractionModel), m.UpdateCount,
		nullable(m.IdempotencyKey), nullable(m.RuntimePath), nullable(m.SourcePath), nullable(m.SourceSection)}
}

// MentionRow is one link of a memory to an entity.
type MentionRow struct {
	MemoryID, EntityID, Text string
	Confidence               float64
	At                       string
}

// InsertMentions writes links as LinkMention does, many per statement,
// without counting them: it returns how many new links each entity got
// (a link already present is left alone), for AddEntityMentions.
func InsertMentions(ctx context.Context, q Querier, links []MentionRow) (map[string]int, error) {
	added := map[string]int{}
	for start := 0; start < len(links); start += 4 * bulkRows {
		part := links[start:min(start+4*bulkRows, len(links))]
		var sb strings.Builder
		sb.WriteString(`INSERT OR IGNORE INTO memory_entity_mentions (memory_id, entity_id, mention_text, confidence, created_at) VALUES `)
		args := make([]any, 0, len(part)*5)
		for i, l := range part {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`(?, ?, ?, ?, ?)`)
			args = append(args, l.MemoryID, l.EntityID, l.Text, l.Confidence, l.At)
		}
		sb.WriteString(` RETURNING entity_id`)
		ids, err := Strings(ctx, q, sb.String(), args...)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			added[id]++
		}
	}
	return added, nil
}

// InsertHistories appends events as InsertHistory does, many per
// statement.
func InsertHistories(ctx context.Context, q Querier, events []*HistoryEvent) error {
	for start := 0; start < len(events); start += bulkRows {
		part := events[start:min(start+bulkRows, len(events))]
		var sb strings.Builder
		sb.WriteString(`INSERT INTO memory_history (` + historyColumns + `) VALUES `)
		args := make([]any, 0, len(part)*12)
		for i, h := range part {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`(?,?,?,?,?,?,?,?,?,?,?,?)`)
			args = append(args, h.ID, h.MemoryID, h.Event, h.OldContent, h.NewContent, h.ChangedBy, orDefault(h.ActorType, "operator"),
				nullable(h.Reason), nullable(h.Metadata), nullable(h.SessionID), nullable(h.RequestID), h.CreatedAt)
		}
		if _, err := q.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return nil
}
