package core

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// Export calls fn for every memory matching f, oldest first. Deleted
// memories are included only when f asks for them.
func (s *Service) Export(ctx context.Context, f storage.MemoryFilter, fn func(*Memory) error) error {
	return storage.EachMemory(ctx, s.db.Reader(), f, func(m *storage.Memory) error { return fn(viewOf(m)) })
}

// ImportLine is one parsed line of a JSONL export.
type ImportLine struct {
	Line   int
	Memory Memory
}

// maxImportLine bounds one JSONL line (a memory is at most
// guardrails.max_remember_chars plus its fields).
const maxImportLine = 16 << 20

// ReadImportLines parses a JSONL export: one memory object per line, blank
// lines and the export's trailer ignored. Every line is checked before
// anything is written; the first bad line is reported with its number and
// field.
func ReadImportLines(r io.Reader) ([]ImportLine, *Error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxImportLine)
	var out []ImportLine
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		b, e := parseBody([]byte(line))
		if e != nil {
			return nil, lineError(n, "", strings.TrimPrefix(e.Message, "Invalid JSON body: "))
		}
		if _, end := b["_end"]; end && len(b) == 1 {
			continue
		}
		var m Memory
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			var ute *json.UnmarshalTypeError
			if errors.As(err, &ute) {
				return nil, lineError(n, ute.Field, fmt.Sprintf("%s must be %s", ute.Field, ute.Type))
			}
			return nil, lineError(n, "", err.Error())
		}
		if e := validateImport(&m); e != nil {
			return nil, lineError(n, fmt.Sprint(e.Extra["field"]), e.Message)
		}
		out = append(out, ImportLine{Line: n, Memory: m})
	}
	if err := sc.Err(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeTooLarge, Message: "import body is too large; send it in smaller batches"}
		}
		return nil, lineError(n+1, "", err.Error())
	}
	return out, nil
}

func lineError(line int, field, msg string) *Error {
	extra := map[string]any{"line": line}
	if field != "" {
		extra["field"] = field
	}
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidRequest, Message: fmt.Sprintf("line %d: %s", line, msg), Extra: extra}
}

func validateImport(m *Memory) *Error {
	if !text.ValidUTF8(m.Content) || text.NormalizeContent(m.Content).Storage == "" {
		return invalid("content", "content is required")
	}
	if !validUnit(m.Importance) {
		return invalid("importance", "importance must be a number between 0 and 1")
	}
	if m.Confidence == 0 {
		m.Confidence = 1
	}
	if !validUnit(m.Confidence) {
		return invalid("confidence", "confidence must be a number between 0 and 1")
	}
	if m.Version < 0 {
		return invalid("version", "version must be a positive integer")
	}
	for field, ts := range map[string]string{"created_at": m.CreatedAt, "updated_at": m.UpdatedAt, "deleted_at": m.DeletedAt, "last_accessed": m.LastAccessed} {
		if ts == "" {
			continue
		}
		if _, err := storage.ParseTime(ts); err != nil {
			return invalid(field, "%s must be an RFC 3339 time", field)
		}
	}
	if m.IsDeleted && m.DeletedAt == "" {
		return invalid("deleted_at", "deleted_at is required when is_deleted is true")
	}
	return nil
}

// ImportResult counts what an import did.
type ImportResult struct {
	Total    int `json:"total"`
	Imported int `json:"imported"`
	Deduped  int `json:"deduped"`
	Existing int `json:"existing"`
}

// importBatch is how many records share one write transaction.
const importBatch = 500

// Import writes exported memories through the write path, keeping every
// field (id, timestamps, version, counters). A record whose id exists is
// skipped; one whose content duplicates a live memory in its project is
// deduped. Each record gets a "created" history event with reason "import".
func (s *Service) Import(ctx context.Context, lines []ImportLine, actor Actor) (*ImportResult, error) {
	if err := s.checkFrozen(); err != nil {
		return nil, err
	}
	actor = actor.normalized()
	res := &ImportResult{Total: len(lines)}
	var created []string
	for start := 0; start < len(lines); start += importBatch {
		batch := lines[start:min(start+importBatch, len(lines))]
		var imported, deduped, existing int
		var ids []string
		err := s.db.WriteTx(ctx, func(tx *storage.Tx) error {
			imported, deduped, existing, ids = 0, 0, 0, nil
			for _, l := range batch {
				m := storageOf(&l.Memory)
				if m.ID != "" {
					if _, err := storage.GetMemory(ctx, tx, m.ID); err == nil {
						existing++
						continue
					} else if !errors.Is(err, storage.ErrNotFound) {
						return err
					}
				}
				if !m.IsDeleted {
					if _, err := storage.FindLiveByHash(ctx, tx, m.ContentHash, m.Project); err == nil {
						deduped++
						continue
					} else if !errors.Is(err, storage.ErrNotFound) {
						return err
					}
					if m.IdempotencyKey != "" {
						// The same request was already stored under this key.
						if _, err := findByIdempotencyKey(ctx, tx, m.IdempotencyKey); err == nil {
							deduped++
							continue
						} else if !errors.Is(err, storage.ErrNotFound) {
							return err
						}
					}
				}
				if err := s.insertNew(ctx, tx, m, actor, "import", map[string]any{"line": l.Line}); err != nil {
					return fmt.Errorf("line %d: %w", l.Line, err)
				}
				imported++
				ids = append(ids, m.ID)
			}
			return nil
		})
		if err != nil {
			return res, err
		}
		res.Imported += imported
		res.Deduped += deduped
		res.Existing += existing
		created = append(created, ids...)
	}
	s.syncVectors(ctx, created...) // content already embedded under another id
	for _, id := range created {
		s.events.publish(Event{Kind: EventCreated, MemoryID: id, Actor: actor.Name})
	}
	return res, nil
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
		SourceType: orDefault(v.SourceType, "manual"), Tags: text.CleanTags(v.Tags), Who: v.Who, Why: v.Why,
		Project: v.Project, SessionID: v.SessionID, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt,
		UpdatedBy: v.UpdatedBy, LastAccessed: v.LastAccessed, AccessCount: v.AccessCount, VectorClock: vc,
		Version: max(v.Version, 1), ManualOverride: v.ManualOverride, Pinned: v.Pinned, IsDeleted: v.IsDeleted,
		DeletedAt: v.DeletedAt, ExtractionStatus: orDefault(v.ExtractionStatus, "none"),
		EmbeddingModel: v.EmbeddingModel, ExtractionModel: v.ExtractionModel, UpdateCount: v.UpdateCount,
		IdempotencyKey: v.IdempotencyKey, RuntimePath: v.RuntimePath, SourcePath: v.SourcePath,
		SourceSection: v.SourceSection,
	}
}
