package documents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage/docstore"

	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/vector"

	"github.com/cairnmem/cairn/core/fetch"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// ErrDocumentPermanent marks an ingest failure that no retry can fix
// (empty content, a refused or unsupported URL, a page too large); the
// worker kills the job at once instead of retrying it.
var ErrDocumentPermanent = errors.New("permanent document failure")

// DocumentIngestResult is the result recorded on a finished ingest job.
type DocumentIngestResult struct {
	DocumentID string `json:"documentId"`
	Status     string `json:"status"`
	Chunks     int    `json:"chunks"`
	Created    int    `json:"created"`
	Reused     int    `json:"reused"`
	Embedded   int    `json:"embedded"`
	Skipped    string `json:"skipped,omitempty"`
}

// errDocumentGone ends an ingest whose document was deleted meanwhile.
var errDocumentGone = errors.New("document deleted during ingest")

// ProcessDocumentJob ingests the document of a leased document_ingest
// job: extracting (fetch for URLs) → chunking → embedding → indexing →
// done, each transition in its own short transaction that also checks the
// lease. Fetching and embedding run outside every transaction. Re-running
// a job (after a crash, once the reaper returned its lease) writes no
// chunk twice: a chunk index already linked to a live memory with the
// same content is kept, and a chunk whose content is already a live
// memory is linked to it instead of inserted again.
func (s *Documents) ProcessDocumentJob(ctx context.Context, job *storage.Job) (*DocumentIngestResult, error) {
	if job == nil || job.JobType != JobDocumentIngest || job.DocumentID == "" {
		return nil, fmt.Errorf("%w: not a document_ingest job with a document_id", ErrDocumentPermanent)
	}
	res := &DocumentIngestResult{DocumentID: job.DocumentID}
	d, err := docstore.GetDocument(ctx, s.svc.DB().Reader(), job.DocumentID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, fmt.Errorf("%w: document %s not found", ErrDocumentPermanent, job.DocumentID)
	} else if err != nil {
		return nil, err
	}
	if d.Status == docstore.DocDeleted {
		res.Status, res.Skipped = docstore.DocDeleted, "document deleted"
		return res, nil
	}
	step := func(status string, fn func(tx storage.Tx) error) error {
		return s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
			if err := storage.CheckLease(ctx, tx, job); err != nil {
				return err
			}
			if err := docstore.SetDocumentStatus(ctx, tx, d.ID, status, "", s.svc.Timestamp()); errors.Is(err, storage.ErrNotFound) {
				return errDocumentGone
			} else if err != nil {
				return err
			}
			if fn != nil {
				return fn(tx)
			}
			return nil
		})
	}
	gone := func(err error) (*DocumentIngestResult, error) {
		if errors.Is(err, errDocumentGone) {
			res.Status, res.Skipped = docstore.DocDeleted, "document deleted during ingest"
			return res, nil
		}
		return nil, err
	}

	// extracting
	if err := step(docstore.DocExtracting, nil); err != nil {
		return gone(err)
	}
	content, title, ctype := d.Content, "", ""
	if d.SourceType == "url" {
		dc := s.svc.Config().Documents
		target := d.SourceURL
		if strings.Contains(target, "[REDACTED") {
			// A row from before URLs were checked, its credential
			// removed at open (RedactStoredURLs): nothing to fetch.
			return nil, fmt.Errorf("%w: the URL held a credential, which cairn does not keep: add the document again with a URL that needs none", ErrDocumentPermanent)
		}
		fr, err := fetch.URL(ctx, target, fetch.Options{Timeout: dc.FetchTimeout.D(), MaxBytes: dc.MaxContentBytes,
			MaxRedirects: dc.MaxRedirects, AllowPrivate: dc.AllowPrivateFetch})
		if err != nil {
			if fetch.IsPermanent(err) {
				return nil, fmt.Errorf("%w: %v", ErrDocumentPermanent, err)
			}
			return nil, err
		}
		content, title, ctype = s.svc.Redact(fr.Content), s.svc.Redactor().Field(fr.Title), fr.ContentType
	} else if clean := text.Display(content); clean != content {
		// Text and files are cleaned at ingest as fetched pages are (no
		// control character or escape sequence becomes a memory), and
		// redacted again: a secret split by an escape sequence is whole
		// once it is gone.
		content = s.svc.Redact(clean)
	}
	if strings.TrimFunc(content, text.IsSpace) == "" {
		return nil, fmt.Errorf("%w: Empty content", ErrDocumentPermanent)
	}
	if d.Title == "" {
		d.Title = title
	}
	if clean := text.CleanLine(d.Title); clean != d.Title { // it becomes a tag: no control or invisible character
		d.Title = s.svc.Redactor().Field(clean)
	}

	// chunking
	err = step(docstore.DocChunking, func(tx storage.Tx) error {
		if d.SourceType != "url" {
			return nil
		}
		return docstore.SetDocumentContent(ctx, tx, d.ID, content, title, ctype, s.svc.Timestamp())
	})
	if err != nil {
		return gone(err)
	}
	chunks := s.documentChunks(content)
	if len(chunks) == 0 {
		return nil, fmt.Errorf("%w: Empty content", ErrDocumentPermanent)
	}
	if limit := s.svc.Config().Documents.MaxChunks; len(chunks) > limit {
		return nil, fmt.Errorf("%w: the document is %d chunks; at most %d are stored (documents.max_chunks): split it", ErrDocumentPermanent, len(chunks), limit)
	}
	res.Chunks = len(chunks)

	// embedding
	if err := step(docstore.DocEmbedding, func(tx storage.Tx) error {
		return docstore.SetDocumentChunkCount(ctx, tx, d.ID, len(chunks), s.svc.Timestamp())
	}); err != nil {
		return gone(err)
	}
	vecs := s.embedChunks(ctx, chunks)

	// indexing, in batches
	links, err := docstore.DocumentLinks(ctx, s.svc.DB().Reader(), d.ID)
	if err != nil {
		return nil, err
	}
	linked := map[int]string{}
	for _, l := range links {
		linked[l.ChunkIndex] = l.MemoryID
	}
	tags := []string{"document:" + d.ID}
	if d.Title != "" {
		// A tag has at most config.MaxTagChars characters, so that a
		// filter on it is accepted.
		tag := []rune("document:" + d.Title)
		tags = []string{strings.TrimSpace(string(tag[:min(len(tag), config.MaxTagChars)]))}
	}
	var touched, created, replaced []string
	model := ""
	if s.vec.Embedder() != nil {
		model = s.vec.Embedder().Model()
	}
	for start := 0; start < len(chunks); start += documentIndexBatch {
		batch := chunks[start:min(start+documentIndexBatch, len(chunks))]
		var bTouched, bCreated, bReplaced []string
		var bReused, bEmbedded int
		err := step(docstore.DocIndexing, func(tx storage.Tx) error {
			bTouched, bCreated, bReplaced, bReused, bEmbedded = nil, nil, nil, 0, 0
			for k, c := range batch {
				i := start + k
				var mem *storage.Memory
				if prev, ok := linked[i]; ok {
					m, err := storage.GetMemory(ctx, tx, prev)
					if err != nil && !errors.Is(err, storage.ErrNotFound) {
						return err
					}
					if err == nil && !m.IsDeleted && m.ContentHash == c.Hash {
						mem = m
					} else {
						bReplaced = append(bReplaced, prev)
					}
				}
				if mem == nil {
					m, err := storage.FindLiveByHash(ctx, tx, c.Hash, "")
					if err != nil && !errors.Is(err, storage.ErrNotFound) {
						return err
					}
					mem = m
				}
				if mem != nil {
					bReused++
				} else {
					mem = &storage.Memory{
						Content: c.Storage, ContentHash: c.Hash,
						Type: DocumentChunkType, Importance: documentChunkImportance, Confidence: evolution.ConfidenceSystem,
						Who: d.ID, Why: documentWhy, SourceType: documentSourceType, SourceID: d.ID,
						Tags: text.CleanTags(tags), ExtractionStatus: "none",
					}
					if err := s.svc.InsertNew(ctx, tx, mem, documentActor, documentWhy,
						map[string]any{"documentId": d.ID, "chunkIndex": i}); err != nil {
						return err
					}
					bCreated = append(bCreated, mem.ID)
				}
				if err := docstore.LinkDocumentChunk(ctx, tx, d.ID, mem.ID, i); err != nil {
					return err
				}
				bTouched = append(bTouched, mem.ID)
				if v := vecs[i]; v != nil {
					if err := storage.UpsertEmbedding(ctx, tx, c.Hash, model, len(v), vector.Encode(v)); err != nil {
						return fmt.Errorf("store chunk embedding: %w", err)
					}
					if _, err := storage.SetEmbeddingModel(ctx, tx, mem.ID, c.Hash, model); err != nil {
						return err
					}
					bEmbedded++
				}
			}
			return nil
		})
		if err != nil {
			if len(touched) > 0 {
				s.vec.SyncVectors(ctx, touched...)
			}
			return gone(err)
		}
		touched, created, replaced = append(touched, bTouched...), append(created, bCreated...), append(replaced, bReplaced...)
		res.Reused += bReused
		res.Embedded += bEmbedded
	}
	res.Created = len(created)

	// done: drop links beyond the last chunk (an earlier run cut the text
	// into more pieces) and the chunk memories no longer linked.
	var dropped []string
	err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		dropped = dropped[:0]
		if err := storage.CheckLease(ctx, tx, job); err != nil {
			return err
		}
		stale, err := docstore.UnlinkDocumentChunksFrom(ctx, tx, d.ID, len(chunks))
		if err != nil {
			return err
		}
		still := map[string]bool{}
		for _, id := range touched {
			still[id] = true
		}
		for _, id := range append(replaced, stale...) {
			if still[id] {
				continue
			}
			ok, err := s.removeChunkMemory(ctx, tx, id, d.ID, "Document re-ingested: chunk no longer present", documentActor)
			if err != nil {
				return err
			}
			if ok {
				dropped = append(dropped, id)
			}
		}
		if err := docstore.SetDocumentChunkCount(ctx, tx, d.ID, len(chunks), s.svc.Timestamp()); err != nil {
			return err
		}
		if err := docstore.SetDocumentStatus(ctx, tx, d.ID, docstore.DocDone, "", s.svc.Timestamp()); errors.Is(err, storage.ErrNotFound) {
			return errDocumentGone
		} else if err != nil {
			return err
		}
		return nil
	})
	s.vec.SyncVectors(ctx, append(touched, dropped...)...)
	if err != nil {
		return gone(err)
	}
	for _, id := range created {
		s.svc.Publish(core.Event{Kind: core.EventCreated, MemoryID: id, Actor: documentActor.Name})
	}
	res.Status = docstore.DocDone
	return res, nil
}

// documentChunks cuts content into normalized chunks, dropping empty ones.
func (s *Documents) documentChunks(content string) []text.Normalized {
	var out []text.Normalized
	for _, c := range text.ChunkDocument(content, s.svc.Config().Documents.ChunkSize, s.svc.Config().Documents.ChunkOverlap) {
		if n := text.NormalizeContent(c); n.Storage != "" {
			out = append(out, n)
		}
	}
	return out
}

// embedChunks embeds the chunks that have no vector yet for the current
// model, outside any transaction, in provider-sized batches. A failing or
// absent provider, or a document too long to embed within half the job's
// lease, leaves the rest to the embedding tracker: the chunks are stored
// either way, and the lease is not lost to a slow model.
func (s *Documents) embedChunks(ctx context.Context, chunks []text.Normalized) [][]float32 {
	budget := time.Now().Add(s.svc.Config().PipelineV2.LeaseTimeout.D() / 2)
	vecs := make([][]float32, len(chunks))
	if s.vec.Embedder() == nil || !s.vec.ProviderHealthy() {
		return vecs
	}
	model := s.vec.Embedder().Model()
	r := s.svc.DB().Reader()
	// Each distinct text is embedded once: a chunk repeating another (a
	// page's boilerplate, a repeated paragraph) gets its vector.
	var todo []int
	same := map[string][]int{} // hash → the later chunks with that text
	for i, c := range chunks {
		if _, seen := same[c.Hash]; seen {
			same[c.Hash] = append(same[c.Hash], i)
			continue
		}
		same[c.Hash] = nil
		if ok, _ := storage.HasEmbedding(ctx, r, c.Hash, model); !ok {
			todo = append(todo, i)
		}
	}
	bs := max(s.svc.Config().Embedding.BatchSize, 1)
	for start := 0; start < len(todo); start += bs {
		if time.Now().After(budget) {
			s.svc.Logger().Info("document chunks left to the embedding tracker", "embedded", start, "left", len(todo)-start)
			return vecs
		}
		idx := todo[start:min(start+bs, len(todo))]
		texts := make([]string, len(idx))
		for k, i := range idx {
			texts[k] = chunks[i].Storage
		}
		got, err := s.vec.Embed(ctx, texts)
		if err != nil {
			s.svc.Logger().Warn("embedding document chunks failed; the tracker will retry", "err", err)
			return vecs
		}
		for k, i := range idx {
			vecs[i] = got[k]
			for _, j := range same[chunks[i].Hash] {
				vecs[j] = got[k]
			}
		}
	}
	return vecs
}

// FailDocumentJob records a failed ingest attempt in one transaction: a
// permanent failure kills the job at once, another is retried with
// backoff until max_attempts. The document is marked failed with the error
// once the job is dead; while a retry is pending it is back to queued with
// the error noted. It reports whether the job is dead.
func (s *Documents) FailDocumentJob(ctx context.Context, job *storage.Job, cause error) (bool, error) {
	// The error is stored and shown: no credential of the URL in it
	// (a transport error names the URL it fetched), no secret.
	msg := strings.TrimPrefix(cause.Error(), ErrDocumentPermanent.Error()+": ")
	msg = s.svc.Redactor().Field(text.DisplayLine(text.RedactURLsIn(msg)))
	permanent := errors.Is(cause, ErrDocumentPermanent)
	var dead bool
	err := s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		var err error
		if permanent {
			dead, err = true, storage.KillJob(ctx, tx, job, msg, s.svc.Now())
		} else {
			dead, err = storage.FailJob(ctx, tx, job, msg, s.svc.Now(), storage.RetryDelay(job.Attempts))
		}
		if err != nil {
			return err
		}
		if job.DocumentID == "" {
			return nil
		}
		status, note := docstore.DocQueued, "retrying: "+msg
		if dead {
			status, note = docstore.DocFailed, msg
		}
		if err := docstore.SetDocumentStatus(ctx, tx, job.DocumentID, status, note, s.svc.Timestamp()); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		return nil
	})
	return dead, err
}

// FailOrphanedDocuments marks failed the unfinished documents whose
// ingest job died without a worker recording it (a stale lease reaped on
// its last attempt).
func (s *Documents) FailOrphanedDocuments(ctx context.Context) (int64, error) {
	var n int64
	err := s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		var err error
		n, err = docstore.FailOrphanedDocuments(ctx, tx, s.svc.Timestamp())
		return err
	})
	return n, err
}
