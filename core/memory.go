package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/jobs"

	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// Memory is a memory as the API, the CLI export and the TUI see it: every
// column of the row.
type Memory struct {
	ID               string   `json:"id"`
	Content          string   `json:"content"`
	Type             string   `json:"type"`
	Category         string   `json:"category,omitempty"`
	Importance       float64  `json:"importance"`
	Confidence       float64  `json:"confidence"`
	Tags             []string `json:"tags"`
	Pinned           bool     `json:"pinned"`
	Who              string   `json:"who,omitempty"`
	Why              string   `json:"why,omitempty"`
	Project          string   `json:"project,omitempty"`
	SessionID        string   `json:"session_id,omitempty"`
	SourceType       string   `json:"source_type"`
	SourceID         string   `json:"source_id,omitempty"`
	ContentHash      string   `json:"content_hash"`
	Version          int64    `json:"version"`
	CreatedAt        string   `json:"created_at"`
	UpdatedAt        string   `json:"updated_at"`
	UpdatedBy        string   `json:"updated_by"`
	LastAccessed     string   `json:"last_accessed,omitempty"`
	AccessCount      int64    `json:"access_count"`
	IsDeleted        bool     `json:"is_deleted"`
	DeletedAt        string   `json:"deleted_at,omitempty"`
	ExtractionStatus string   `json:"extraction_status"`
	EmbeddingModel   string   `json:"embedding_model,omitempty"`
	ExtractionModel  string   `json:"extraction_model,omitempty"`
	UpdateCount      int64    `json:"update_count"`
	ManualOverride   bool     `json:"manual_override"`
	VectorClock      string   `json:"vector_clock,omitempty"`
	IdempotencyKey   string   `json:"idempotency_key,omitempty"`
	RuntimePath      string   `json:"runtime_path,omitempty"`
	SourcePath       string   `json:"source_path,omitempty"`
	SourceSection    string   `json:"source_section,omitempty"`
	// Evolution is the memory's key, reinforcement and supersession (Get
	// only; nil when it has none).
	Evolution *evolution.Evolution `json:"evolution,omitempty"`

	// What ranking reads besides: how often the memory was stated again
	// and when last (evidence), and the row of its session context.
	reinforced    int64
	lastConfirmed string
	contextRID    int64
}

// ViewOf is row m as the API shows it.
func ViewOf(m *storage.Memory) *Memory {
	tags := m.Tags
	if tags == nil {
		tags = []string{}
	}
	vc := m.VectorClock
	if vc == "{}" {
		vc = ""
	}
	return &Memory{
		ID: m.ID, Content: m.Content, Type: m.Type, Category: m.Category, Importance: m.Importance,
		Confidence: m.Confidence, Tags: tags, Pinned: m.Pinned, Who: m.Who, Why: m.Why,
		Project: m.Project, SessionID: m.SessionID, SourceType: m.SourceType, SourceID: m.SourceID,
		ContentHash: m.ContentHash, Version: m.Version, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		UpdatedBy: m.UpdatedBy, LastAccessed: m.LastAccessed, AccessCount: m.AccessCount,
		IsDeleted: m.IsDeleted, DeletedAt: m.DeletedAt, ExtractionStatus: m.ExtractionStatus,
		EmbeddingModel: m.EmbeddingModel, ExtractionModel: m.ExtractionModel, UpdateCount: m.UpdateCount,
		ManualOverride: m.ManualOverride, VectorClock: vc, IdempotencyKey: m.IdempotencyKey,
		RuntimePath: m.RuntimePath, SourcePath: m.SourcePath, SourceSection: m.SourceSection,
		reinforced: m.ReinforcedCount, lastConfirmed: m.LastConfirmedAt, contextRID: m.ContextRID,
	}
}

// Displayed is a copy of m safe to show a person or hand an agent as text:
// its content through text.Display, each one-line field through
// text.DisplayLine (control characters and escape sequences removed,
// invisible characters shown). What is stored is unchanged; JSON for
// programs (export, the API) carries the stored values.
func (m *Memory) Displayed() *Memory {
	if m == nil {
		return nil
	}
	d := *m
	d.Content = text.Display(m.Content)
	d.Tags = make([]string, len(m.Tags))
	for i, t := range m.Tags {
		d.Tags[i] = text.DisplayLine(t)
	}
	for _, f := range []*string{&d.Type, &d.Category, &d.Who, &d.Why, &d.Project, &d.SessionID, &d.SourceType,
		&d.SourceID, &d.UpdatedBy, &d.IdempotencyKey, &d.RuntimePath, &d.SourcePath, &d.SourceSection, &d.VectorClock} {
		*f = text.DisplayLine(*f)
	}
	return &d
}

// RememberInput is a request to store a memory. Pointer fields distinguish
// "not given" from a zero value: explicit fields always win over what the
// content's prefixes or type inference would choose.
type RememberInput struct {
	Content        string
	Type           string
	Tags           []string // nil: not given
	Importance     *float64
	Pinned         *bool
	Confidence     *float64
	Who            string
	Project        string
	SessionID      string
	SourceType     string
	SourceID       string
	Category       string
	Why            string
	IdempotencyKey string
	RuntimePath    string
	// Key makes the memory a keyed fact: in its project, the newest value
	// of a key supersedes the others.
	Key string
	// Scope is "project" (or ""), "user" or "agent" (core/evolution).
	Scope string
}

// RememberResult is the outcome of Remember: one memory, or for long content
// the chunks it was split into.
type RememberResult struct {
	Memory   *Memory
	Deduped  bool
	Embedded bool
	// EmbeddingState is "done", "pending" or "none" (RememberResponse).
	EmbeddingState string
	Chunked        bool
	GroupID        string
	IDs            []string
	// Superseded are the memories a keyed remember retired.
	Superseded []string
}

// Remember stores content through the one write path: prefix parsing,
// normalization, dedup by source then by hash, type inference, chunking of
// long content, a "created" history event, and (when the pipeline is on) an
// extraction job, all in one short transaction.
func (s *Service) Remember(ctx context.Context, in RememberInput, actor Actor) (*RememberResult, error) {
	defer s.analytics.Since(analytics.LatencyRemember, time.Now())
	if err := s.CheckFrozen(); err != nil {
		return nil, err
	}
	actor = actor.Normalized()
	if !utf8.ValidString(in.Content) {
		return nil, Invalid("content", "content is not valid UTF-8")
	}
	if strings.TrimFunc(in.Content, text.IsSpace) == "" {
		return nil, Invalid("content", "content is required")
	}
	if n, limit := text.CharCount(in.Content), s.cfg.Guardrails.MaxRememberChars; n > limit {
		return nil, &Error{Code: CodeTooLarge,
			Message: fmt.Sprintf("content is %d characters; the limit is %d (guardrails.max_remember_chars); use the documents API for long text", n, limit),
			Extra:   map[string]any{"field": "content"}}
	}
	// Secrets never become memories, whichever way they arrive (API, MCP,
	// CLI, hooks, import of new content, the pipeline).
	in.Content = s.Redact(in.Content)
	pre := text.ParsePrefixes(in.Content)
	if strings.TrimFunc(pre.Body, text.IsSpace) == "" {
		return nil, Invalid("content", "content is required")
	}
	if in.Importance != nil && !ValidUnit(*in.Importance) {
		return nil, Invalid("importance", "importance must be a number between 0 and 1")
	}
	if in.Confidence != nil && !ValidUnit(*in.Confidence) {
		return nil, Invalid("confidence", "confidence must be a number between 0 and 1")
	}
	if in.Type != "" && strings.TrimSpace(in.Type) == "" {
		return nil, Invalid("type", "type must be a non-empty string")
	}
	if e := CheckTags("tags", in.Tags); e != nil {
		return nil, e
	}
	// Identifiers are shown on one line and matched as they are: nothing
	// a terminal would obey, nothing a reader cannot see.
	if e := CheckIdentifiers(in.Tags, "type", in.Type, "who", in.Who, "project", in.Project, "session_id", in.SessionID,
		"source_type", in.SourceType, "source_id", in.SourceID, "category", in.Category, "idempotency_key", in.IdempotencyKey,
		"runtime_path", in.RuntimePath, "key", in.Key, "scope", in.Scope); e != nil {
		return nil, e
	}
	// A key is matched before the row is written: a secret in it becomes
	// its digest here, so the lookup and the stored row agree (fields.go).
	in.IdempotencyKey = s.redact.Key(in.IdempotencyKey)
	key, fe := evolution.NormalizeKey(in.Key)
	if fe != nil {
		return nil, invalidField(fe)
	}
	scope, fe := evolution.NormalizeScope(in.Scope)
	if fe != nil {
		return nil, invalidField(fe)
	}
	if scope != "" {
		in.Project = "" // user and agent memories follow their owner into every project
	}

	base := storage.Memory{
		Type:           strings.TrimSpace(in.Type),
		Category:       in.Category,
		Confidence:     evolution.SourceConfidence(in.SourceType),
		Importance:     s.cfg.Memory.DefaultImportance,
		SourceType:     OrDefault(in.SourceType, "manual"),
		SourceID:       in.SourceID,
		Tags:           text.CleanTags(cleanLines(pre.Tags)),
		Who:            OrDefault(in.Who, actor.Name),
		Why:            OrDefault(in.Why, "explicit"),
		Project:        in.Project,
		SessionID:      OrDefault(in.SessionID, actor.SessionID),
		Pinned:         pre.Pinned,
		IdempotencyKey: in.IdempotencyKey,
		RuntimePath:    in.RuntimePath,
	}
	if pre.Pinned {
		base.Importance = 1.0
		base.Why = OrDefault(in.Why, "explicit-critical")
	}
	if in.Tags != nil {
		base.Tags = text.CleanTags(in.Tags)
	}
	if in.Importance != nil {
		base.Importance = *in.Importance
	}
	if in.Pinned != nil {
		base.Pinned = *in.Pinned
	}
	if in.Confidence != nil {
		base.Confidence = *in.Confidence
	}
	if s.cfg.Pipeline.Enabled {
		base.ExtractionStatus = "pending"
	}
	protectDecision(&base, pre.Body, in)

	if text.CharCount(pre.Body) > s.cfg.Guardrails.MaxContentChars {
		if key != "" {
			return nil, Invalid("key", "a keyed fact must be short: content over guardrails.max_content_chars is chunked, and a key names one value")
		}
		return s.rememberChunks(ctx, pre.Body, base, actor)
	}
	norm := text.NormalizeContent(pre.Body)
	m := base
	m.Content, m.ContentHash = norm.Storage, norm.Hash
	if m.Type == "" {
		m.Type = text.InferType(m.Content)
	}
	var res RememberResult
	err := s.db.WriteTx(ctx, func(tx storage.Tx) error {
		if s.cfg.Search.SessionContext && m.SessionID != "" {
			rid, err := storage.SessionPredecessor(ctx, tx, m.Project, m.SessionID)
			if err != nil {
				return err
			}
			m.ContextRID = rid
		}
		stored, deduped, err := s.insertOrDedup(ctx, tx, &m, actor, true)
		if err != nil {
			return err
		}
		res.Memory, res.Deduped = ViewOf(stored), deduped
		res.Superseded, err = s.EvolutionTx(tx, actor).Remembered(ctx, stored, deduped, key, scope)
		return err
	})
	if err != nil {
		return nil, err
	}
	c := changes{actor: actor.Name, sync: res.Superseded}
	c.add(EventDeleted, res.Superseded...)
	res.Embedded = res.Memory.EmbeddingModel != ""
	res.EmbeddingState = s.embeddingState(res.Embedded)
	if !res.Deduped {
		c.embed = true
		c.add(EventCreated, res.Memory.ID)
	}
	s.committed(ctx, c)
	return &res, nil
}

func (s *Service) rememberChunks(ctx context.Context, body string, base storage.Memory, actor Actor) (*RememberResult, error) {
	chunks := text.ChunkContent(body, s.cfg.Guardrails.ChunkTargetChars)
	if len(chunks) == 0 {
		return nil, Invalid("content", "content produced no valid chunks")
	}
	groupID := NewID()
	res := &RememberResult{Chunked: true, GroupID: groupID}
	var created []string
	key := base.IdempotencyKey
	err := s.db.WriteTx(ctx, func(tx storage.Tx) error {
		res.IDs, created = nil, nil
		// A retried request with the same idempotency key gets the group it
		// stored the first time. Only the first chunk carries the key.
		if key != "" {
			prev, err := findByIdempotencyKey(ctx, tx, key)
			if err == nil {
				res.Deduped = true
				if prev.SourceType != "chunk" {
					res.IDs = []string{prev.ID}
					return nil
				}
				res.GroupID = prev.SourceID
				return collectGroup(ctx, tx, prev.SourceID, &res.IDs)
			} else if !errors.Is(err, storage.ErrNotFound) {
				return err
			}
		}
		seen := map[string]bool{}
		for _, c := range chunks {
			norm := text.NormalizeContent(c)
			if norm.Storage == "" {
				continue
			}
			m := base
			m.Content, m.ContentHash = norm.Storage, norm.Hash
			m.SourceType, m.SourceID = "chunk", groupID
			m.IdempotencyKey = ""
			if len(seen) == 0 {
				m.IdempotencyKey = key
			}
			if m.Type == "" {
				m.Type = text.InferType(m.Content)
			}
			stored, deduped, err := s.insertOrDedup(ctx, tx, &m, actor, false)
			if err != nil {
				return err
			}
			if seen[stored.ID] { // a chunk repeating an earlier one
				continue
			}
			seen[stored.ID] = true
			res.IDs = append(res.IDs, stored.ID)
			if !deduped {
				created = append(created, stored.ID)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(res.IDs) == 0 {
		return nil, Invalid("content", "content produced no valid chunks")
	}
	res.EmbeddingState = s.embeddingState(len(created) == 0 && res.Deduped)
	c := changes{actor: actor.Name, embed: true}
	c.add(EventCreated, created...)
	s.committed(ctx, c)
	return res, nil
}

// embeddingState names where a memory's vector is: "none" without an
// embedder, else "done" or "pending" (the tracker writes it shortly).
func (s *Service) embeddingState(embedded bool) string {
	switch {
	case s.vectors.Embedder() == nil:
		return "none"
	case embedded:
		return "done"
	}
	return "pending"
}

// insertOrDedup is the heart of the write path, run inside a write
// transaction: it returns an existing live memory with the same idempotency
// key, source or content hash, or inserts m with its "created" event.
func (s *Service) insertOrDedup(ctx context.Context, tx storage.Tx, m *storage.Memory, actor Actor, reinforce bool) (*storage.Memory, bool, error) {
	if m.IdempotencyKey != "" {
		existing, err := findByIdempotencyKey(ctx, tx, m.IdempotencyKey)
		switch {
		case err == nil && m.Project != "" && existing.Project != m.Project:
			// Keys are unique across the store; answering with another
			// project's memory would show it to a caller of this one (a
			// caller naming no project sees every project anyway).
			return nil, false, &Error{Code: CodeVersionConflict, Message: "idempotency_key is already used by a memory of another project",
				Extra: map[string]any{"field": "idempotency_key"}}
		case err == nil:
			return existing, true, nil
		case !errors.Is(err, storage.ErrNotFound):
			return nil, false, err
		}
	}
	if m.SourceID != "" && m.SourceType != "chunk" {
		// A source already stored in this project is this memory; in
		// another project it is that project's business.
		existing, err := storage.FindLiveBySource(ctx, tx, m.SourceType, m.SourceID)
		if err == nil && existing.Project == m.Project {
			return existing, true, nil
		} else if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return nil, false, err
		}
	}
	existing, err := storage.FindLiveByHash(ctx, tx, m.ContentHash, m.Project)
	if err == nil {
		// The same fact stated again reinforces the memory (a chunk of
		// long content repeating another is not a statement).
		if reinforce {
			if err := s.EvolutionTx(tx, actor).Reinforce(ctx, existing.ID); err != nil {
				return nil, false, err
			}
		}
		return existing, true, nil
	} else if !errors.Is(err, storage.ErrNotFound) {
		return nil, false, err
	}
	if err := s.InsertNew(ctx, tx, m, actor, "remember", nil); err != nil {
		return nil, false, err
	}
	return m, false, nil
}

// findByIdempotencyKey returns the live memory holding key.
func findByIdempotencyKey(ctx context.Context, q storage.Querier, key string) (*storage.Memory, error) {
	return storage.FindLiveByIdempotencyKey(ctx, q, key)
}

// collectGroup appends the ids of a chunk group's live memories, in order.
func collectGroup(ctx context.Context, q storage.Querier, groupID string, ids *[]string) error {
	group, err := storage.ChunkGroupIDs(ctx, q, groupID)
	if err != nil {
		return err
	}
	*ids = append(*ids, group...)
	return nil
}

// InsertNew inserts a memory that is known not to duplicate a live one, and
// writes its "created" history event. It fills id and timestamps if unset.
func (s *Service) InsertNew(ctx context.Context, tx storage.Tx, m *storage.Memory, actor Actor, reason string, meta map[string]any) error {
	s.prepareNew(m, actor)
	if err := storage.InsertMemory(ctx, tx, m); err != nil {
		return fmt.Errorf("insert memory: %w", err)
	}
	if err := s.writeHints(ctx, tx, m); err != nil {
		return err
	}
	return s.afterInsert(ctx, tx, m, actor, reason, meta)
}

// prepareNew redacts a new row's fields and fills its id, timestamps and
// defaults (InsertNew; InsertBatch).
func (s *Service) prepareNew(m *storage.Memory, actor Actor) {
	s.redact.memoryFields(m) // every way a row is born passes here (fields.go)
	now := s.Timestamp()
	if m.ID == "" {
		m.ID = NewID()
	}
	if m.CreatedAt == "" {
		m.CreatedAt = now
	}
	if m.UpdatedAt == "" {
		m.UpdatedAt = m.CreatedAt
	}
	if m.UpdatedBy == "" {
		m.UpdatedBy = actor.Name
	}
	if m.Version == 0 {
		m.Version = 1
	}
	if m.ExtractionStatus == "" {
		m.ExtractionStatus = "none"
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
}

// afterInsert writes what goes with a new row besides its hints: entity
// links, the "created" event and the extraction job.
func (s *Service) afterInsert(ctx context.Context, tx storage.Tx, m *storage.Memory, actor Actor, reason string, meta map[string]any) error {
	if err := s.linkEntities(ctx, tx, m); err != nil {
		return err
	}
	content := m.Content
	if err := s.AddHistory(ctx, tx, m.ID, storage.EventCreated, nil, &content, actor, reason, meta); err != nil {
		return err
	}
	if m.ExtractionStatus == "pending" && !m.IsDeleted {
		if err := s.enqueueJob(ctx, tx, m.ID, jobs.Extract); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) enqueueJob(ctx context.Context, tx storage.Tx, memoryID, jobType string) error {
	_, err := storage.EnqueueJob(ctx, tx, NewID(), memoryID, jobType, "", s.cfg.PipelineV2.MaxAttempts, s.Timestamp())
	return err
}

// AddHistory records one audit event of memoryID inside tx: what happened,
// the content before and after, who, why, and metadata.
func (s *Service) AddHistory(ctx context.Context, tx storage.Tx, memoryID, event string, oldContent, newContent *string, actor Actor, reason string, meta map[string]any) error {
	h, err := s.historyEvent(memoryID, event, oldContent, newContent, actor, reason, meta)
	if err == nil {
		err = storage.InsertHistory(ctx, tx, h)
	}
	if err != nil {
		return fmt.Errorf("write history: %w", err)
	}
	return nil
}

// historyEvent is the audit event AddHistory writes.
func (s *Service) historyEvent(memoryID, event string, oldContent, newContent *string, actor Actor, reason string, meta map[string]any) (*storage.HistoryEvent, error) {
	var metaJSON string
	if len(meta) > 0 {
		b, err := json.Marshal(meta)
		if err != nil {
			return nil, fmt.Errorf("history metadata: %w", err)
		}
		metaJSON = string(b)
	}
	// Who, why and the ids come from callers (headers, tool clients,
	// hook bodies): secrets never reach history (fields.go).
	actor = s.redact.Actor(actor)
	return &storage.HistoryEvent{
		ID: NewID(), MemoryID: memoryID, Event: event, OldContent: oldContent, NewContent: newContent,
		ChangedBy: actor.Name, ActorType: actor.Type, Reason: s.redact.Field(reason), Metadata: metaJSON,
		SessionID: actor.SessionID, RequestID: actor.RequestID, CreatedAt: s.Timestamp(),
	}, nil
}

func ValidUnit(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x >= 0 && x <= 1 }

func OrDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// Get returns one memory. Deleted memories are reported as not found unless
// includeDeleted is set.
func (s *Service) Get(ctx context.Context, id string, includeDeleted bool) (*Memory, error) {
	m, err := storage.GetMemory(ctx, s.db.Reader(), id)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && m.IsDeleted && !includeDeleted) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	v := ViewOf(m)
	if v.Evolution, err = evolution.Of(ctx, s.db.Reader(), id); err != nil {
		return nil, err
	}
	return v, nil
}

// ListResult is one page of memories.
type ListResult struct {
	Memories []*Memory           `json:"memories"`
	Stats    storage.MemoryStats `json:"stats"`
	Count    int                 `json:"count"`
	Total    int                 `json:"total"`
	Limit    int                 `json:"limit"`
	Offset   int                 `json:"offset"`
	HasMore  bool                `json:"hasMore"`
}

// List returns memories matching f, newest first. Deleted memories are left
// out unless f asks for them.
func (s *Service) List(ctx context.Context, f storage.MemoryFilter, limit, offset int) (*ListResult, error) {
	if e := CheckFilter(f); e != nil {
		return nil, e
	}
	r := s.db.Reader()
	rows, err := storage.ListMemories(ctx, r, f, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	total, err := storage.CountMemories(ctx, r, f)
	if err != nil {
		return nil, fmt.Errorf("count memories: %w", err)
	}
	stats, err := storage.Stats(ctx, r)
	if err != nil {
		return nil, err
	}
	out := &ListResult{Memories: make([]*Memory, len(rows)), Stats: stats, Count: len(rows),
		Total: total, Limit: limit, Offset: offset, HasMore: offset+len(rows) < total}
	for i, m := range rows {
		out.Memories[i] = ViewOf(m)
	}
	return out, nil
}

// one memory.
type RememberResponse struct {
	*Memory
	Embedded bool `json:"embedded"`
	// Embedding is "done" (the memory has its vector), "pending" (the
	// embedding tracker writes it shortly; keyword search finds the memory
	// meanwhile) or "none" (no embedder is configured).
	Embedding string `json:"embedding"`
	Deduped   bool   `json:"deduped,omitempty"`
	// Superseded are the memories of the same key this one replaced.
	Superseded []string `json:"superseded,omitempty"`
}

// ChunkedResponse is the API's answer to a remember that was split into
// chunks.
type ChunkedResponse struct {
	Chunked    bool     `json:"chunked"`
	ChunkCount int      `json:"chunk_count"`
	IDs        []string `json:"ids"`
	GroupID    string   `json:"group_id"`
}

// Response renders the result as the API returns it: a RememberResponse or
// a ChunkedResponse.
func (res *RememberResult) Response() any {
	if res.Chunked {
		return ChunkedResponse{Chunked: true, ChunkCount: len(res.IDs), IDs: res.IDs, GroupID: res.GroupID}
	}
	return RememberResponse{Memory: res.Memory, Embedded: res.Embedded, Embedding: res.EmbeddingState, Deduped: res.Deduped, Superseded: res.Superseded}
}
