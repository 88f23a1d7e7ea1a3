package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/storage"
)

// Turns of a benchmark written to a server, and how each stored memory maps
// back to the dialogue ids it holds.
type Ingested struct {
	Samples []Sample
	idToDia map[string][]string // sample id NUL memory id -> dia ids
	Turns   int
	Deduped int
	Elapsed time.Duration
	Latency []time.Duration // one per remember call
}

// Rate is remembers per second.
func (in *Ingested) Rate() float64 {
	if in.Elapsed <= 0 {
		return 0
	}
	return float64(in.Turns) / in.Elapsed.Seconds()
}

// SessionKey is the session id a conversation's session is remembered in.
func SessionKey(sample string, session int) string {
	return fmt.Sprintf("locomo-%s-session-%d", sample, session)
}

// Memories is the number of distinct memories the turns became.
func (in *Ingested) Memories() int { return len(in.idToDia) }

// IngestAPI remembers every turn of samples through POST
// /api/memory/remember, one memory per turn (scoped to the sample as its
// project and tag), from clients concurrent callers. Turns are dealt to the
// callers in order, so one caller sends a conversation's turns in order.
// Each LoCoMo session is a session of its own (session_id), as an agent
// remembering a conversation would send it.
func IngestAPI(ctx context.Context, cl *client.Remote, samples []Sample, clients int, progress io.Writer) (*Ingested, error) {
	type job struct {
		sample string
		turn   Turn
	}
	var jobs []job
	for _, sm := range samples {
		for _, t := range sm.Turns {
			jobs = append(jobs, job{sm.ID, t})
		}
	}
	clients = max(1, min(clients, len(jobs)))
	out := &Ingested{Samples: samples, idToDia: map[string][]string{}, Turns: len(jobs), Latency: make([]time.Duration, len(jobs))}
	ids := make([][]string, len(jobs))
	errs := make([]error, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; i < len(jobs); i += clients {
				j := jobs[i]
				t0 := time.Now()
				res, err := cl.Remember(ctx, core.RememberInput{
					Content: Content(j.turn), Project: j.sample, Tags: []string{j.sample},
					SourceType: "locomo", SourceID: j.sample + ":" + j.turn.DiaID,
					SessionID: SessionKey(j.sample, j.turn.Session),
				})
				out.Latency[i] = time.Since(t0)
				if err != nil {
					errs[c] = fmt.Errorf("remember %s %s: %w", j.sample, j.turn.DiaID, err)
					return
				}
				if res.Chunked {
					ids[i] = res.IDs
				} else {
					ids[i] = []string{res.ID}
				}
			}
		}()
	}
	wg.Wait()
	out.Elapsed = time.Since(start)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for i, j := range jobs {
		for _, id := range ids[i] {
			key := j.sample + "\x00" + id
			if _, ok := out.idToDia[key]; ok {
				out.Deduped++
			}
			out.idToDia[key] = append(out.idToDia[key], j.turn.DiaID)
		}
	}
	fmt.Fprintf(progress, "bench: remembered %d turns -> %d memories in %s (%.0f/s, %d clients)\n",
		out.Turns, out.Memories(), out.Elapsed.Round(time.Millisecond), out.Rate(), clients)
	return out, nil
}

// AskAPI asks every question through POST /api/memory/recall (mode ""
// is the API's default), k memories each within the question's
// conversation, and scores the rankings.
func AskAPI(ctx context.Context, cl *client.Remote, in *Ingested, mode string, k int) (*ModeReport, error) {
	agg := NewAgg()
	methods := map[string]int{}
	var lat []time.Duration
	start := time.Now()
	for _, sm := range in.Samples {
		for _, q := range sm.Questions {
			t0 := time.Now()
			res, err := cl.Recall(ctx, core.RecallInput{Query: q.Question, Limit: k, Mode: mode,
				Filter: storage.MemoryFilter{Project: sm.ID}, NoTracking: true})
			d := time.Since(t0)
			if err != nil {
				return nil, fmt.Errorf("%s recall %q: %w", modeName(mode), q.Question, err)
			}
			lat = append(lat, d)
			methods[res.Method]++
			agg.Add(q.Category, ScoreRanking(in.rank(sm.ID, res.Results), q.Evidence, k))
		}
	}
	return &ModeReport{Mode: modeName(mode), Methods: methods, Rows: agg.Rows(),
		TotalMS: MS(time.Since(start)), P50MS: MS(Percentile(lat, 0.50)), P99MS: MS(Percentile(lat, 0.99))}, nil
}

// rank turns recalled memories into the dialogue ids they hold, in order,
// each once.
func (in *Ingested) rank(sample string, hits []*core.RecallHit) []string {
	var ranked []string
	seen := map[string]bool{}
	for _, h := range hits {
		for _, dia := range in.idToDia[sample+"\x00"+h.ID] {
			if !seen[dia] {
				seen[dia] = true
				ranked = append(ranked, dia)
			}
		}
	}
	return ranked
}

func modeName(mode string) string {
	if mode == "" {
		return "default"
	}
	return mode
}

// Load is what remembering a set of texts cost a server.
type Load struct {
	N       int
	Elapsed time.Duration
	Latency []time.Duration
}

// Rate is remembers per second.
func (l *Load) Rate() float64 {
	if l.Elapsed <= 0 {
		return 0
	}
	return float64(l.N) / l.Elapsed.Seconds()
}

// RememberTexts remembers each text through POST /api/memory/remember from
// clients concurrent callers (texts dealt in order) and times every call.
func RememberTexts(ctx context.Context, cl *client.Remote, texts []string, project string, clients int) (*Load, error) {
	clients = max(1, min(clients, len(texts)))
	l := &Load{N: len(texts), Latency: make([]time.Duration, len(texts))}
	errs := make([]error, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			for i := c; i < len(texts); i += clients {
				t0 := time.Now()
				_, err := cl.Remember(ctx, core.RememberInput{Content: texts[i], Project: project})
				l.Latency[i] = time.Since(t0)
				if err != nil {
					errs[c] = fmt.Errorf("remember text %d: %w", i+1, err)
					return
				}
			}
		})
	}
	wg.Wait()
	l.Elapsed = time.Since(start)
	return l, errors.Join(errs...)
}
