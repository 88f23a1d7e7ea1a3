package docstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/cairnmem/cairn/storage"
)

// Document statuses.
const (
	DocQueued     = "queued"
	DocExtracting = "extracting"
	DocChunking   = "chunking"
	DocEmbedding  = "embedding"
	DocIndexing   = "indexing"
	DocDone       = "done"
	DocFailed     = "failed"
	DocDeleted    = "deleted"
)

// JobDocumentIngest is the job type of the document worker.
const JobDocumentIngest = "document_ingest"

// Document is one row of documents.
type Document struct {
	ID          string `json:"id"`
	SourceType  string `json:"source_type"`
	SourceURL   string `json:"source_url,omitempty"`
	Title       string `json:"title,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	Content     string `json:"content,omitempty"`
	ConnectorID string `json:"connector_id,omitempty"`
	Metadata    string `json:"-"` // JSON object text; the API renders it as JSON
	Status      string `json:"status"`
	Error       string `json:"error,omitempty"`
	ChunkCount  int    `json:"chunk_count"`
	Bytes       int64  `json:"bytes"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
	CompletedAt string `json:"completed_at,omitempty"`
}

const documentColumns = `id, source_type, source_url, title, content_type, content, connector_id, metadata,
	status, error, chunk_count, bytes, created_at, updated_at, completed_at`

// documentListColumns leaves the content out: a list of documents must not
// carry megabytes of text.
const documentListColumns = `id, source_type, source_url, title, content_type, NULL, connector_id, metadata,
	status, error, chunk_count, bytes, created_at, updated_at, completed_at`

func scanDocument(r interface{ Scan(dest ...any) error }) (*Document, error) {
	var d Document
	var url, title, ctype, content, conn, meta, errMsg, completed sql.NullString
	err := r.Scan(&d.ID, &d.SourceType, &url, &title, &ctype, &content, &conn, &meta,
		&d.Status, &errMsg, &d.ChunkCount, &d.Bytes, &d.CreatedAt, &d.UpdatedAt, &completed)
	if err != nil {
		return nil, err
	}
	d.SourceURL, d.Title, d.ContentType, d.Content = url.String, title.String, ctype.String, content.String
	d.ConnectorID, d.Metadata, d.Error, d.CompletedAt = conn.String, meta.String, errMsg.String, completed.String
	return &d, nil
}

// InsertDocument stores d as a new row.
func InsertDocument(ctx context.Context, q storage.Querier, d *Document) error {
	_, err := q.ExecContext(ctx, `INSERT INTO documents (`+documentColumns+`)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		d.ID, d.SourceType, nullable(d.SourceURL), nullable(d.Title), nullable(d.ContentType), nullable(d.Content),
		nullable(d.ConnectorID), nullable(d.Metadata), orDefault(d.Status, DocQueued), nullable(d.Error),
		d.ChunkCount, d.Bytes, d.CreatedAt, orDefault(d.UpdatedAt, d.CreatedAt), nullable(d.CompletedAt))
	if err != nil {
		return fmt.Errorf("insert document: %w", err)
	}
	return nil
}

// GetDocument returns one document with its content.
func GetDocument(ctx context.Context, q storage.Querier, id string) (*Document, error) {
	d, err := scanDocument(q.QueryRowContext(ctx, `SELECT `+documentColumns+` FROM documents WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, storage.ErrNotFound
	}
	return d, err
}

// FindLiveDocumentByURL returns the newest document with this source URL
// whose status is neither failed nor deleted, or storage.ErrNotFound.
func FindLiveDocumentByURL(ctx context.Context, q storage.Querier, url string) (*Document, error) {
	d, err := scanDocument(q.QueryRowContext(ctx, `SELECT `+documentListColumns+` FROM documents
		WHERE source_url = ? AND status NOT IN ('failed', 'deleted') ORDER BY created_at DESC, id DESC LIMIT 1`, url))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, storage.ErrNotFound
	}
	return d, err
}

// ListDocuments returns documents (without their content), newest first,
// restricted to status when given, and the total matching.
func ListDocuments(ctx context.Context, q storage.Querier, status string, limit, offset int) ([]*Document, int, error) {
	where, args := "TRUE", []any{}
	if status != "" {
		where, args = "status = ?", append(args, status)
	}
	var total int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM documents WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count documents: %w", err)
	}
	rows, err := q.QueryContext(ctx, `SELECT `+documentListColumns+` FROM documents WHERE `+where+`
		ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list documents: %w", err)
	}
	defer rows.Close()
	out := []*Document{}
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, d)
	}
	return out, total, rows.Err()
}

// SetDocumentStatus moves a document to status, recording errMsg (cleared
// when empty). Done sets completed_at. It returns storage.ErrNotFound when the
// document is missing or deleted: a deleted document is never revived.
func SetDocumentStatus(ctx context.Context, q storage.Querier, id, status, errMsg, now string) error {
	var completed any
	if status == DocDone {
		completed = now
	}
	if len(errMsg) > 2000 {
		errMsg = errMsg[:2000]
	}
	res, err := q.ExecContext(ctx, `UPDATE documents SET status = ?, error = ?, updated_at = ?,
		completed_at = COALESCE(?, completed_at) WHERE id = ? AND status != 'deleted'`,
		status, nullable(errMsg), now, completed, id)
	if err != nil {
		return fmt.Errorf("document status: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return storage.ErrNotFound
	}
	return nil
}

// SetDocumentContent records the extracted text of a document, its size
// in bytes and, when the document has none, its title and content type.
func SetDocumentContent(ctx context.Context, q storage.Querier, id, content, title, contentType, now string) error {
	_, err := q.ExecContext(ctx, `UPDATE documents SET content = ?, bytes = ?,
		title = COALESCE(NULLIF(title, ''), ?), content_type = COALESCE(NULLIF(content_type, ''), ?), updated_at = ?
		WHERE id = ?`, content, len(content), nullable(title), nullable(contentType), now, id)
	if err != nil {
		return fmt.Errorf("document content: %w", err)
	}
	return nil
}

// SetDocumentChunkCount records how many chunks a document has.
func SetDocumentChunkCount(ctx context.Context, q storage.Querier, id string, n int, now string) error {
	_, err := q.ExecContext(ctx, `UPDATE documents SET chunk_count = ?, updated_at = ? WHERE id = ?`, n, now, id)
	return err
}

// DocumentLink is one row of document_memories.
type DocumentLink struct {
	MemoryID   string
	ChunkIndex int
}

// DocumentLinks returns a document's chunk links in chunk order.
func DocumentLinks(ctx context.Context, q storage.Querier, docID string) ([]DocumentLink, error) {
	rows, err := q.QueryContext(ctx, `SELECT memory_id, chunk_index FROM document_memories
		WHERE document_id = ? ORDER BY chunk_index`, docID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DocumentLink
	for rows.Next() {
		var l DocumentLink
		if err := rows.Scan(&l.MemoryID, &l.ChunkIndex); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// LinkDocumentChunk links chunk index of a document to a memory, replacing
// any earlier link of that index.
func LinkDocumentChunk(ctx context.Context, q storage.Querier, docID, memoryID string, index int) error {
	_, err := q.ExecContext(ctx, `INSERT INTO document_memories (document_id, memory_id, chunk_index) VALUES (?, ?, ?)
		ON CONFLICT (document_id, chunk_index) DO UPDATE SET memory_id = excluded.memory_id`, docID, memoryID, index)
	if err != nil {
		return fmt.Errorf("link chunk %d: %w", index, err)
	}
	return nil
}

// UnlinkDocumentChunksFrom removes a document's links at chunk index from
// and above (left over from an earlier run that produced more chunks), and
// returns the memory ids they pointed to.
func UnlinkDocumentChunksFrom(ctx context.Context, q storage.Querier, docID string, from int) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT memory_id FROM document_memories WHERE document_id = ? AND chunk_index >= ?`, docID, from)
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM document_memories WHERE document_id = ? AND chunk_index >= ?`, docID, from); err != nil {
		return nil, err
	}
	return ids, nil
}

// MemoryLinkedElsewhere reports whether memoryID is linked to a document
// other than docID that is not deleted.
func MemoryLinkedElsewhere(ctx context.Context, q storage.Querier, memoryID, docID string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM document_memories dm JOIN documents d ON d.id = dm.document_id
		WHERE dm.memory_id = ? AND dm.document_id != ? AND d.status != 'deleted' LIMIT 1`, memoryID, docID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// EnqueueDocumentJob inserts a pending document_ingest job for docID.
func EnqueueDocumentJob(ctx context.Context, q storage.Querier, id, docID string, maxAttempts int, now string) error {
	if maxAttempts < 1 {
		maxAttempts = 3
	}
	_, err := q.ExecContext(ctx, `INSERT INTO memory_jobs
		(id, document_id, job_type, status, attempts, max_attempts, created_at, updated_at)
		VALUES (?, ?, ?, 'pending', 0, ?, ?, ?)`, id, docID, JobDocumentIngest, maxAttempts, now, now)
	if err != nil {
		return fmt.Errorf("enqueue %s job: %w", JobDocumentIngest, err)
	}
	return nil
}

// FailOrphanedDocuments marks failed the unfinished documents whose ingest
// job died without the worker recording it (the reaper killed a lease on
// its last attempt). It returns how many it marked.
func FailOrphanedDocuments(ctx context.Context, q storage.Querier, now string) (int64, error) {
	res, err := q.ExecContext(ctx, `UPDATE documents SET status = 'failed', updated_at = ?,
		error = COALESCE((SELECT j.error FROM memory_jobs j WHERE j.document_id = documents.id AND j.job_type = ?
			AND j.status = 'dead' ORDER BY j.updated_at DESC LIMIT 1), 'ingest job died')
		WHERE status IN ('queued', 'extracting', 'chunking', 'embedding', 'indexing')
		AND EXISTS (SELECT 1 FROM memory_jobs j WHERE j.document_id = documents.id AND j.job_type = ? AND j.status = 'dead')
		AND NOT EXISTS (SELECT 1 FROM memory_jobs j WHERE j.document_id = documents.id AND j.job_type = ?
			AND j.status IN ('pending', 'leased'))`, now, JobDocumentIngest, JobDocumentIngest, JobDocumentIngest)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// DocumentChunk is a live chunk memory of a document.
type DocumentChunk struct {
	MemoryID   string
	Content    string
	Type       string
	CreatedAt  string
	ChunkIndex int
}

// DocumentChunks returns a document's live chunk memories in chunk order.
func DocumentChunks(ctx context.Context, q storage.Querier, docID string) ([]DocumentChunk, error) {
	rows, err := q.QueryContext(ctx, `SELECT m.id, m.content, m.type, m.created_at, dm.chunk_index
		FROM document_memories dm JOIN memories m ON m.id = dm.memory_id
		WHERE dm.document_id = ? AND m.is_deleted = 0 ORDER BY dm.chunk_index`, docID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DocumentChunk
	for rows.Next() {
		var c DocumentChunk
		if err := rows.Scan(&c.MemoryID, &c.Content, &c.Type, &c.CreatedAt, &c.ChunkIndex); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// nullable stores an empty string as NULL.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
