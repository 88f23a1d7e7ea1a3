package transfer

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/internal/parallel"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// Memories is what transfer needs of core: the write path's
// transaction-scoped writes and the checks around them (a *core.Service).
type Memories interface {
	CheckFrozen() error
	Redact(body string) string
	Timestamp() string
	PrepareBatch(rows []*core.BatchRow)
	InsertBatch(ctx context.Context, tx storage.Tx, rows []*core.BatchRow, actor core.Actor, reason string) (*core.BatchResult, error)
	EvolutionTx(tx storage.Tx, actor core.Actor) evolution.Tx
	CopyHistory(ctx context.Context, tx storage.Tx, h *storage.HistoryEvent) (bool, error)
	Publish(ev core.Event)
}

// Vectors is what transfer needs of the vector index: to take in the
// memories an import wrote (their content may be embedded already).
type Vectors interface {
	SyncVectors(ctx context.Context, ids ...string)
}

// Deps are a Transfer's dependencies.
type Deps struct {
	DB       *storage.DB
	Config   config.Config
	Memories Memories
	Vectors  Vectors
	// EmbeddingModel is the model cairn embeds with ("" without an
	// embedder): Signet's vectors are kept only when they are its.
	EmbeddingModel string
	// Log receives warnings; nil discards them.
	Log *slog.Logger
}

// Transfer is the export and import of one store.
type Transfer struct {
	db    *storage.DB
	cfg   config.Config
	mem   Memories
	vec   Vectors
	model string
	log   *slog.Logger
}

// New returns the Transfer of d.DB.
func New(d Deps) *Transfer {
	t := &Transfer{db: d.DB, cfg: d.Config, mem: d.Memories, vec: d.Vectors, model: d.EmbeddingModel, log: d.Log}
	if t.log == nil {
		t.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return t
}

// Export calls fn for every memory matching f with its evolution, oldest
// first. Forgotten memories are included only when f asks for them;
// superseded ones always (evolution.go).
func (t *Transfer) Export(ctx context.Context, f storage.MemoryFilter, fn func(*ExportRecord) error) error {
	if e := core.CheckFilter(f); e != nil {
		return e
	}
	return t.exportEach(ctx, f, fn)
}

// ImportLine is one parsed line of a JSONL export.
type ImportLine struct {
	Line   int
	Memory core.Memory
	// Evolution is what the line carries of the memory's evolution (nil
	// in an old export).
	Evolution *evolution.Carried

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
// (before it is hashed) and from the other fields (core's InsertBatch).
//
// What needs no store (redaction, normalization, hashing, the entities a
// text names, hints) is computed on every core, a batch ahead of the
// writer, so a write transaction holds only the writes
// (core.Service.PrepareBatch and InsertBatch).
func (t *Transfer) Import(ctx context.Context, lines []ImportLine, actor core.Actor) (*ImportResult, error) {
	return t.importLines(ctx, lines, actor, nil, importBatch)
}

// ImportProgress is Import for a process that holds the store alone
// (cairn import without a server), calling progress (when not nil) after
// each committed batch with how many lines are done. Its transactions are
// larger (bulkImportBatch): no other process waits on them.
func (t *Transfer) ImportProgress(ctx context.Context, lines []ImportLine, actor core.Actor, progress func(done int)) (*ImportResult, error) {
	return t.importLines(ctx, lines, actor, progress, bulkImportBatch)
}

// importLines is Import with transactions of batchSize records.
func (t *Transfer) importLines(ctx context.Context, lines []ImportLine, actor core.Actor, progress func(done int), batchSize int) (*ImportResult, error) {
	if err := t.mem.CheckFrozen(); err != nil {
		return nil, err
	}
	if e := t.guardrailsAll(lines); e != nil {
		return nil, e
	}
	if e := t.checkEvolution(ctx, lines); e != nil {
		return nil, e
	}
	actor = actor.Normalized()
	res := &ImportResult{Total: len(lines)}
	var created []string
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	bulk := len(lines) > importBatch
	if bulk {
		done, err := t.db.BulkLoad(ctx)
		if err != nil {
			t.log.Warn("import: bulk settings", "err", err)
		}
		defer done()
	}
	prepared := make(chan []importRecord, 1)
	go func() {
		defer close(prepared)
		for start := 0; start < len(lines); start += batchSize {
			batch := t.prepare(lines[start:min(start+batchSize, len(lines))])
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
		err := t.db.WriteTx(ctx, func(tx storage.Tx) error {
			write := func() error {
				var err error
				counts, ids, err = t.writeBatch(ctx, tx, batch, actor)
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
	if err := t.repointDeduped(ctx, lines, actor); err != nil {
		return res, err
	}
	t.vec.SyncVectors(ctx, created...) // content already embedded under another id
	for _, id := range created {
		t.mem.Publish(core.Event{Kind: core.EventCreated, MemoryID: id, Actor: actor.Name})
	}
	return res, nil
}

// importRecord is one line of an import with what is computed before its
// write transaction.
type importRecord struct {
	line int
	row  *core.BatchRow
	ev   *evolution.Carried // what the line carries of its evolution
}

// guardrailsAll checks (and redacts) every line on every core; the
// error is the first bad line's.
func (t *Transfer) guardrailsAll(lines []ImportLine) *core.Error {
	errs := make([]*core.Error, len(lines))
	parallel.Ranges(len(lines), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			errs[i] = t.guardrails(&lines[i])
		}
	})
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// prepare turns a batch of lines into rows with their entity mentions and
// hints, on every core.
func (t *Transfer) prepare(lines []ImportLine) []importRecord {
	out := make([]importRecord, len(lines))
	rows := make([]*core.BatchRow, len(lines))
	parallel.Ranges(len(lines), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			rows[i] = &core.BatchRow{Memory: rowOf(&lines[i].Memory), Meta: map[string]any{"line": lines[i].Line}}
			out[i] = importRecord{line: lines[i].Line, row: rows[i], ev: lines[i].Evolution}
		}
	})
	t.mem.PrepareBatch(rows)
	return out
}

// writeBatch writes one batch of records in tx and returns what it did
// and the ids it created.
func (t *Transfer) writeBatch(ctx context.Context, tx storage.Tx, batch []importRecord, actor core.Actor) (ImportResult, []string, error) {
	var res ImportResult
	rows := make([]*core.BatchRow, len(batch))
	for i, r := range batch {
		rows[i] = r.row
	}
	done, err := t.mem.InsertBatch(ctx, tx, rows, actor, "import")
	if err != nil {
		return res, nil, err
	}
	w := t.mem.EvolutionTx(tx, actor).CarriedWriter()
	created := make([]string, 0, len(done.Inserted))
	for _, i := range done.Inserted {
		r := batch[i]
		if err := w.Write(ctx, r.row.Memory, r.ev); err != nil {
			return res, nil, fmt.Errorf("line %d: %w", r.line, err)
		}
		created = append(created, r.row.Memory.ID)
	}
	res.Imported, res.Deduped, res.Existing = len(created), done.Deduped, done.Existing
	return res, created, nil
}

// rowOf turns an exported memory back into a row, re-deriving the
// normalized form and hash from its content.
func rowOf(v *core.Memory) *storage.Memory {
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
		SourceType: core.OrDefault(v.SourceType, "manual"), Tags: text.CleanTags(v.Tags), Who: v.Who, Why: v.Why,
		Project: v.Project, SessionID: v.SessionID, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt,
		UpdatedBy: v.UpdatedBy, LastAccessed: v.LastAccessed, AccessCount: v.AccessCount, VectorClock: vc,
		Version: max(v.Version, 1), ManualOverride: v.ManualOverride, Pinned: v.Pinned, IsDeleted: v.IsDeleted,
		DeletedAt: v.DeletedAt, ExtractionStatus: core.OrDefault(v.ExtractionStatus, "none"),
		EmbeddingModel: v.EmbeddingModel, ExtractionModel: v.ExtractionModel, UpdateCount: v.UpdateCount,
		IdempotencyKey: v.IdempotencyKey, RuntimePath: v.RuntimePath, SourcePath: v.SourcePath,
		SourceSection: v.SourceSection,
	}
}

// guardrails checks one record as Remember checks its input and redacts
// its content; the error names the line and the field.
func (t *Transfer) guardrails(l *ImportLine) *core.Error {
	m := &l.Memory
	if n, limit := text.CharCount(m.Content), t.cfg.Guardrails.MaxRememberChars; n > limit {
		return lineError(l.Line, &core.Error{Code: core.CodeTooLarge,
			Message: fmt.Sprintf("content is %d characters; the limit is %d (guardrails.max_remember_chars); use the documents API for long text", n, limit),
			Extra:   map[string]any{"field": "content"}})
	}
	if e := core.CheckTags("tags", text.CleanTags(m.Tags)); e != nil {
		return lineError(l.Line, e)
	}
	if e := core.CheckIdentifiers(m.Tags, "type", m.Type, "who", m.Who, "project", m.Project, "session_id", m.SessionID,
		"source_type", m.SourceType, "source_id", m.SourceID, "category", m.Category, "idempotency_key", m.IdempotencyKey,
		"runtime_path", m.RuntimePath, "updated_by", m.UpdatedBy); e != nil {
		return lineError(l.Line, e)
	}
	m.Content = t.mem.Redact(m.Content)
	return nil
}

// lineError names line n in e.
func lineError(n int, e *core.Error) *core.Error {
	extra := map[string]any{"line": n}
	for k, v := range e.Extra {
		extra[k] = v
	}
	return &core.Error{Code: e.Code, Message: fmt.Sprintf("line %d: %s", n, e.Message), Extra: extra}
}
