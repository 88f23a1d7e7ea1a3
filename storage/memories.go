package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cairnmem/cairn/storage/seam"
	"strings"

	"github.com/cairnmem/cairn/storage/dialect"
)

// Querier runs the query functions' statements: a *Tx inside a write
// transaction, or the *Reader of DB.Reader, so a read helper works on
// either. It is the seam's read and write interface (doc.go).
type Querier = seam.Querier

// Sentinel errors of the query functions.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
)

// Memory is one row of the memories table.
type Memory struct {
	ID               string
	Type             string
	Category         string
	Content          string
	ContentHash      string
	Confidence       float64
	Importance       float64
	SourceID         string
	SourceType       string
	Tags             []string
	Who              string
	Why              string
	Project          string
	SessionID        string
	CreatedAt        string
	UpdatedAt        string
	UpdatedBy        string
	LastAccessed     string
	AccessCount      int64
	VectorClock      string
	Version          int64
	ManualOverride   bool
	Pinned           bool
	IsDeleted        bool
	DeletedAt        string
	ExtractionStatus string
	EmbeddingModel   string
	ExtractionModel  string
	UpdateCount      int64
	IdempotencyKey   string
	RuntimePath      string
	SourcePath       string
	SourceSection    string
	// ContextRID is the row id of the memory stated just before this one
	// in its session, whose content the full-text index holds as this
	// memory's context (0: none). It is written on insert only.
	ContextRID int64
	// ReinforcedCount and LastConfirmedAt are read only (the write path
	// keeps them with their own statements): how often the memory was
	// stated again, and when last.
	ReinforcedCount int64
	LastConfirmedAt string
	// Scope is "" (the project's), "user" or "agent"; read only (the
	// write path sets it with its own statement).
	Scope string
}

// memoryColumns lists the columns scanned by scanMemory, in order.
const memoryColumns = `m.id, m.type, m.category, m.content, m.content_hash,
	m.confidence, m.importance, m.source_id, m.source_type, m.tags, m.who, m.why, m.project,
	m.session_id, m.created_at, m.updated_at, m.updated_by, m.last_accessed, m.access_count,
	m.vector_clock, m.version, m.manual_override, m.pinned, m.is_deleted, m.deleted_at,
	m.extraction_status, m.embedding_model, m.extraction_model, m.update_count,
	m.idempotency_key, m.runtime_path, m.source_path, m.source_section,
	m.reinforced_count, COALESCE(m.last_confirmed_at, ''), COALESCE(m.context_rid, 0), COALESCE(m.scope, '')`

// MemoryColumns is the select list for a memories row aliased as m; use it
// with ScanMemory when a query joins other tables.
const MemoryColumns = memoryColumns

type rowScanner interface{ Scan(dest ...any) error }

// ScanMemory scans one row selected with [MemoryColumns].
func ScanMemory(r rowScanner) (*Memory, error) {
	var m Memory
	var category, sourceID, who, why, project, sessionID, lastAccessed, deletedAt sql.NullString
	var embeddingModel, extractionModel, idem, runtimePath, sourcePath, sourceSection sql.NullString
	var tags string
	err := r.Scan(&m.ID, &m.Type, &category, &m.Content, hashCol{&m.ContentHash},
		&m.Confidence, &m.Importance, &sourceID, &m.SourceType, &tags, &who, &why, &project,
		&sessionID, &m.CreatedAt, &m.UpdatedAt, &m.UpdatedBy, &lastAccessed, &m.AccessCount,
		&m.VectorClock, &m.Version, &m.ManualOverride, &m.Pinned, &m.IsDeleted, &deletedAt,
		&m.ExtractionStatus, &embeddingModel, &extractionModel, &m.UpdateCount,
		&idem, &runtimePath, &sourcePath, &sourceSection,
		&m.ReinforcedCount, &m.LastConfirmedAt, &m.ContextRID, &m.Scope)
	if err != nil {
		return nil, err
	}
	m.Category, m.SourceID, m.Who, m.Why = category.String, sourceID.String, who.String, why.String
	m.Project, m.SessionID, m.LastAccessed, m.DeletedAt = project.String, sessionID.String, lastAccessed.String, deletedAt.String
	m.EmbeddingModel, m.ExtractionModel, m.IdempotencyKey = embeddingModel.String, extractionModel.String, idem.String
	m.RuntimePath, m.SourcePath, m.SourceSection = runtimePath.String, sourcePath.String, sourceSection.String
	m.Tags = DecodeTags(tags)
	return &m, nil
}

// EncodeTags renders tags as the JSON array stored in memories.tags.
func EncodeTags(tags []string) string {
	if len(tags) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(tags)
	return string(b)
}

// DecodeTags reads memories.tags. Besides JSON arrays it accepts the
// comma-separated strings of databases imported from Signet.
func DecodeTags(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" || s == "[]" || s == "null" {
		return []string{}
	}
	var out []string
	if strings.HasPrefix(s, "[") && json.Unmarshal([]byte(s), &out) == nil {
		return out
	}
	out = []string{}
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// InsertMemory inserts m as a new row.
func InsertMemory(ctx context.Context, q Querier, m *Memory) error {
	_, err := q.ExecContext(ctx, `INSERT INTO memories (
		id, type, category, content, content_hash, confidence, importance,
		source_id, source_type, tags, who, why, project, session_id, created_at, updated_at,
		updated_by, last_accessed, access_count, vector_clock, version, manual_override, pinned,
		is_deleted, deleted_at, extraction_status, embedding_model, extraction_model, update_count,
		idempotency_key, runtime_path, source_path, source_section, context_rid
	) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		m.ID, m.Type, nullable(m.Category), m.Content, hashArg(q, m.ContentHash), m.Confidence, m.Importance,
		nullable(m.SourceID), m.SourceType, EncodeTags(m.Tags), nullable(m.Who), nullable(m.Why), nullable(m.Project),
		nullable(m.SessionID), m.CreatedAt, m.UpdatedAt, m.UpdatedBy, nullable(m.LastAccessed), m.AccessCount,
		orDefault(m.VectorClock, "{}"), max(m.Version, 1), m.ManualOverride, m.Pinned, m.IsDeleted, nullable(m.DeletedAt),
		orDefault(m.ExtractionStatus, "none"), nullable(m.EmbeddingModel), nullable(m.ExtractionModel), m.UpdateCount,
		nullable(m.IdempotencyKey), nullable(m.RuntimePath), nullable(m.SourcePath), nullable(m.SourceSection),
		nullableRID(m.ContextRID))
	return err
}

func nullableRID(rid int64) any {
	if rid <= 0 {
		return nil
	}
	return rid
}

// SessionPredecessor returns the row id of the newest live memory of
// session in project (0 when there is none): the context a memory stated
// next in that session is indexed with.
func SessionPredecessor(ctx context.Context, q Querier, project, session string) (int64, error) {
	if session == "" {
		return 0, nil
	}
	var rid int64
	err := q.QueryRowContext(ctx, `SELECT rid FROM memories
		WHERE session_id = ? AND COALESCE(project, '') = ? AND is_deleted = 0 AND source_type != 'chunk'
		ORDER BY rid DESC LIMIT 1`, session, project).Scan(&rid)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return rid, err
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// UpdateMemory writes every mutable field of m back to its row.
func UpdateMemory(ctx context.Context, q Querier, m *Memory) error {
	res, err := q.ExecContext(ctx, `UPDATE memories SET
		type = ?, category = ?, content = ?, content_hash = ?, confidence = ?,
		importance = ?, source_id = ?, source_type = ?, tags = ?, who = ?, why = ?, project = ?,
		session_id = ?, updated_at = ?, updated_by = ?, version = ?, manual_override = ?, pinned = ?,
		is_deleted = ?, deleted_at = ?, extraction_status = ?, embedding_model = ?, extraction_model = ?,
		update_count = ?
		WHERE id = ?`,
		m.Type, nullable(m.Category), m.Content, hashArg(q, m.ContentHash), m.Confidence,
		m.Importance, nullable(m.SourceID), m.SourceType, EncodeTags(m.Tags), nullable(m.Who), nullable(m.Why), nullable(m.Project),
		nullable(m.SessionID), m.UpdatedAt, m.UpdatedBy, m.Version, m.ManualOverride, m.Pinned,
		m.IsDeleted, nullable(m.DeletedAt), m.ExtractionStatus, nullable(m.EmbeddingModel), nullable(m.ExtractionModel),
		m.UpdateCount, m.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// GetMemory reads one memory by id, deleted or not.
func GetMemory(ctx context.Context, q Querier, id string) (*Memory, error) {
	m, err := ScanMemory(q.QueryRowContext(ctx, `SELECT `+memoryColumns+` FROM memories m WHERE m.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return m, err
}

// FindLiveByHash returns the live memory with this content hash in project,
// or ErrNotFound.
func FindLiveByHash(ctx context.Context, q Querier, hash, project string) (*Memory, error) {
	m, err := ScanMemory(q.QueryRowContext(ctx, `SELECT `+memoryColumns+` FROM memories m
		WHERE m.content_hash = ? AND COALESCE(m.project, '') = ? AND m.is_deleted = 0`, hashArg(q, hash), project))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return m, err
}

// FindLiveBySource returns the live memory with this (source_type, source_id),
// or ErrNotFound.
func FindLiveBySource(ctx context.Context, q Querier, sourceType, sourceID string) (*Memory, error) {
	m, err := ScanMemory(q.QueryRowContext(ctx, `SELECT `+memoryColumns+` FROM memories m
		WHERE m.source_type = ? AND m.source_id = ? AND m.is_deleted = 0
		ORDER BY m.created_at LIMIT 1`, sourceType, sourceID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return m, err
}

// MemoryFilter selects memories for listing, export and batch operations.
// Zero values mean "no constraint".
type MemoryFilter struct {
	IDs           []string
	Type          string
	Tags          []string // every tag must be present
	Who           string
	Project       string
	SourceType    string
	Pinned        *bool
	ImportanceMin *float64
	Since, Until  string // created_at bounds, inclusive, in TimeLayout
	// Scope: "" any, "project" the project scope (memories of no user or
	// agent scope), "user" or "agent".
	Scope          string
	IncludeDeleted bool
	OnlyDeleted    bool
}

// hasTag holds when tag ? is among m's tags, in any case.
var hasTag = dialect.Fragment{"EXISTS (SELECT 1 FROM json_each(m.tags) WHERE lower(json_each.value) = lower(?))",
	"EXISTS (SELECT 1 FROM jsonb_array_elements_text(m.tags::jsonb) t WHERE lower(t.value) = lower(?))"}

// Where renders the filter as a SQL condition on alias m plus its arguments.
func (f MemoryFilter) Where(d dialect.Dialect) (string, []any) {
	var conds []string
	var args []any
	switch {
	case f.OnlyDeleted:
		conds = append(conds, "m.is_deleted = 1")
	case !f.IncludeDeleted:
		conds = append(conds, "m.is_deleted = 0")
	}
	if len(f.IDs) > 0 {
		conds = append(conds, "m.id IN ("+placeholders(len(f.IDs))+")")
		for _, id := range f.IDs {
			args = append(args, id)
		}
	}
	switch f.Scope {
	case "":
	case "project":
		conds = append(conds, "m.scope IS NULL")
	default:
		conds = append(conds, "m.scope = ?")
		args = append(args, f.Scope)
	}
	if f.Type != "" {
		conds = append(conds, "m.type = ?")
		args = append(args, f.Type)
	}
	for _, t := range f.Tags {
		conds = append(conds, hasTag.In(d))
		args = append(args, t)
	}
	if f.Who != "" {
		conds = append(conds, "m.who = ?")
		args = append(args, f.Who)
	}
	if f.Project != "" {
		conds = append(conds, "m.project = ?")
		args = append(args, f.Project)
	}
	if f.SourceType != "" {
		conds = append(conds, "m.source_type = ?")
		args = append(args, f.SourceType)
	}
	if f.Pinned != nil {
		conds = append(conds, "m.pinned = ?")
		args = append(args, *f.Pinned)
	}
	if f.ImportanceMin != nil {
		conds = append(conds, "m.importance >= ?")
		args = append(args, *f.ImportanceMin)
	}
	if f.Since != "" {
		conds = append(conds, "m.created_at >= ?")
		args = append(args, f.Since)
	}
	if f.Until != "" {
		conds = append(conds, "m.created_at <= ?")
		args = append(args, f.Until)
	}
	if len(conds) == 0 {
		return "TRUE", nil
	}
	return strings.Join(conds, " AND "), args
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// ListMemories returns memories matching f, newest first, with paging.
func ListMemories(ctx context.Context, q Querier, f MemoryFilter, limit, offset int) ([]*Memory, error) {
	where, args := f.Where(dialect.Of(q))
	args = append(args, limit, offset)
	rows, err := q.QueryContext(ctx, `SELECT `+memoryColumns+` FROM memories m WHERE `+where+`
		ORDER BY m.created_at DESC, m.rid DESC LIMIT ? OFFSET ?`, args...)
	if err != nil {
		return nil, err
	}
	return collectMemories(rows)
}

// CountMemories counts memories matching f.
func CountMemories(ctx context.Context, q Querier, f MemoryFilter) (int, error) {
	where, args := f.Where(dialect.Of(q))
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM memories m WHERE `+where, args...).Scan(&n)
	return n, err
}

// CountByProject counts memories matching f in each project ("" for
// memories of no project).
func CountByProject(ctx context.Context, q Querier, f MemoryFilter) (map[string]int, error) {
	where, args := f.Where(dialect.Of(q))
	rows, err := q.QueryContext(ctx, `SELECT coalesce(m.project, ''), count(*) FROM memories m WHERE `+where+` GROUP BY 1`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var p string
		var n int
		if err := rows.Scan(&p, &n); err != nil {
			return nil, err
		}
		out[p] = n
	}
	return out, rows.Err()
}

// EachMemory calls fn for every memory matching f in creation order, reading
// in pages so that a large export never holds one long read transaction.
func EachMemory(ctx context.Context, q Querier, f MemoryFilter, fn func(*Memory) error) error {
	where, args := f.Where(dialect.Of(q))
	const page = 500
	lastRID := int64(0)
	for {
		rows, err := q.QueryContext(ctx, `SELECT m.rid, `+memoryColumns+` FROM memories m
			WHERE `+where+` AND m.rid > ? ORDER BY m.rid LIMIT ?`, append(append([]any{}, args...), lastRID, page)...)
		if err != nil {
			return err
		}
		var batch []*Memory
		for rows.Next() {
			m, err := ScanMemory(ridScanner{rows, &lastRID})
			if err != nil {
				rows.Close()
				return err
			}
			batch = append(batch, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, m := range batch {
			if err := fn(m); err != nil {
				return err
			}
		}
		if len(batch) < page {
			return nil
		}
	}
}

// ridScanner prepends the rid column to a ScanMemory scan.
type ridScanner struct {
	rows *sql.Rows
	rid  *int64
}

func (r ridScanner) Scan(dest ...any) error {
	return r.rows.Scan(append([]any{r.rid}, dest...)...)
}

func collectMemories(rows *sql.Rows) ([]*Memory, error) {
	defer rows.Close()
	out := []*Memory{}
	for rows.Next() {
		m, err := ScanMemory(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// MemoryStats are the counts shown beside a memory list.
type MemoryStats struct {
	Total          int `json:"total"`
	WithEmbeddings int `json:"withEmbeddings"`
	Critical       int `json:"critical"`
	Deleted        int `json:"deleted"`
}

// Stats counts live memories, those with an embedding, those with
// importance ≥ 0.9, and tombstones.
func Stats(ctx context.Context, q Querier) (MemoryStats, error) {
	var s MemoryStats
	err := q.QueryRowContext(ctx, `SELECT
		count(*) FILTER (WHERE is_deleted = 0),
		count(*) FILTER (WHERE is_deleted = 0 AND embedding_model IS NOT NULL),
		count(*) FILTER (WHERE is_deleted = 0 AND importance >= 0.9),
		count(*) FILTER (WHERE is_deleted = 1)
		FROM memories`).Scan(&s.Total, &s.WithEmbeddings, &s.Critical, &s.Deleted)
	if err != nil {
		return s, fmt.Errorf("memory stats: %w", err)
	}
	return s, nil
}

// FindLiveByIdempotencyKey returns the live memory holding idempotency
// key, or ErrNotFound.
func FindLiveByIdempotencyKey(ctx context.Context, q Querier, key string) (*Memory, error) {
	m, err := ScanMemory(q.QueryRowContext(ctx, `SELECT `+memoryColumns+` FROM memories m
		WHERE m.idempotency_key = ? AND m.is_deleted = 0`, key))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return m, err
}

// ChunkGroupIDs returns the ids of the live memories of chunk group
// groupID (source_type 'chunk', source_id groupID), in insertion order.
func ChunkGroupIDs(ctx context.Context, q Querier, groupID string) ([]string, error) {
	return Strings(ctx, q, `SELECT id FROM memories WHERE source_type = 'chunk' AND source_id = ? AND is_deleted = 0 ORDER BY rid`, groupID)
}

// ListMemoriesByRank returns up to limit memories matching f, pinned
// first, then by importance, then most recently updated.
func ListMemoriesByRank(ctx context.Context, q Querier, f MemoryFilter, limit int) ([]*Memory, error) {
	where, args := f.Where(dialect.Of(q))
	rows, err := q.QueryContext(ctx, `SELECT `+memoryColumns+` FROM memories m WHERE `+where+`
		ORDER BY m.pinned DESC, m.importance DESC, m.updated_at DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	return collectMemories(rows)
}

// MarkExtracted records that memory id's facts were extracted by model.
func MarkExtracted(ctx context.Context, q Querier, id, model string) error {
	_, err := q.ExecContext(ctx, `UPDATE memories SET extraction_status = 'completed', extraction_model = ? WHERE id = ?`, model, id)
	return err
}

// RecordAccess records that memories ids were read now: last_accessed and
// access_count only, which neither bumps the version nor re-indexes FTS.
func RecordAccess(ctx context.Context, q Querier, now string, ids []string) error {
	args := make([]any, 0, len(ids)+1)
	args = append(args, now)
	for _, id := range ids {
		args = append(args, id)
	}
	_, err := q.ExecContext(ctx, `UPDATE memories SET last_accessed = ?, access_count = access_count + 1
		WHERE id IN (`+placeholders(len(ids))+`)`, args...)
	return err
}
