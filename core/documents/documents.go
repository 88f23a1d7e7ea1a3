package documents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage/docstore"

	"github.com/cairnmem/cairn/core/fetch"
	"github.com/cairnmem/cairn/core/vectors"

	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// Documents (docs/design/pipeline.md, "Document ingest"): a long
// text or a web page is registered, then the document worker extracts its
// text, cuts it into overlapping windows and stores each window as a
// memory of type document_chunk, linked to the document by its position.
// Every status transition is its own short transaction; no fetch or
// embedding call runs inside one.

// JobDocumentIngest is the job type of the document worker.
const JobDocumentIngest = docstore.JobDocumentIngest

// Document chunk memories.
const (
	DocumentChunkType       = "document_chunk"
	documentChunkImportance = 0.3
	documentSourceType      = "document"
	documentWhy             = "document_ingest"
	documentIndexBatch      = 64 // chunks written per transaction
)

var documentActor = core.Actor{Name: "document-worker", Type: core.ActorDaemon}

// ErrDocumentNotFound is the 404 of the documents API.
var ErrDocumentNotFound = &core.Error{Code: core.CodeNotFound, Message: "Document not found"}

// DocumentInput is a request to register a document.
type DocumentInput struct {
	SourceType  string
	Content     string
	URL         string
	Title       string
	ContentType string
	ConnectorID string
	// Metadata is a JSON object (or empty).
	Metadata json.RawMessage
}

// CreateDocumentResult is what POST /api/documents answers.
type CreateDocumentResult struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	JobID        string `json:"jobId,omitempty"`
	Deduplicated bool   `json:"deduplicated,omitempty"`
}

// Document is a document as the API shows it.
type Document struct {
	docstore.Document
	Metadata json.RawMessage `json:"metadata"`
}

func documentView(d *docstore.Document) *Document {
	v := &Document{Document: *d, Metadata: json.RawMessage("{}")}
	if d.Metadata != "" && json.Valid([]byte(d.Metadata)) {
		v.Metadata = json.RawMessage(d.Metadata)
	}
	return v
}

// validateDocument checks a document request without touching the store.
func (s *Documents) validateDocument(in *DocumentInput) *core.Error {
	in.SourceType = strings.TrimSpace(in.SourceType)
	switch in.SourceType {
	case "text", "url", "file":
	default:
		return core.Invalid("source_type", "source_type must be text, url, or file")
	}
	for _, f := range []struct{ name, v string }{{"content", in.Content}, {"url", in.URL}, {"title", in.Title},
		{"content_type", in.ContentType}, {"connector_id", in.ConnectorID}} {
		if !utf8.ValidString(f.v) {
			return core.Invalid(f.name, "%s is not valid UTF-8", f.name)
		}
	}
	in.URL = strings.TrimSpace(in.URL)
	hasContent := strings.TrimFunc(in.Content, text.IsSpace) != ""
	switch in.SourceType {
	case "text", "file":
		if !hasContent {
			return core.Invalid("content", "content is required for %s source_type", in.SourceType)
		}
	case "url":
		if in.URL == "" {
			return core.Invalid("url", "url is required for url source_type")
		}
		if _, err := fetch.ValidateURL(in.URL, s.svc.Config().Documents.AllowPrivateFetch); err != nil {
			msg := err.Error()
			if strings.HasPrefix(msg, "only http") || strings.HasPrefix(msg, "the URL has no host") || strings.HasPrefix(msg, "url is not") {
				msg = "url must be an http or https URL with a host"
			}
			return core.Invalid("url", "%s", msg)
		}
		if hasContent {
			return core.Invalid("content", "content must be empty for url source_type (the page is fetched)")
		}
	}
	if max := s.svc.Config().Documents.MaxContentBytes; int64(len(in.Content)) > max {
		return &core.Error{Code: core.CodeTooLarge,
			Message: fmt.Sprintf("content is %d bytes; the limit is %d (documents.max_content_bytes)", len(in.Content), max),
			Extra:   map[string]any{"field": "content"}}
	}
	// A chunk starts at most chunk_size - chunk_overlap characters after
	// the last: text that cannot fit in documents.max_chunks is refused
	// now, not after the worker cut it.
	if dc := s.svc.Config().Documents; in.Content != "" && dc.ChunkSize > dc.ChunkOverlap {
		if n := (utf8.RuneCountInString(in.Content) - dc.ChunkOverlap) / (dc.ChunkSize - dc.ChunkOverlap); n > dc.MaxChunks {
			return &core.Error{Code: core.CodeTooLarge,
				Message: fmt.Sprintf("content needs more than %d chunks; at most %d are stored (documents.max_chunks): split it", n, dc.MaxChunks),
				Extra:   map[string]any{"field": "content"}}
		}
	}
	// The title is cleaned (it becomes a tag); these identify.
	if e := core.CheckIdentifiers(nil, "content_type", in.ContentType, "connector_id", in.ConnectorID); e != nil {
		return e
	}
	if len(in.Title) > 1000 {
		return core.Invalid("title", "title must be at most 1000 bytes")
	}
	if len(in.URL) > 8192 {
		return core.Invalid("url", "url must be at most 8192 bytes")
	}
	if len(in.Metadata) > 0 {
		m := strings.TrimSpace(string(in.Metadata))
		if m == "null" {
			in.Metadata = nil
		} else if !strings.HasPrefix(m, "{") || !json.Valid(in.Metadata) {
			return core.Invalid("metadata", "metadata must be a JSON object")
		}
	}
	return nil
}

// CreateDocument registers a document and queues its ingest job, both in
// one transaction. A URL already registered by a document that is neither
// failed nor deleted returns that document, marked deduplicated.
func (s *Documents) CreateDocument(ctx context.Context, in DocumentInput) (*CreateDocumentResult, error) {
	if err := s.svc.CheckFrozen(); err != nil {
		return nil, err
	}
	if e := s.validateDocument(&in); e != nil {
		return nil, e
	}
	now := s.svc.Timestamp()
	// ValidateURL refused a URL with a credential; RedactURL keeps that
	// true should the two rules ever part (a row never holds one).
	d := &docstore.Document{
		ID: core.NewID(), SourceType: in.SourceType, SourceURL: text.RedactURL(in.URL), Title: s.svc.Redactor().Field(text.CleanLine(in.Title)),
		ContentType: strings.TrimSpace(in.ContentType), ConnectorID: strings.TrimSpace(in.ConnectorID),
		Status: docstore.DocQueued, CreatedAt: now, UpdatedAt: now,
	}
	if in.Content != "" {
		d.Content = s.svc.Redact(in.Content) // secrets never reach the store
		d.Bytes = int64(len(d.Content))
	}
	if len(in.Metadata) > 0 {
		var compact bytes.Buffer
		if err := json.Compact(&compact, s.svc.Redactor().JSON(in.Metadata)); err != nil {
			return nil, core.Invalid("metadata", "metadata must be a JSON object")
		}
		d.Metadata = compact.String()
	}
	res := &CreateDocumentResult{}
	err := s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		if d.SourceURL != "" {
			prev, err := docstore.FindLiveDocumentByURL(ctx, tx, d.SourceURL)
			if err == nil {
				*res = CreateDocumentResult{ID: prev.ID, Status: prev.Status, Deduplicated: true}
				return nil
			} else if !errors.Is(err, storage.ErrNotFound) {
				return err
			}
		}
		if err := docstore.InsertDocument(ctx, tx, d); err != nil {
			return err
		}
		jobID := core.NewID()
		if err := docstore.EnqueueDocumentJob(ctx, tx, jobID, d.ID, s.svc.Config().PipelineV2.MaxAttempts, now); err != nil {
			return err
		}
		*res = CreateDocumentResult{ID: d.ID, Status: docstore.DocQueued, JobID: jobID}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// documentStatuses are the values of documents.status.
var documentStatuses = []string{docstore.DocQueued, docstore.DocExtracting, docstore.DocChunking, docstore.DocEmbedding,
	docstore.DocIndexing, docstore.DocDone, docstore.DocFailed, docstore.DocDeleted}

// DocumentList is one page of documents.
type DocumentList struct {
	Documents []*Document `json:"documents"`
	Total     int         `json:"total"`
	Limit     int         `json:"limit"`
	Offset    int         `json:"offset"`
}

// ListDocuments returns documents newest first, without their content.
// Limit is clamped to 1..500 (0 means 50).
func (s *Documents) ListDocuments(ctx context.Context, status string, limit, offset int) (*DocumentList, error) {
	status = strings.TrimSpace(status)
	if status != "" && !containsStr(documentStatuses, status) {
		return nil, core.Invalid("status", "status must be one of %s", strings.Join(documentStatuses, ", "))
	}
	if limit < 0 {
		return nil, core.Invalid("limit", "limit must be a positive integer")
	}
	if offset < 0 {
		return nil, core.Invalid("offset", "offset must be a non-negative integer")
	}
	if limit == 0 {
		limit = 50
	}
	limit = min(limit, 500)
	docs, total, err := docstore.ListDocuments(ctx, s.svc.DB().Reader(), status, limit, offset)
	if err != nil {
		return nil, err
	}
	out := &DocumentList{Documents: make([]*Document, len(docs)), Total: total, Limit: limit, Offset: offset}
	for i, d := range docs {
		out.Documents[i] = documentView(d)
	}
	return out, nil
}

func containsStr(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// GetDocument returns one document with its content.
func (s *Documents) GetDocument(ctx context.Context, id string) (*Document, error) {
	d, err := docstore.GetDocument(ctx, s.svc.DB().Reader(), id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, ErrDocumentNotFound
	} else if err != nil {
		return nil, err
	}
	return documentView(d), nil
}

// DocumentChunk is one live chunk memory of a document.
type DocumentChunk struct {
	ID         string `json:"id"`
	Content    string `json:"content"`
	Type       string `json:"type"`
	CreatedAt  string `json:"created_at"`
	ChunkIndex int    `json:"chunk_index"`
}

// DocumentChunks returns a document's live chunk memories in order.
func (s *Documents) DocumentChunks(ctx context.Context, id string) ([]*DocumentChunk, error) {
	r := s.svc.DB().Reader()
	if _, err := docstore.GetDocument(ctx, r, id); errors.Is(err, storage.ErrNotFound) {
		return nil, ErrDocumentNotFound
	} else if err != nil {
		return nil, err
	}
	chunks, err := docstore.DocumentChunks(ctx, r, id)
	if err != nil {
		return nil, err
	}
	out := make([]*DocumentChunk, 0, len(chunks))
	for _, c := range chunks {
		out = append(out, &DocumentChunk{ID: c.MemoryID, Content: c.Content, Type: c.Type, CreatedAt: c.CreatedAt, ChunkIndex: c.ChunkIndex})
	}
	return out, nil
}

// DeleteDocumentResult is what DELETE /api/documents/{id} answers.
type DeleteDocumentResult struct {
	Deleted         bool `json:"deleted"`
	MemoriesRemoved int  `json:"memoriesRemoved"`
}

// DeleteDocument soft-deletes a document's chunk memories through the
// one soft-delete path (history reason "Document deleted: <reason>") and
// marks the document deleted with the reason as its error, in one
// transaction. A chunk memory another live document also links to is
// kept, and so is a memory that is not a document chunk (a chunk that
// Deduplicated onto an existing memory).
func (s *Documents) DeleteDocument(ctx context.Context, id, reason string, actor core.Actor) (*DeleteDocumentResult, error) {
	if err := s.svc.CheckFrozen(); err != nil {
		return nil, err
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, core.Invalid("reason", "reason is required")
	}
	if !utf8.ValidString(reason) {
		return nil, core.Invalid("reason", "reason is not valid UTF-8")
	}
	actor = actor.Normalized()
	var removed []string
	err := s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		removed = removed[:0]
		d, err := docstore.GetDocument(ctx, tx, id)
		if errors.Is(err, storage.ErrNotFound) {
			return ErrDocumentNotFound
		} else if err != nil {
			return err
		}
		if d.Status == docstore.DocDeleted {
			return &core.Error{Code: core.CodeAlreadyDeleted, Message: "Document is already deleted"}
		}
		now := s.svc.Timestamp()
		if err := docstore.SetDocumentStatus(ctx, tx, id, docstore.DocDeleted, reason, now); err != nil {
			return err
		}
		links, err := docstore.DocumentLinks(ctx, tx, id)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, l := range links {
			if seen[l.MemoryID] {
				continue
			}
			seen[l.MemoryID] = true
			ok, err := s.removeChunkMemory(ctx, tx, l.MemoryID, id, "Document deleted: "+reason, actor)
			if err != nil {
				return err
			}
			if ok {
				removed = append(removed, l.MemoryID)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.vec.SyncVectors(ctx, removed...)
	for _, mid := range removed {
		s.svc.Publish(core.Event{Kind: core.EventDeleted, MemoryID: mid, Actor: actor.Name})
	}
	return &DeleteDocumentResult{Deleted: true, MemoriesRemoved: len(removed)}, nil
}

// removeChunkMemory soft-deletes memoryID through forgetTx when it is a
// live document chunk that no other live document links to. It reports
// whether it deleted it.
func (s *Documents) removeChunkMemory(ctx context.Context, tx storage.Tx, memoryID, docID, reason string, actor core.Actor) (bool, error) {
	m, err := storage.GetMemory(ctx, tx, memoryID)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if m.IsDeleted || m.Type != DocumentChunkType || m.SourceType != documentSourceType {
		return false, nil
	}
	elsewhere, err := docstore.MemoryLinkedElsewhere(ctx, tx, memoryID, docID)
	if err != nil || elsewhere {
		return false, err
	}
	res, ferr := s.svc.ForgetTx(ctx, tx, core.ForgetInput{ID: memoryID, Reason: reason, Force: true}, actor)
	if res == nil {
		return false, ferr
	}
	return res.Status == core.StatusDeleted, nil
}

// Documents ingests documents (text or a fetched URL) into memories: each is
// chunked, and every chunk is written through the Service's one write path
// as a memory linked to its document. One Documents serves a Service: the
// composition root (core/app) builds it.
type Documents struct {
	svc *core.Service
	vec *vectors.Vectors
}

// New returns the Documents of svc, whose chunks vec embeds.
func New(svc *core.Service, vec *vectors.Vectors) *Documents { return &Documents{svc: svc, vec: vec} }

// RedactStoredURLs removes the credentials a document's stored source URL
// or error holds (text.RedactURL; rows written before cairn stopped
// storing them) and returns how many documents it changed. It runs at
// every open of the store; a clean store costs one read.
func (s *Documents) RedactStoredURLs(ctx context.Context) (int, error) {
	if s.svc.CheckFrozen() != nil {
		return 0, nil
	}
	docs, err := docstore.DocumentURLs(ctx, s.svc.DB().Reader())
	if err != nil {
		return 0, err
	}
	var changed []docstore.DocumentURL
	for _, d := range docs {
		u, e := text.RedactURL(d.SourceURL), s.svc.Redactor().Field(text.RedactURLsIn(d.Error))
		if u != d.SourceURL || e != d.Error {
			changed = append(changed, docstore.DocumentURL{ID: d.ID, SourceURL: u, Error: e})
		}
	}
	if len(changed) == 0 {
		return 0, nil
	}
	err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		for _, d := range changed {
			if err := docstore.SetDocumentURL(ctx, tx, d); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return len(changed), nil
}
