package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/evolution"

	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/core/wire"

	"github.com/cairnmem/cairn/storage"
)

// Statuses of a MutationResult that succeeded.
const (
	StatusUpdated   = "updated"
	StatusNoChanges = "no_changes"
	StatusDeleted   = "deleted"
	StatusRecovered = "recovered"
)

// MutationResult is the outcome of a change to one memory. Status is one of
// updated, no_changes, deleted, recovered, or the code of the error returned
// beside it.
type MutationResult struct {
	ID                string `json:"id"`
	Status            string `json:"status"`
	CurrentVersion    int64  `json:"currentVersion,omitempty"`
	NewVersion        int64  `json:"newVersion,omitempty"`
	ContentChanged    *bool  `json:"contentChanged,omitempty"`
	Embedded          *bool  `json:"embedded,omitempty"`
	DuplicateMemoryID string `json:"duplicateMemoryId,omitempty"`
	RetentionDays     int    `json:"retentionDays,omitempty"`
	Error             string `json:"error,omitempty"`
	// Superseded and Restored are the memories an edit's new statements
	// retired and those it brought back (core/evolution/attributes_edit.go).
	Superseded []string `json:"superseded,omitempty"`
	Restored   []string `json:"restored,omitempty"`
}

// Patch changes fields of one memory. Nil fields are left alone; at least one
// must be set, and Reason is required.
type Patch struct {
	ID         string
	Reason     string
	IfVersion  *int64
	Content    *string
	Type       *string
	Tags       *[]string
	Importance *float64
	Pinned     *bool
	Who        *string
	Project    *string

	// Malformed is set when the request that carried this patch was malformed;
	// Modify reports it instead of applying anything.
	Malformed *Error `json:"-"`
}

func (p *Patch) empty() bool {
	return p.Content == nil && p.Type == nil && p.Tags == nil && p.Importance == nil &&
		p.Pinned == nil && p.Who == nil && p.Project == nil
}

// validate checks a patch without touching the store.
func (p *Patch) validate(maxChars int) *Error {
	if p.Malformed != nil {
		return p.Malformed
	}
	if strings.TrimSpace(p.ID) == "" {
		return Invalid("id", "id is required")
	}
	if strings.TrimSpace(p.Reason) == "" {
		return Invalid("reason", "reason is required")
	}
	if p.IfVersion != nil && *p.IfVersion < 1 {
		return Invalid("if_version", "if_version must be a positive integer")
	}
	if p.empty() {
		return Invalid("patch", "at least one of content, type, tags, importance, pinned, who, project is required")
	}
	if p.Content != nil {
		if !text.ValidUTF8(*p.Content) {
			return Invalid("content", "content is not valid UTF-8")
		}
		if text.NormalizeContent(*p.Content).Storage == "" {
			return Invalid("content", "content must not be empty")
		}
		if n := text.CharCount(*p.Content); n > maxChars {
			return &Error{Code: CodeTooLarge,
				Message: fmt.Sprintf("content is %d characters; the limit is %d (guardrails.max_remember_chars)", n, maxChars),
				Extra:   map[string]any{"field": "content"}}
		}
	}
	if p.Type != nil && strings.TrimSpace(*p.Type) == "" {
		return Invalid("type", "type must be a non-empty string")
	}
	if p.Tags != nil {
		if e := CheckTags("tags", *p.Tags); e != nil {
			return e
		}
	}
	if p.Importance != nil && !ValidUnit(*p.Importance) {
		return Invalid("importance", "importance must be a finite number between 0 and 1")
	}
	var tags []string
	if p.Tags != nil {
		tags = *p.Tags
	}
	return CheckIdentifiers(tags, "type", deref(p.Type), "who", deref(p.Who), "project", deref(p.Project))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func conflict(code, msg string, m *storage.Memory) (*MutationResult, error) {
	r := &MutationResult{ID: m.ID, Status: code, CurrentVersion: m.Version, Error: msg}
	return r, &Error{Code: code, Message: msg}
}

func notFound(id string) (*MutationResult, error) {
	return &MutationResult{ID: id, Status: CodeNotFound, Error: "Not found"},
		&Error{Code: CodeNotFound, Message: "Not found"}
}

// Modify applies a patch in its own transaction, guarded by IfVersion when
// given. A content change re-derives the hash and refuses to collide with
// another live memory.
func (s *Service) Modify(ctx context.Context, p Patch, actor Actor) (*MutationResult, error) {
	defer s.analytics.Since(analytics.LatencyMutate, time.Now())
	if err := s.CheckFrozen(); err != nil {
		return nil, err
	}
	s.redact.patch(&p) // content, who and tags (fields.go)
	if err := p.validate(s.cfg.Guardrails.MaxRememberChars); err != nil {
		return &MutationResult{ID: p.ID, Status: CodeInvalidRequest, Error: err.Message}, err
	}
	actor = actor.Normalized()
	var res *MutationResult
	var resErr error
	err := s.db.WriteTx(ctx, func(tx storage.Tx) error {
		res, resErr = nil, nil
		m, err := storage.GetMemory(ctx, tx, p.ID)
		if errors.Is(err, storage.ErrNotFound) {
			res, resErr = notFound(p.ID)
			return nil
		} else if err != nil {
			return err
		}
		if m.IsDeleted {
			res, resErr = conflict(CodeDeleted, "Cannot modify deleted memory", m)
			return nil
		}
		if p.IfVersion != nil && *p.IfVersion != m.Version {
			res, resErr = conflict(CodeVersionConflict, fmt.Sprintf("version conflict: if_version is %d but the memory is at version %d", *p.IfVersion, m.Version), m)
			return nil
		}
		old := *m
		var changed []string
		contentChanged := false
		if p.Content != nil {
			norm := text.NormalizeContent(*p.Content)
			if norm.Storage != m.Content {
				m.Content, m.ContentHash = norm.Storage, norm.Hash
				contentChanged = true
				changed = append(changed, "content")
			}
		}
		if p.Type != nil && strings.TrimSpace(*p.Type) != m.Type {
			m.Type = strings.TrimSpace(*p.Type)
			changed = append(changed, "type")
		}
		if p.Tags != nil {
			if tags := text.CleanTags(*p.Tags); !slices.Equal(tags, m.Tags) {
				m.Tags = tags
				changed = append(changed, "tags")
			}
		}
		if p.Importance != nil && *p.Importance != m.Importance {
			m.Importance = *p.Importance
			changed = append(changed, "importance")
		}
		if p.Pinned != nil && *p.Pinned != m.Pinned {
			m.Pinned = *p.Pinned
			changed = append(changed, "pinned")
		}
		if p.Who != nil && *p.Who != m.Who {
			m.Who = *p.Who
			changed = append(changed, "who")
		}
		if p.Project != nil && *p.Project != m.Project {
			m.Project = *p.Project
			changed = append(changed, "project")
		}
		if len(changed) == 0 {
			res = &MutationResult{ID: m.ID, Status: StatusNoChanges, CurrentVersion: m.Version}
			return nil
		}
		if contentChanged || m.Project != old.Project {
			dup, err := storage.FindLiveByHash(ctx, tx, m.ContentHash, m.Project)
			if err == nil && dup.ID != m.ID {
				r, e := conflict(CodeDuplicate, "another memory already has this content", &old)
				r.DuplicateMemoryID = dup.ID
				e.(*Error).Extra = map[string]any{"duplicateMemoryId": dup.ID}
				res, resErr = r, e
				return nil
			} else if err != nil && !errors.Is(err, storage.ErrNotFound) {
				return err
			}
		}
		if contentChanged {
			m.ExtractionStatus, m.ExtractionModel, m.EmbeddingModel = "none", "", ""
		}
		m.Version++
		m.UpdateCount++
		m.UpdatedAt, m.UpdatedBy = s.Timestamp(), s.redact.Name(actor.Name)
		if err := storage.UpdateMemory(ctx, tx, m); err != nil {
			return fmt.Errorf("update memory: %w", err)
		}
		if contentChanged || m.Type != old.Type {
			if err := s.writeHints(ctx, tx, m); err != nil {
				return err
			}
		}
		if contentChanged {
			if err := s.relinkEntities(ctx, tx, m); err != nil {
				return err
			}
		}
		retired, restored, err := s.EvolutionTx(tx, actor).Edited(ctx, m, &old)
		if err != nil {
			return err
		}
		meta := map[string]any{"changedFields": changed, "contentChanged": contentChanged}
		if p.IfVersion != nil {
			meta["ifVersion"] = *p.IfVersion
		}
		oldC, newC := old.Content, m.Content
		if err := s.AddHistory(ctx, tx, m.ID, storage.EventUpdated, &oldC, &newC, actor, p.Reason, meta); err != nil {
			return err
		}
		res = &MutationResult{ID: m.ID, Status: StatusUpdated, CurrentVersion: old.Version, NewVersion: m.Version,
			ContentChanged: &contentChanged, Superseded: retired, Restored: restored}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if res.Status == StatusUpdated {
		// The index drops the old vector if the content changed (the
		// tracker embeds the new one) or refreshes its filter fields.
		c := changes{actor: actor.Name, sync: append(append([]string{res.ID}, res.Superseded...), res.Restored...),
			embed: *res.ContentChanged}
		c.add(EventDeleted, res.Superseded...)
		c.add(EventRecovered, res.Restored...)
		c.add(EventUpdated, res.ID)
		if *res.ContentChanged {
			embedded := false
			res.Embedded = &embedded
		}
		s.committed(ctx, c)
	}
	s.noteConflict(resErr, p.ID, actor) // the error ring shows refusals (refusals.go)
	return res, resErr
}

// ForgetInput is a request to soft-delete one memory.
type ForgetInput struct {
	ID        string
	Reason    string
	IfVersion *int64
	Force     bool
}

// Forget soft-deletes one memory in its own transaction. Pinned memories
// need Force, and a pipeline actor may never force.
func (s *Service) Forget(ctx context.Context, in ForgetInput, actor Actor) (*MutationResult, error) {
	defer s.analytics.Since(analytics.LatencyMutate, time.Now())
	if err := s.CheckFrozen(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Reason) == "" {
		e := Invalid("reason", "reason is required")
		return &MutationResult{ID: in.ID, Status: CodeInvalidRequest, Error: e.Message}, e
	}
	if in.IfVersion != nil && *in.IfVersion < 1 {
		e := Invalid("if_version", "if_version must be a positive integer")
		return &MutationResult{ID: in.ID, Status: CodeInvalidRequest, Error: e.Message}, e
	}
	actor = actor.Normalized()
	var res *MutationResult
	var resErr error
	err := s.db.WriteTx(ctx, func(tx storage.Tx) error {
		res, resErr = s.ForgetTx(ctx, tx, in, actor)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if res.Status == StatusDeleted {
		c := changes{actor: actor.Name, sync: []string{res.ID}}
		c.add(EventDeleted, res.ID)
		s.committed(ctx, c)
	}
	s.noteConflict(resErr, in.ID, actor) // the error ring shows refusals (refusals.go)
	return res, resErr
}

// ForgetTx is Forget's write inside tx, for writers with a transaction of
// their own (the pipeline, documents): the same checks (version, pinned,
// force), a version increment and a deleted event. The caller does what
// follows the commit (the vector index, events).
func (s *Service) ForgetTx(ctx context.Context, tx storage.Tx, in ForgetInput, actor Actor) (*MutationResult, error) {
	m, err := storage.GetMemory(ctx, tx, in.ID)
	if errors.Is(err, storage.ErrNotFound) {
		return notFound(in.ID)
	} else if err != nil {
		return nil, err
	}
	if m.IsDeleted {
		return conflict(CodeAlreadyDeleted, "Memory is already deleted", m)
	}
	if in.IfVersion != nil && *in.IfVersion != m.Version {
		return conflict(CodeVersionConflict, fmt.Sprintf("version conflict: if_version is %d but the memory is at version %d", *in.IfVersion, m.Version), m)
	}
	if m.Pinned && !in.Force {
		return conflict(CodePinned, "Pinned memories require force=true", m)
	}
	if m.Pinned && in.Force && actor.Type == ActorPipeline {
		r := &MutationResult{ID: m.ID, Status: CodeForceDenied, CurrentVersion: m.Version,
			Error: "the pipeline may not force-delete a pinned memory"}
		return r, &Error{Code: CodeForceDenied, Message: r.Error}
	}
	prev := m.Version
	now := s.Timestamp()
	m.IsDeleted, m.DeletedAt = true, now
	m.Version++
	m.UpdatedAt, m.UpdatedBy = now, s.redact.Name(actor.Name)
	if err := storage.UpdateMemory(ctx, tx, m); err != nil {
		return nil, fmt.Errorf("delete memory: %w", err)
	}
	meta := map[string]any{"force": in.Force}
	if in.IfVersion != nil {
		meta["ifVersion"] = *in.IfVersion
	}
	old := m.Content
	if err := s.AddHistory(ctx, tx, m.ID, storage.EventDeleted, &old, nil, actor, in.Reason, meta); err != nil {
		return nil, err
	}
	return &MutationResult{ID: m.ID, Status: StatusDeleted, CurrentVersion: prev, NewVersion: m.Version}, nil
}

// RecoverInput is a request to undo a soft delete.
type RecoverInput struct {
	ID        string
	Reason    string
	IfVersion *int64

	// What evolution's restore sets (EvolutionTx): meta for the
	// "recovered" event, and keepAttributes to leave the memory's
	// attributes as they are (evolution revives the ones it restores it
	// for) instead of making them all live again.
	meta           map[string]any
	keepAttributes bool
}

// Recover restores a soft-deleted memory within the recover window.
func (s *Service) Recover(ctx context.Context, in RecoverInput, actor Actor) (*MutationResult, error) {
	defer s.analytics.Since(analytics.LatencyMutate, time.Now())
	if err := s.CheckFrozen(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Reason) == "" {
		e := Invalid("reason", "reason is required")
		return &MutationResult{ID: in.ID, Status: CodeInvalidRequest, Error: e.Message}, e
	}
	if in.IfVersion != nil && *in.IfVersion < 1 {
		e := Invalid("if_version", "if_version must be a positive integer")
		return &MutationResult{ID: in.ID, Status: CodeInvalidRequest, Error: e.Message}, e
	}
	actor = actor.Normalized()
	var res *MutationResult
	var resErr error
	err := s.db.WriteTx(ctx, func(tx storage.Tx) error {
		res, resErr = s.RecoverTx(ctx, tx, in, actor)
		if res == nil {
			return resErr
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if res.Status == StatusRecovered {
		c := changes{actor: actor.Name, sync: []string{res.ID}, embed: true}
		c.add(EventRecovered, res.ID)
		s.committed(ctx, c)
	}
	s.noteConflict(resErr, in.ID, actor) // the error ring shows refusals (refusals.go)
	return res, resErr
}

// RecoverTx undoes the soft delete of memory in.ID inside tx, with
// Recover's checks: a deleted memory within the recover window (a
// superseded one at any time), at in.IfVersion when set, whose content and
// idempotency key no live memory holds. A superseded memory loses its
// successor link and its attributes are live again. A refusal is returned
// as a result with its error beside it; a nil result is a failure of the
// store.
func (s *Service) RecoverTx(ctx context.Context, tx storage.Tx, in RecoverInput, actor Actor) (*MutationResult, error) {
	window := s.cfg.Memory.RecoverWindow.D()
	days := int(window / (24 * time.Hour))
	m, err := storage.GetMemory(ctx, tx, in.ID)
	if errors.Is(err, storage.ErrNotFound) {
		return notFound(in.ID)
	} else if err != nil {
		return nil, err
	}
	if !m.IsDeleted {
		return conflict(CodeNotDeleted, "Memory is not deleted", m)
	}
	evo, err := storage.MemoryEvolution(ctx, tx, m.ID)
	if err != nil {
		return nil, err
	}
	// A superseded memory is kept for good (retention does not purge
	// it), so it can come back at any time.
	deletedAt, perr := storage.ParseTime(m.DeletedAt)
	if evo.SupersededBy == "" && (m.DeletedAt == "" || perr != nil || s.now().Sub(deletedAt) > window) {
		return conflict(CodeExpired, fmt.Sprintf("Recover window expired (%d days)", days), m)
	}
	if in.IfVersion != nil && *in.IfVersion != m.Version {
		return conflict(CodeVersionConflict, fmt.Sprintf("version conflict: if_version is %d but the memory is at version %d", *in.IfVersion, m.Version), m)
	}
	if m.IdempotencyKey != "" {
		if other, err := findByIdempotencyKey(ctx, tx, m.IdempotencyKey); err == nil {
			r, e := conflict(CodeDuplicate, "a live memory already uses this memory's idempotency_key", m)
			r.DuplicateMemoryID = other.ID
			e.(*Error).Extra = map[string]any{"duplicateMemoryId": other.ID}
			return r, e
		} else if !errors.Is(err, storage.ErrNotFound) {
			return nil, err
		}
	}
	dup, err := storage.FindLiveByHash(ctx, tx, m.ContentHash, m.Project)
	if err == nil {
		r, e := conflict(CodeDuplicate, "a live memory already has this content", m)
		r.DuplicateMemoryID = dup.ID
		e.(*Error).Extra = map[string]any{"duplicateMemoryId": dup.ID}
		return r, e
	} else if !errors.Is(err, storage.ErrNotFound) {
		return nil, err
	}
	prev := m.Version
	m.IsDeleted, m.DeletedAt = false, ""
	m.Version++
	m.UpdatedAt, m.UpdatedBy = s.Timestamp(), s.redact.Name(actor.Name)
	if err := storage.UpdateMemory(ctx, tx, m); err != nil {
		return nil, fmt.Errorf("recover memory: %w", err)
	}
	if evo.SupersededBy != "" {
		if in.keepAttributes {
			err = storage.SetSupersededBy(ctx, tx, m.ID, "")
		} else {
			err = evolution.Unsupersede(ctx, tx, m.ID)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := s.linkEntities(ctx, tx, m); err != nil {
		return nil, err // links kept while it was a tombstone stay; lost ones come back
	}
	content := m.Content
	if err := s.AddHistory(ctx, tx, m.ID, storage.EventRecovered, nil, &content, actor, in.Reason, in.meta); err != nil {
		return nil, err
	}
	return &MutationResult{ID: m.ID, Status: StatusRecovered, CurrentVersion: prev, NewVersion: m.Version, RetentionDays: days}, nil
}

// BatchModifyResult is the outcome of ModifyBatch.
type BatchModifyResult struct {
	Total   int               `json:"total"`
	Updated int               `json:"updated"`
	Results []*MutationResult `json:"results"`
}

// ModifyBatch applies up to memory.max_batch patches, each in its own
// transaction, and reports each outcome; one failing patch does not stop
// the others. defaultReason fills patches without a reason.
func (s *Service) ModifyBatch(ctx context.Context, patches []Patch, defaultReason string, actor Actor) (*BatchModifyResult, error) {
	if err := s.CheckFrozen(); err != nil {
		return nil, err
	}
	if len(patches) == 0 {
		return nil, Invalid("patches", "patches[] is required")
	}
	if n := s.cfg.Memory.MaxBatch; len(patches) > n {
		return nil, Invalid("patches", "patches[] exceeds maximum batch size (%d)", n)
	}
	out := &BatchModifyResult{Total: len(patches), Results: make([]*MutationResult, 0, len(patches))}
	for _, p := range patches {
		if strings.TrimSpace(p.Reason) == "" {
			p.Reason = defaultReason
		}
		r, err := s.Modify(ctx, p, actor)
		if r == nil {
			if err == nil {
				err = errors.New("no result")
			}
			e := AsError(err)
			if e.Code == CodeInternal {
				s.log.Error("batch modify", "id", p.ID, "err", err)
			}
			r = &MutationResult{ID: p.ID, Status: e.Code, Error: e.Message}
		}
		if r.Status == StatusUpdated {
			out.Updated++
		}
		out.Results = append(out.Results, r)
	}
	return out, nil
}

// HistoryEntry is one audit event as the API shows it (the API's type,
// core/wire).
type HistoryEntry = wire.HistoryEntry

func historyEntry(h *storage.HistoryEvent) *HistoryEntry {
	e := &HistoryEntry{ID: h.ID, MemoryID: h.MemoryID, Event: h.Event, OldContent: h.OldContent,
		NewContent: h.NewContent, ChangedBy: h.ChangedBy, ActorType: h.ActorType, Reason: h.Reason,
		SessionID: h.SessionID, RequestID: h.RequestID, CreatedAt: h.CreatedAt}
	if h.Metadata != "" {
		_ = json.Unmarshal([]byte(h.Metadata), &e.Metadata)
	}
	return e
}

// MemoryStamp is a short text that changes whenever something memory id's
// detail shows changes, with or without an event (storage.MemoryStamp):
// one indexed read, for a view of the memory to tell when to read it
// again. A deleted memory has one; ErrNotFound when no row has the id.
func (s *Service) MemoryStamp(ctx context.Context, id string) (string, error) {
	stamp, err := storage.MemoryStamp(ctx, s.db.Reader(), id)
	if errors.Is(err, storage.ErrNotFound) {
		return "", ErrNotFound
	}
	return stamp, err
}

// MemoryHistory returns a memory's events oldest first. It works for deleted
// memories; an id that never existed is not found.
func (s *Service) MemoryHistory(ctx context.Context, id string, limit int) ([]*HistoryEntry, error) {
	r := s.db.Reader()
	if _, err := storage.GetMemory(ctx, r, id); errors.Is(err, storage.ErrNotFound) {
		// Purged memories keep their history; only an id with no trace at all is unknown.
		rows, err := storage.ListHistory(ctx, r, storage.HistoryFilter{MemoryID: id}, 1)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			return nil, ErrNotFound
		}
	} else if err != nil {
		return nil, err
	}
	rows, err := storage.ListHistory(ctx, r, storage.HistoryFilter{MemoryID: id, Oldest: true}, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*HistoryEntry, len(rows))
	for i, h := range rows {
		out[i] = historyEntry(h)
	}
	return out, nil
}

// History returns audit events across all memories, newest first.
func (s *Service) History(ctx context.Context, f storage.HistoryFilter, limit int) ([]*HistoryEntry, error) {
	rows, err := storage.ListHistory(ctx, s.db.Reader(), f, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*HistoryEntry, len(rows))
	for i, h := range rows {
		out[i] = historyEntry(h)
	}
	return out, nil
}

// RecentMemories returns up to limit memories matching f, newest first.
// It is List without the total count and the store statistics, which scan
// every row: the terminal UI lists recent memories on every refresh and
// reads the counts separately, less often.
func (s *Service) RecentMemories(ctx context.Context, f storage.MemoryFilter, limit int) ([]*Memory, error) {
	rows, err := storage.ListMemories(ctx, s.db.Reader(), f, limit, 0)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	out := make([]*Memory, len(rows))
	for i, m := range rows {
		out[i] = ViewOf(m)
	}
	return out, nil
}
