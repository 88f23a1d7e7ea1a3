// Package bench runs the LoCoMo retrieval benchmark against cairn's recall:
// it loads a LoCoMo-format file (repairing its evidence ids), stores every
// turn as a memory in a throwaway database, asks every question in each
// recall mode and scores the rankings (recall@k, hit, MRR, nDCG) by
// question category.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
)

// Store is a temporary database holding the benchmark's conversations.
type Store struct {
	dir     string
	db      *storage.DB
	cfg     config.Config
	emb     core.Embedder
	svc     *core.Service
	samples []Sample
	idToDia map[string][]string // sample id NUL memory id -> dia ids
}

// Open creates an empty store in a temporary folder; Close removes it.
func Open(ctx context.Context, cfg config.Config) (*Store, error) {
	dir, err := os.MkdirTemp("", "cairn-bench-")
	if err != nil {
		return nil, err
	}
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(dir, "bench.db"), NoBackup: true})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// Ingest runs without the embedder (Remember would otherwise embed each
	// turn on its own, one provider call per turn); Embed then embeds
	// everything in batches, so the two times are measured apart.
	return &Store{dir: dir, db: db, cfg: cfg, svc: core.NewService(db, cfg, core.ServiceOptions{}), idToDia: map[string][]string{}}, nil
}

// Close closes the database and removes its folder.
func (s *Store) Close() error {
	err := s.db.Close()
	if rerr := os.RemoveAll(s.dir); err == nil {
		err = rerr
	}
	return err
}

// Ingest stores every turn of samples through the one write path, one
// memory per turn (tagged and scoped by sample), and records the counts and
// time in rep. Progress lines go to progress.
func (s *Store) Ingest(ctx context.Context, samples []Sample, rep *Report, progress io.Writer) error {
	start := time.Now()
	actor := core.Actor{Name: "bench", Type: core.ActorSDK}
	for _, sm := range samples {
		for _, t := range sm.Turns {
			res, err := s.svc.Remember(ctx, core.RememberInput{
				Content:    Content(t),
				Project:    sm.ID,
				Tags:       []string{sm.ID},
				SourceType: "locomo",
				SourceID:   sm.ID + ":" + t.DiaID,
			}, actor)
			if err != nil {
				return fmt.Errorf("remember %s %s: %w", sm.ID, t.DiaID, err)
			}
			if res.Chunked || res.Memory == nil {
				return fmt.Errorf("remember %s %s: turn was chunked", sm.ID, t.DiaID)
			}
			key := sm.ID + "\x00" + res.Memory.ID
			if _, ok := s.idToDia[key]; ok {
				rep.Deduped++
			}
			s.idToDia[key] = append(s.idToDia[key], t.DiaID)
		}
		fmt.Fprintf(progress, "bench: ingested %s (%d turns)\n", sm.ID, len(sm.Turns))
	}
	s.samples = append(s.samples, samples...)
	rep.Memories = len(s.idToDia)
	rep.IngestMS = MS(time.Since(start))
	fmt.Fprintf(progress, "bench: ingest %d turns -> %d memories in %s\n", rep.Turns, rep.Memories, time.Since(start).Round(time.Millisecond))
	return nil
}

// Embed embeds every stored memory with emb in batches and recalls with it
// from then on; it records the model and time in rep.
func (s *Store) Embed(ctx context.Context, emb core.Embedder, rep *Report, progress io.Writer) error {
	rep.EmbeddingModel = emb.Model()
	s.emb = emb
	s.svc = core.NewService(s.db, s.cfg, core.ServiceOptions{Embedder: emb})
	start := time.Now()
	last := time.Time{}
	err := s.svc.Vectors().EmbedPending(ctx, func(done, total int) {
		if time.Since(last) >= 2*time.Second || done == total {
			last = time.Now()
			fmt.Fprintf(progress, "bench: embedded %d/%d\n", done, total)
		}
	})
	if err != nil {
		return fmt.Errorf("embed: %w", err)
	}
	rep.EmbedMS = MS(time.Since(start))
	rep.Embedded = true
	fmt.Fprintf(progress, "bench: embedding took %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// Mode asks every question in one recall mode (core.ModeKeyword,
// ModeVector, ModeHybrid), recalling k memories each, and scores the
// answers.
func (s *Store) Mode(ctx context.Context, mode string, k int, progress io.Writer) (*ModeReport, error) {
	return s.run(ctx, s.svc, mode, k, progress)
}

// Hybrid scores hybrid recall with the fusion method and alpha given
// instead of the configured ones (a sweep over them). It needs Embed.
func (s *Store) Hybrid(ctx context.Context, fusion string, alpha float64, k int) (*ModeReport, error) {
	c := s.cfg
	c.Search.Fusion, c.Search.Alpha = fusion, alpha
	return s.run(ctx, core.NewService(s.db, c, core.ServiceOptions{Embedder: s.emb}), core.ModeHybrid, k, io.Discard)
}

func (s *Store) run(ctx context.Context, svc *core.Service, mode string, k int, progress io.Writer) (*ModeReport, error) {
	agg := NewAgg()
	methods := map[string]int{}
	var lat []time.Duration
	start := time.Now()
	for _, sm := range s.samples {
		for _, q := range sm.Questions {
			t0 := time.Now()
			res, err := svc.Recall(ctx, core.RecallInput{Query: q.Question, Limit: k, Mode: mode,
				Filter: storage.MemoryFilter{Project: sm.ID}, NoTracking: true})
			d := time.Since(t0)
			if err != nil {
				return nil, fmt.Errorf("%s recall %q: %w", mode, q.Question, err)
			}
			lat = append(lat, d)
			methods[res.Method]++
			var ranked []string
			seen := map[string]bool{}
			for _, h := range res.Results {
				for _, dia := range s.idToDia[sm.ID+"\x00"+h.ID] {
					if !seen[dia] {
						seen[dia] = true
						ranked = append(ranked, dia)
					}
				}
			}
			agg.Add(q.Category, ScoreRanking(ranked, q.Evidence, k))
		}
	}
	mr := &ModeReport{Mode: mode, Methods: methods, Rows: agg.Rows(),
		TotalMS: MS(time.Since(start)), P50MS: MS(Percentile(lat, 0.50)), P99MS: MS(Percentile(lat, 0.99))}
	fmt.Fprintf(progress, "bench: %s: %d questions in %s\n", mode, len(lat), time.Since(start).Round(time.Millisecond))
	if n := methods[mode]; mode != core.ModeKeyword && n < len(lat) {
		fmt.Fprintf(progress, "bench: warning: %s mode answered %d of %d questions by another method: %v\n", mode, len(lat)-n, len(lat), methods)
	}
	return mr, nil
}
