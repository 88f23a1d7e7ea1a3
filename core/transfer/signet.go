package transfer

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/core/vector"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/signet"
)

// SignetOptions steer ImportSignet.
type SignetOptions struct {
	// EmbeddingModel names the model that made the Signet store's vectors
	// (Signet does not record it). They are kept only when it is the model
	// cairn embeds with and the dimensions agree; otherwise cairn embeds
	// the imported memories itself, in the background.
	EmbeddingModel string
	// DryRun reads and checks everything and writes nothing.
	DryRun bool
}

// SignetReport says what an import of a Signet store did, and what it
// left out and why.
type SignetReport struct {
	SchemaVersion int            `json:"signet_schema_version"`
	Memories      ImportResult   `json:"memories"`
	Tombstones    int            `json:"deleted_imported"` // deleted in Signet, imported deleted (recoverable within the recover window)
	Skipped       map[string]int `json:"skipped"`          // reason → rows left out
	Adjusted      map[string]int `json:"adjusted"`         // reason → rows imported with a field changed
	History       struct {
		Imported int `json:"imported"`
		Existing int `json:"existing"`
		Orphans  int `json:"orphans"` // events of no imported memory (Signet's repair audits use memory_id 'system')
	} `json:"history"`
	Embeddings struct {
		InSignet int    `json:"in_signet"`
		Imported int    `json:"imported"`
		Skipped  int    `json:"skipped"`
		Why      string `json:"why,omitempty"`
	} `json:"embeddings"`
	DryRun bool `json:"dry_run,omitempty"`
}

// Signet's default importance (cairn's is 0.8): a row without one had
// Signet's default.
const signetDefaultImportance = 0.5

// ImportSignet brings a Signet store into cairn through the one write path
// (Import): every memory with its id, type, tags, importance, pinned, who,
// project and timestamps; deleted ones as deleted (recoverable); their
// history events; and the vectors when opt names the model cairn uses.
// Rows are checked as remember checks its input; a row that cannot be
// imported is left out and counted under its reason, never half-written.
// A second run adds nothing.
func (t *Transfer) ImportSignet(ctx context.Context, src *signet.Store, opt SignetOptions, actor core.Actor) (*SignetReport, error) {
	rep := &SignetReport{SchemaVersion: src.SchemaVersion(ctx), Skipped: map[string]int{}, Adjusted: map[string]int{}, DryRun: opt.DryRun}
	var lines []ImportLine
	hashes := map[string]string{} // Signet content hash → cairn's, for the vectors
	n := 0
	err := src.Memories(ctx, func(m *signet.Memory) error {
		n++
		l, reason := t.signetLine(n, m, rep.Adjusted)
		if reason != "" {
			rep.Skipped[reason]++
			return nil
		}
		if m.ContentHash != "" {
			hashes[m.ContentHash] = text.NormalizeContent(t.mem.Redact(l.Memory.Content)).Hash
		}
		lines = append(lines, l)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read signet memories: %w", err)
	}
	for _, l := range lines {
		if !l.Memory.IsDeleted {
			continue
		}
		had, err := storage.MemoryExists(ctx, t.db.Reader(), l.Memory.ID)
		if err != nil {
			return nil, err
		}
		if !had {
			rep.Tombstones++
		}
	}
	rep.Embeddings.InSignet = src.CountEmbeddings(ctx)
	if opt.DryRun {
		rep.Memories.Total = len(lines)
		return rep, nil
	}
	res, err := t.Import(ctx, lines, actor)
	if err != nil {
		return nil, err
	}
	rep.Memories = *res
	if err := t.importSignetHistory(ctx, src, rep); err != nil {
		return rep, err
	}
	if err := t.importSignetVectors(ctx, src, opt, hashes, rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// ImportSignetFile is ImportSignet of the Signet memories.db at path,
// opened read-only for the import (cairn import --from signet, in process
// or through POST /api/memories/import/signet).
func (t *Transfer) ImportSignetFile(ctx context.Context, path string, opt SignetOptions, actor core.Actor) (*SignetReport, error) {
	src, err := signet.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return t.ImportSignet(ctx, src, opt, actor)
}

// signetLine maps one Signet row to an import record, or names why it
// cannot be imported.
func (t *Transfer) signetLine(n int, m *signet.Memory, adjusted map[string]int) (ImportLine, string) {
	if strings.TrimSpace(m.Content) == "" {
		return ImportLine{}, "empty content"
	}
	if text.CharCount(m.Content) > t.cfg.Guardrails.MaxRememberChars {
		return ImportLine{}, "content over guardrails.max_remember_chars"
	}
	tags := text.CleanTags(m.Tags)
	kept := tags[:0]
	for _, tag := range tags {
		if text.CharCount(tag) <= config.MaxTagChars {
			kept = append(kept, tag)
		}
	}
	if len(kept) > config.MaxTags {
		kept = kept[:config.MaxTags]
	}
	if len(kept) != len(tags) {
		adjusted["tags over the limits dropped"]++
	}
	unit := func(p *float64, def float64, what string) float64 {
		if p == nil || math.IsNaN(*p) {
			return def
		}
		if *p < 0 || *p > 1 {
			adjusted[what+" clamped to 0..1"]++
			return math.Min(1, math.Max(0, *p))
		}
		return *p
	}
	created := m.CreatedAt
	if created == "" {
		created = t.mem.Timestamp()
		adjusted["no created_at: the import time"]++
	}
	updated := core.OrDefault(m.UpdatedAt, created)
	who := m.Who
	if who == "" && m.Agent != "" && m.Agent != "default" {
		who = m.Agent
	}
	vc := m.VectorClock
	if vc == "" {
		vc = "{}"
	}
	return ImportLine{Line: n, Memory: core.Memory{
		ID: m.ID, Type: m.Type, Category: m.Category, Content: m.Content,
		Confidence: unit(m.Confidence, 1, "confidence"), Importance: unit(m.Importance, signetDefaultImportance, "importance"),
		SourceID: m.SourceID, SourceType: core.OrDefault(m.SourceType, "signet"), Tags: kept, Who: who, Why: m.Why,
		Project: m.Project, SessionID: m.SessionID, CreatedAt: created, UpdatedAt: updated,
		UpdatedBy: core.OrDefault(m.UpdatedBy, "signet-import"), LastAccessed: m.LastAccessed, AccessCount: int64(max(m.AccessCount, 0)),
		VectorClock: vc, Version: int64(max(m.Version, 1)), ManualOverride: m.ManualOverride, Pinned: m.Pinned,
		IsDeleted: m.IsDeleted, DeletedAt: m.DeletedAt, UpdateCount: int64(max(m.UpdateCount, 0)),
		IdempotencyKey: m.IdempotencyKey, RuntimePath: m.RuntimePath, SourcePath: m.SourcePath,
		SourceSection: m.SourceSection,
	}}, ""
}

// signetHistoryBatch is how many history events share a write transaction.
const signetHistoryBatch = 500

// importSignetHistory copies the history events of the memories now in
// cairn, with their ids, so a second run finds them and adds nothing.
// Content in them is redacted as the memories' is.
func (t *Transfer) importSignetHistory(ctx context.Context, src *signet.Store, rep *SignetReport) error {
	var batch []*storage.HistoryEvent
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var imported, existing, orphans int
		err := t.db.WriteTx(ctx, func(tx storage.Tx) error {
			imported, existing, orphans = 0, 0, 0
			for _, h := range batch {
				ok, err := storage.MemoryExists(ctx, tx, h.MemoryID)
				if err != nil {
					return err
				}
				if !ok {
					orphans++
					continue
				}
				added, err := t.mem.CopyHistory(ctx, tx, h)
				if err != nil {
					return err
				}
				if added {
					imported++
				} else {
					existing++
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("import signet history: %w", err)
		}
		rep.History.Imported += imported
		rep.History.Existing += existing
		rep.History.Orphans += orphans
		batch = batch[:0]
		return nil
	}
	err := src.History(ctx, func(e *signet.HistoryEvent) error {
		redact := func(p *string) *string {
			if p == nil {
				return nil
			}
			r := t.mem.Redact(*p)
			return &r
		}
		batch = append(batch, &storage.HistoryEvent{
			ID: e.ID, MemoryID: e.MemoryID, Event: e.Event, OldContent: redact(e.OldContent), NewContent: redact(e.NewContent),
			ChangedBy: core.OrDefault(e.ChangedBy, "signet"), ActorType: core.OrDefault(e.ActorType, "operator"),
			Reason: t.mem.Redact(e.Reason), Metadata: signetMetadata(e.Metadata), SessionID: e.SessionID, RequestID: e.RequestID,
			CreatedAt: core.OrDefault(e.CreatedAt, t.mem.Timestamp()),
		})
		if len(batch) >= signetHistoryBatch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// signetMetadata keeps a history event's metadata when it is a JSON
// object (cairn's column holds one), and drops anything else.
func signetMetadata(m string) string {
	m = strings.TrimSpace(m)
	if !strings.HasPrefix(m, "{") || !strings.HasSuffix(m, "}") {
		return ""
	}
	return m
}

// importSignetVectors keeps Signet's vectors when they come from the model
// cairn embeds with: keyed by cairn's content hash of each imported
// memory, normalized, and marked so the tracker does not embed them again.
func (t *Transfer) importSignetVectors(ctx context.Context, src *signet.Store, opt SignetOptions, hashes map[string]string, rep *SignetReport) error {
	e := &rep.Embeddings
	if e.InSignet == 0 {
		return nil
	}
	e.Skipped = e.InSignet
	switch {
	case t.model == "":
		e.Why = "cairn has no embedder configured"
		return nil
	case opt.EmbeddingModel == "":
		e.Why = "Signet does not record which model made its vectors; name it with --embedding-model to keep them (cairn embeds the memories itself in the background)"
		return nil
	case opt.EmbeddingModel != t.model:
		e.Why = fmt.Sprintf("made by %s; cairn embeds with %s, so it embeds the memories itself in the background", opt.EmbeddingModel, t.model)
		return nil
	}
	model := t.model
	dims, _ := storage.EmbeddingDimensions(ctx, t.db.Reader(), model)
	type vec struct {
		hash string
		v    []float32
	}
	var vecs []vec
	wrongDims := 0
	err := src.Embeddings(ctx, func(em *signet.Embedding) error {
		h, ok := hashes[em.ContentHash]
		if !ok {
			return nil
		}
		v, ok := decodeSignetVector(em.Vector, em.Dimensions)
		if !ok || (dims > 0 && len(v) != dims) {
			wrongDims++
			return nil
		}
		vecs = append(vecs, vec{h, v})
		return nil
	})
	if err != nil {
		return fmt.Errorf("read signet embeddings: %w", err)
	}
	sort.Slice(vecs, func(i, j int) bool { return vecs[i].hash < vecs[j].hash })
	var ids []string
	for start := 0; start < len(vecs); start += signetHistoryBatch {
		batch := vecs[start:min(start+signetHistoryBatch, len(vecs))]
		var got []string
		err := t.db.WriteTx(ctx, func(tx storage.Tx) error {
			got = got[:0]
			hs := make([]string, len(batch))
			for i, b := range batch {
				if err := storage.UpsertEmbedding(ctx, tx, b.hash, model, len(b.v), vector.Encode(b.v)); err != nil {
					return err
				}
				hs[i] = b.hash
			}
			marked, err := storage.MarkEmbeddedByHash(ctx, tx, model, hs)
			got = append(got, marked...)
			return err
		})
		if err != nil {
			return fmt.Errorf("import signet embeddings: %w", err)
		}
		ids = append(ids, got...)
		e.Imported += len(batch)
	}
	e.Skipped = e.InSignet - e.Imported
	if wrongDims > 0 {
		e.Why = fmt.Sprintf("%d vectors are not of the model's dimensions", wrongDims)
	} else if e.Skipped > 0 {
		e.Why = "vectors of memories that were not imported"
	}
	t.vec.SyncVectors(ctx, ids...)
	return nil
}

// decodeSignetVector reads a little-endian float32 blob of dims values and
// normalizes it (cairn's index holds unit vectors).
func decodeSignetVector(b []byte, dims int) ([]float32, bool) {
	if dims <= 0 || len(b) != 4*dims {
		return nil, false
	}
	v := make([]float32, dims)
	var norm float64
	for i := range v {
		f := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return nil, false
		}
		v[i] = f
		norm += float64(f) * float64(f)
	}
	if norm == 0 {
		return nil, false
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range v {
		v[i] *= inv
	}
	return v, true
}
