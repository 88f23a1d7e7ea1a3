package ranker

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
)

// Aspect feedback (docs/design/pipeline.md, "Aspect feedback"): each
// entity aspect (core/evolution/attributes.go) has a weight, 0.5 when it is
// new (migration 0023). At session end, once the
// session is scored (core/sessions), every aspect holding a live
// attribute of a memory the scoring found used (relevance above zero: a
// later prompt, the transcript or a recall referred to it) gains
// feedback.weight_delta per such memory, up to feedback.max_weight. Every
// feedback.decay_interval_sessions scored sessions, aspects not confirmed
// for feedback.stale_days lose feedback.decay_rate, down to
// feedback.min_weight. The weights are shown with the attributes of a
// memory (GET /api/memory/{id}, the TUI's memory detail) and under
// continuity.aspects of GET /api/sessions/{key}; /api/pipeline/status
// counts the feedback since the server started.
//
// Where the weight matters: with feedback.rank_weight above zero, the
// candidates of session start and of the prompt hook are ranked by their
// score times 1 + rank_weight × (weight − 0.5), the weight being the
// highest of the memory's aspects (Factors; memories without an
// aspect keep their score). The default is 0: the replay benchmark shows
// no gain (its conversations hold no aspect the heuristic reader finds).

// aspectNeutral is a new aspect's weight: the ranking factor is 1 there.
const aspectNeutral = 0.5

// AspectFeedbackStats count what the feedback did since the server
// started (the telemetry /api/pipeline/status shows).
type AspectFeedbackStats struct {
	Sessions       int `json:"sessions"`
	Confirmations  int `json:"confirmations"`
	AspectsUpdated int `json:"aspects_updated"`
	Decays         int `json:"decays"`
	AspectsDecayed int `json:"aspects_decayed"`
}

// Feedback is the aspect feedback of one store, with its counters since
// start.
type Feedback struct {
	db  *storage.DB
	cfg config.FeedbackConfig
	log *slog.Logger

	mu    sync.Mutex
	stats AspectFeedbackStats
}

// NewFeedback returns the aspect feedback of db, configured by cfg
// (feedback.*), logging to log.
func NewFeedback(db *storage.DB, cfg config.FeedbackConfig, log *slog.Logger) *Feedback {
	return &Feedback{db: db, cfg: cfg, log: log}
}

// AspectFeedbackReport is what /api/pipeline/status says of the feedback.
type AspectFeedbackReport struct {
	Enabled    bool                `json:"enabled"`
	RankWeight float64             `json:"rank_weight"`
	SinceStart AspectFeedbackStats `json:"since_start"`
}

// Status is the feedback's counters and whether it is on.
func (f *Feedback) Status() *AspectFeedbackReport {
	f.mu.Lock()
	defer f.mu.Unlock()
	return &AspectFeedbackReport{Enabled: f.cfg.Enabled, RankWeight: f.cfg.RankWeight, SinceStart: f.stats}
}

// Apply raises the weights of the aspects session key's scoring confirmed
// and, when due, decays the stale ones; in tx, after the session's
// relevance is written.
func (f *Feedback) Apply(ctx context.Context, tx storage.Tx, key string, now time.Time) error {
	cfg := f.cfg
	if !cfg.Enabled {
		return nil
	}
	confirmed, err := storage.SessionConfirmedAspects(ctx, tx, key)
	if err != nil {
		return err
	}
	ts := storage.FormatTime(now)
	var st AspectFeedbackStats
	st.Sessions = 1
	for id, n := range confirmed {
		if err := storage.RaiseAspectWeight(ctx, tx, id, n, cfg.WeightDelta, cfg.MinWeight, cfg.MaxWeight, ts); err != nil {
			return err
		}
		st.Confirmations += n
		st.AspectsUpdated++
	}
	if cfg.DecayEnabled {
		scored, err := storage.CountSessionScores(ctx, tx)
		if err != nil {
			return err
		}
		if scored > 0 && scored%cfg.DecayIntervalSessions == 0 {
			cutoff := storage.FormatTime(now.Add(-time.Duration(cfg.StaleDays) * 24 * time.Hour))
			n, err := storage.DecayAspectWeights(ctx, tx, cutoff, cfg.DecayRate, cfg.MinWeight)
			if err != nil {
				return err
			}
			st.Decays, st.AspectsDecayed = 1, n
		}
	}
	// The counters are telemetry, not a record: a transaction that fails
	// to commit after this has still counted.
	f.count(st)
	return nil
}

// count adds st to the counters since start.
func (f *Feedback) count(st AspectFeedbackStats) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stats.Sessions += st.Sessions
	f.stats.Confirmations += st.Confirmations
	f.stats.AspectsUpdated += st.AspectsUpdated
	f.stats.Decays += st.Decays
	f.stats.AspectsDecayed += st.AspectsDecayed
}

// Factors are the ranking factors of ids (1 + feedback.rank_weight
// × (weight − 0.5), from each memory's heaviest aspect; 1 without one),
// or nil when the weight does not rank (rank_weight 0, feedback off) or
// no candidate has an aspect: the caller then keeps its order untouched.
func (f *Feedback) Factors(ctx context.Context, ids []string) map[string]float64 {
	cfg := f.cfg
	if !cfg.Enabled || cfg.RankWeight == 0 || len(ids) == 0 {
		return nil
	}
	ws, err := storage.MemoryAspectWeights(ctx, f.db.Reader(), ids)
	if err != nil {
		f.log.Warn("aspect weights", "err", err)
		return nil
	}
	if len(ws) == 0 {
		return nil
	}
	out := make(map[string]float64, len(ids))
	for _, id := range ids {
		out[id] = 1
		if w, ok := ws[id]; ok {
			out[id] = max(0, 1+cfg.RankWeight*(w-aspectNeutral))
		}
	}
	return out
}

// Revise follows a session's relevance rewritten after its
// end, as when a model's continuity score replaces the heuristic one
// session end wrote: each aspect gains, or gives back, weight_delta per
// memory the new relevance confirms more, or fewer, of than the old did.
// before is storage.SessionConfirmedAspects read in tx before the
// rewrite. Decay is not applied again: the session was counted once.
func (f *Feedback) Revise(ctx context.Context, tx storage.Tx, key string, before map[string]int, now time.Time) error {
	cfg := f.cfg
	if !cfg.Enabled {
		return nil
	}
	after, err := storage.SessionConfirmedAspects(ctx, tx, key)
	if err != nil {
		return err
	}
	ts := storage.FormatTime(now)
	var st AspectFeedbackStats
	for id := range mergeKeys(before, after) {
		switch d := after[id] - before[id]; {
		case d > 0:
			err = storage.RaiseAspectWeight(ctx, tx, id, d, cfg.WeightDelta, cfg.MinWeight, cfg.MaxWeight, ts)
		case d < 0:
			err = storage.LowerAspectWeight(ctx, tx, id, -d, cfg.WeightDelta, cfg.MinWeight)
		default:
			continue
		}
		if err != nil {
			return err
		}
		st.Confirmations += after[id] - before[id]
		st.AspectsUpdated++
	}
	f.count(st)
	return nil
}

func mergeKeys(a, b map[string]int) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
