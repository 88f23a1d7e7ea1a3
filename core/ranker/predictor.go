package ranker

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
)

// The learned ranker (docs/design/pipeline.md, "Learned ranker"), in
// process: a small pairwise linear ranker over what recall knew of each
// memory offered to a session (its features), trained on the relevance the
// session's scoring gave the memories offered together. It re-ranks the
// candidates of session start and of the prompt hook once it ranks better
// than the baseline on sessions it was not trained on; its quality is
// tracked as a moving NDCG@10 against the baseline's, and a drift below the
// baseline puts the baseline order back. Training runs in the predictor
// worker, never in a request.

// Offer sources the ranker learns, one model each.
const (
	SourceSessionStart = "session_start"
	SourcePrompt       = "prompt"
)

// Features of an offered memory, in order (index 0 is a constant): the
// indexes of a feature vector.
const (
	FBias = iota
	FKeyword
	FCoverage
	FVector
	FGraph
	FDecay
	FImportance
	FRecency
	FAccess
	FDurable
	FSummary
	FSameProject
	FRank
	FScore
	FPinned
	FShare
	NumFeatures
)

// FeatureNames name the features, in order.
var FeatureNames = [NumFeatures]string{"bias", "keyword", "coverage", "vector", "graph", "decay", "importance", "recency",
	"access", "durable_type", "session_summary", "project_match", "rank", "score", "pinned", "prompt_share"}

// Training and tracking constants.
const (
	predictorEMA         = 0.1 // weight of a new session in the moving NDCG
	predictorDriftMin    = 5   // sessions evaluated before drift is judged
	predictorHoldout     = 0.25
	predictorIterations  = 300
	predictorRate        = 0.5
	predictorL2          = 0.01
	predictorPairsGroup  = 400 // pairs of one group at most
	predictorNDCGAt      = 10
	predictorMaxSessions = 100000
)

// rankModel is a linear ranker over standardized features.
type rankModel struct {
	Weights []float64 `json:"weights"`
	Mean    []float64 `json:"mean"`
	Std     []float64 `json:"std"`
}

func (m *rankModel) score(x []float64) float64 {
	if m == nil || len(x) != NumFeatures {
		return 0
	}
	s := 0.0
	for i := 1; i < NumFeatures; i++ {
		s += m.Weights[i] * (x[i] - m.Mean[i]) / m.Std[i]
	}
	return s
}

// order is the model's order of xs: best score first, ties in the given
// (baseline) order.
func (m *rankModel) order(xs [][]float64) []int {
	idx := make([]int, len(xs))
	sc := make([]float64, len(xs))
	for i, x := range xs {
		idx[i], sc[i] = i, m.score(x)
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(sc[b], sc[a]) })
	return idx
}

// offerGroup is the memories offered together (one prompt, or session
// start), with their relevance.
type offerGroup struct {
	source string
	xs     [][]float64
	rel    []float64
}

// groupsOf splits sessions into offer groups, each in baseline order.
func groupsOf(sessions []*storage.ScoredSession) [][]*offerGroup {
	out := make([][]*offerGroup, len(sessions))
	for i, s := range sessions {
		byKey := map[string]*offerGroup{}
		var keys []string
		for _, o := range s.Offers {
			if len(o.Features) != NumFeatures {
				continue
			}
			k := fmt.Sprintf("%s/%d", o.Source, o.Group)
			g := byKey[k]
			if g == nil {
				g = &offerGroup{source: o.Source}
				byKey[k] = g
				keys = append(keys, k)
			}
			g.xs = append(g.xs, o.Features)
			g.rel = append(g.rel, max(0, min(1, o.Relevance)))
		}
		for _, k := range keys {
			g := byKey[k]
			// Baseline order: the rank feature, 1/(1+rank), highest first.
			idx := make([]int, len(g.xs))
			for j := range idx {
				idx[j] = j
			}
			slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(g.xs[b][FRank], g.xs[a][FRank]) })
			ng := &offerGroup{source: g.source}
			for _, j := range idx {
				ng.xs, ng.rel = append(ng.xs, g.xs[j]), append(ng.rel, g.rel[j])
			}
			out[i] = append(out[i], ng)
		}
	}
	return out
}

// informative says a group can rank: two memories or more, one relevant.
func (g *offerGroup) informative() bool {
	return len(g.xs) >= 2 && slices.ContainsFunc(g.rel, func(r float64) bool { return r > 0 })
}

// ndcgAt is the graded NDCG@k of rel taken in order.
func ndcgAt(rel []float64, order []int, k int) float64 {
	dcg := func(r []float64) float64 {
		s := 0.0
		for i, x := range r {
			if i >= k {
				break
			}
			s += (math.Pow(2, x) - 1) / math.Log2(float64(i)+2)
		}
		return s
	}
	got := make([]float64, len(order))
	for i, j := range order {
		got[i] = rel[j]
	}
	ideal := slices.Clone(rel)
	slices.SortFunc(ideal, func(a, b float64) int { return cmp.Compare(b, a) })
	if d := dcg(ideal); d > 0 {
		return dcg(got) / d
	}
	return 0
}

// evalGroups is the mean NDCG@10, over the informative groups, of the
// model's order and of the baseline's; n is how many groups counted.
func evalGroups(models map[string]*rankModel, groups []*offerGroup) (model, base float64, n int) {
	for _, g := range groups {
		m := models[g.source]
		if m == nil || !g.informative() {
			continue
		}
		baseline := make([]int, len(g.xs))
		for i := range baseline {
			baseline[i] = i
		}
		model += ndcgAt(g.rel, m.order(g.xs), predictorNDCGAt)
		base += ndcgAt(g.rel, baseline, predictorNDCGAt)
		n++
	}
	if n > 0 {
		model, base = model/float64(n), base/float64(n)
	}
	return model, base, n
}

// trainRanker fits a linear pairwise ranker (logistic loss on the score
// difference of each pair of one group whose relevance differs, weighted
// by the difference) by gradient descent with an L2 penalty. Zero weights
// give every memory the same score, which keeps the baseline order: a
// model without signal changes nothing.
func trainRanker(groups []*offerGroup) *rankModel {
	m := &rankModel{Weights: make([]float64, NumFeatures), Mean: make([]float64, NumFeatures), Std: make([]float64, NumFeatures)}
	n := 0
	for _, g := range groups {
		for _, x := range g.xs {
			for i := range NumFeatures {
				m.Mean[i] += x[i]
			}
			n++
		}
	}
	if n == 0 {
		for i := range NumFeatures {
			m.Std[i] = 1
		}
		return m
	}
	for i := range NumFeatures {
		m.Mean[i] /= float64(n)
	}
	for _, g := range groups {
		for _, x := range g.xs {
			for i := range NumFeatures {
				d := x[i] - m.Mean[i]
				m.Std[i] += d * d / float64(n)
			}
		}
	}
	for i := range NumFeatures {
		m.Std[i] = math.Sqrt(m.Std[i])
		if m.Std[i] < 1e-9 {
			m.Std[i] = 1
		}
	}
	type pair struct {
		d []float64
		w float64
	}
	var pairs []pair
	for _, g := range groups {
		k := 0
		for a := range g.xs {
			for b := range g.xs {
				if g.rel[a] <= g.rel[b] || k >= predictorPairsGroup {
					continue
				}
				d := make([]float64, NumFeatures)
				for i := 1; i < NumFeatures; i++ {
					d[i] = (g.xs[a][i] - g.xs[b][i]) / m.Std[i]
				}
				pairs = append(pairs, pair{d, g.rel[a] - g.rel[b]})
				k++
			}
		}
	}
	if len(pairs) == 0 {
		return m
	}
	w := m.Weights
	grad := make([]float64, NumFeatures)
	for range predictorIterations {
		clear(grad)
		tw := 0.0
		for _, p := range pairs {
			s := 0.0
			for i := 1; i < NumFeatures; i++ {
				s += w[i] * p.d[i]
			}
			// d/dw of w_p·log(1+exp(-s)) is -w_p·σ(-s)·d.
			g := -p.w / (1 + math.Exp(s))
			for i := 1; i < NumFeatures; i++ {
				grad[i] += g * p.d[i]
			}
			tw += p.w
		}
		for i := 1; i < NumFeatures; i++ {
			w[i] -= predictorRate * (grad[i]/tw + predictorL2*w[i])
		}
	}
	return m
}

// PredictorFigures are a model's NDCG@10 and the baseline's over the
// offer groups of a set of sessions.
type PredictorFigures struct {
	Sessions     int     `json:"sessions"`
	Groups       int     `json:"groups"`
	NDCGModel    float64 `json:"ndcg_model"`
	NDCGBaseline float64 `json:"ndcg_baseline"`
}

// PredictorMoving is the model's quality on sessions scored after it was
// trained: moving averages (and plain means) of its NDCG@10 and the
// baseline's, and whether it drifted below the baseline.
type PredictorMoving struct {
	Sessions     int     `json:"sessions"`
	EMAModel     float64 `json:"ema_model"`
	EMABaseline  float64 `json:"ema_baseline"`
	MeanModel    float64 `json:"mean_model"`
	MeanBaseline float64 `json:"mean_baseline"`
	Drift        bool    `json:"drift"`
}

// PredictorStatus is what /api/pipeline/status says of the ranker.
type PredictorStatus struct {
	Enabled bool `json:"enabled"`
	// Active says the model orders candidates now: enabled, trained, better
	// than the baseline on held-out sessions and not drifted.
	Active          bool   `json:"active"`
	Reason          string `json:"reason"`
	TrainedAt       string `json:"trained_at,omitempty"`
	TrainedSessions int    `json:"trained_sessions"`
	Examples        int    `json:"examples"`
	// Holdout: the newest quarter of the sessions, kept out of a first
	// training on the rest, then ranked by it.
	Holdout PredictorFigures `json:"holdout"`
	// Moving: sessions scored since the training, never trained on.
	Moving PredictorMoving `json:"moving"`
	// PendingSessions are scored sessions the worker has not looked at.
	PendingSessions int                  `json:"pending_sessions"`
	Weights         map[string][]float64 `json:"weights,omitempty"`
	Features        []string             `json:"features"`
}

// predictorState is the stored state (predictor_state).
type predictorState struct {
	Models          map[string]*rankModel `json:"models"`
	TrainedAt       string                `json:"trained_at"`
	TrainedSessions int                   `json:"trained_sessions"`
	Examples        int                   `json:"examples"`
	Holdout         PredictorFigures      `json:"holdout"`
	Moving          PredictorMoving       `json:"moving"`
	SumModel        float64               `json:"sum_model"`
	SumBaseline     float64               `json:"sum_baseline"`
	Cursor          string                `json:"cursor"`
	SinceTraining   int                   `json:"since_training"`
}

// Predictor is the learned ranker of one store: its stored state, read
// once per process (the cache) and kept current by Train.
type Predictor struct {
	db  *storage.DB
	cfg config.PredictorConfig
	now func() time.Time
	log *slog.Logger

	mu     sync.Mutex
	loaded bool
	st     *predictorState
}

// NewPredictor returns the learned ranker of db, configured by cfg
// (predictor.*), with the clock now and the logger log.
func NewPredictor(db *storage.DB, cfg config.PredictorConfig, now func() time.Time, log *slog.Logger) *Predictor {
	return &Predictor{db: db, cfg: cfg, now: now, log: log}
}

// timestamp is the clock's now in the store's time format.
func (p *Predictor) timestamp() string { return storage.FormatTime(p.now()) }

// load returns the stored state (nil without one), read once per
// process and kept current by the trainer.
func (p *Predictor) load(ctx context.Context) *predictorState {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.loaded {
		raw, err := storage.PredictorState(ctx, p.db.Reader())
		if err == nil {
			var st predictorState
			if json.Unmarshal([]byte(raw), &st) == nil {
				p.st = &st
			}
		} else if !errors.Is(err, storage.ErrNotFound) {
			p.log.Warn("predictor state", "err", err)
			return nil // read again next time
		}
		p.loaded = true
	}
	return p.st
}

// active says whether st's model may order candidates, and why not.
func (p *Predictor) active(st *predictorState) (bool, string) {
	switch {
	case !p.cfg.Enabled:
		return false, "disabled (predictor.enabled)"
	case st == nil || len(st.Models) == 0:
		return false, "cold start: not trained yet (fewer than predictor.min_sessions scored sessions)"
	case st.Holdout.Groups == 0:
		return false, "no held-out session to judge the model on"
	case st.Holdout.NDCGModel <= st.Holdout.NDCGBaseline:
		return false, fmt.Sprintf("the model does not beat the baseline on held-out sessions (NDCG@10 %.3f vs %.3f)",
			st.Holdout.NDCGModel, st.Holdout.NDCGBaseline)
	case st.Moving.Drift:
		return false, fmt.Sprintf("drift: on sessions scored since training the model's moving NDCG@10 %.3f is below the baseline's %.3f",
			st.Moving.EMAModel, st.Moving.EMABaseline)
	}
	return true, fmt.Sprintf("active: held-out NDCG@10 %.3f vs baseline %.3f", st.Holdout.NDCGModel, st.Holdout.NDCGBaseline)
}

// Status reports the ranker.
func (p *Predictor) Status(ctx context.Context) (*PredictorStatus, error) {
	st := p.load(ctx)
	out := &PredictorStatus{Enabled: p.cfg.Enabled, Features: FeatureNames[:]}
	out.Active, out.Reason = p.active(st)
	cursor := ""
	if st != nil {
		out.TrainedAt, out.TrainedSessions, out.Examples = st.TrainedAt, st.TrainedSessions, st.Examples
		out.Holdout, out.Moving, cursor = st.Holdout, st.Moving, st.Cursor
		out.Weights = map[string][]float64{}
		for src, m := range st.Models {
			w := make([]float64, len(m.Weights))
			for i, x := range m.Weights {
				w[i] = math.Round(x*1000) / 1000
			}
			out.Weights[src] = w
		}
	}
	var err error
	out.PendingSessions, _, err = storage.ScoresSince(ctx, p.db.Reader(), cursor)
	return out, err
}

// Train is one pass of the predictor worker: the sessions scored
// since the last pass are ranked by the current model and the baseline
// (the moving NDCG@10 and the drift check), then, with enough scored
// sessions (predictor.min_sessions for a first model, predictor.
// retrain_every new ones for the next), a model is trained: first on all
// but the newest quarter, which it is judged on (the held-out figures),
// then on all of them (the model used).
func (p *Predictor) Train(ctx context.Context) (*PredictorStatus, error) {
	cfg := p.cfg
	prev := p.load(ctx)
	st := &predictorState{}
	if prev != nil {
		*st = *prev
	}
	r := p.db.Reader()
	scored, newest, err := storage.ScoresSince(ctx, r, st.Cursor)
	if err != nil {
		return nil, err
	}
	var fresh []*storage.ScoredSession
	if scored > 0 {
		if fresh, err = storage.ScoredSessions(ctx, r, st.Cursor, newest, predictorMaxSessions); err != nil {
			return nil, err
		}
		st.Cursor = newest
	}
	if len(st.Models) > 0 {
		for _, groups := range groupsOf(fresh) {
			m, b, n := evalGroups(st.Models, groups)
			if n == 0 {
				continue
			}
			mv := &st.Moving
			if mv.Sessions == 0 {
				mv.EMAModel, mv.EMABaseline = m, b
			} else {
				mv.EMAModel += predictorEMA * (m - mv.EMAModel)
				mv.EMABaseline += predictorEMA * (b - mv.EMABaseline)
			}
			mv.Sessions++
			st.SumModel += m
			st.SumBaseline += b
			mv.MeanModel, mv.MeanBaseline = st.SumModel/float64(mv.Sessions), st.SumBaseline/float64(mv.Sessions)
			mv.Drift = mv.Sessions >= predictorDriftMin && mv.EMAModel < mv.EMABaseline-cfg.DriftMargin
		}
	}
	// Every scored session counts toward a training, with offers or not.
	st.SinceTraining += scored
	due := (len(st.Models) == 0 && st.SinceTraining >= cfg.MinSessions) || (len(st.Models) > 0 && st.SinceTraining >= cfg.RetrainEvery)
	if due {
		all, err := storage.ScoredSessions(ctx, r, "", st.Cursor, predictorMaxSessions)
		if err != nil {
			return nil, err
		}
		if len(all) >= 2 {
			p.fit(st, all)
		}
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	if err := p.db.WriteTx(ctx, func(tx storage.Tx) error {
		return storage.SavePredictorState(ctx, tx, string(b), p.timestamp())
	}); err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.st, p.loaded = st, true
	p.mu.Unlock()
	return p.Status(ctx)
}

// fit trains st's models on sessions (oldest first).
func (p *Predictor) fit(st *predictorState, sessions []*storage.ScoredSession) {
	groups := groupsOf(sessions)
	cut := len(sessions) - max(1, int(math.Round(float64(len(sessions))*predictorHoldout)))
	fit := func(sets [][]*offerGroup) map[string]*rankModel {
		by := map[string][]*offerGroup{}
		for _, gs := range sets {
			for _, g := range gs {
				by[g.source] = append(by[g.source], g)
			}
		}
		out := map[string]*rankModel{}
		for src, gs := range by {
			out[src] = trainRanker(gs)
		}
		return out
	}
	first := fit(groups[:cut])
	var held []*offerGroup
	for _, gs := range groups[cut:] {
		held = append(held, gs...)
	}
	m, b, n := evalGroups(first, held)
	st.Holdout = PredictorFigures{Sessions: len(sessions) - cut, Groups: n, NDCGModel: round3(m), NDCGBaseline: round3(b)}
	st.Models = fit(groups)
	st.Examples = 0
	for _, gs := range groups {
		for _, g := range gs {
			st.Examples += len(g.xs)
		}
	}
	st.TrainedAt, st.TrainedSessions, st.SinceTraining = p.timestamp(), len(sessions), 0
	st.Moving, st.SumModel, st.SumBaseline = PredictorMoving{}, 0, 0
	p.log.Info("predictor trained", "sessions", len(sessions), "examples", st.Examples,
		"holdout_model", st.Holdout.NDCGModel, "holdout_baseline", st.Holdout.NDCGBaseline)
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// Order is the model's order of candidates (given in baseline order, with
// their features) and whether it is to be used; nil when the ranker is off
// or has no model for source.
func (p *Predictor) Order(ctx context.Context, source string, feats [][]float64) ([]int, bool) {
	if !p.cfg.Enabled || len(feats) == 0 {
		return nil, false
	}
	st := p.load(ctx)
	if st == nil || st.Models[source] == nil {
		return nil, false
	}
	active, _ := p.active(st)
	return st.Models[source].order(feats), active
}
