package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/evolution"

	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/core/vectors"

	"github.com/cairnmem/cairn/storage"
)

// Recall limits.
const (
	DefaultRecallLimit = 10
	MaxRecallLimit     = 1000
)

// Recall modes: which legs run.
const (
	ModeHybrid  = "hybrid"
	ModeKeyword = "keyword"
	ModeVector  = "vector"
)

// RecallInput is a search request.
type RecallInput struct {
	Query string
	// KeywordQuery, when set, is used for the keyword leg instead of Query.
	KeywordQuery string
	Limit        int
	Filter       storage.MemoryFilter
	// Mode restricts recall to one leg (keyword, vector); empty is hybrid.
	Mode string
	// Explain fills each hit's Explain with its score parts.
	Explain bool
	// NoTracking leaves access counts alone (benchmarks, previews).
	NoTracking bool
	// Expand joins the stored transcript of each result's session.
	Expand bool
}

// ScoreParts explains one hit's score: each leg's contribution and each
// adjustment applied after fusion. Multipliers are 1 when not applied.
type ScoreParts struct {
	BM25      float64 `json:"bm25"`                   // raw FTS5 bm25 (negative; lower is better), 0 if no keyword hit
	Keyword   float64 `json:"keyword"`                // keyword score in [0,1]: BM25 (relative to the best hit) blended with coverage
	Coverage  float64 `json:"coverage"`               // share of the query's words the memory contains
	Hint      float64 `json:"hint"`                   // best hint (prospective query) match in [0,1]
	Vector    float64 `json:"vector"`                 // cosine similarity in [0,1]
	Fused     float64 `json:"fused"`                  // after fusing the legs
	Graph     float64 `json:"graph"`                  // additive graph boost
	Rerank    float64 `json:"rerank"`                 // reranker's similarity, 0 if not reranked
	Model     float64 `json:"model_rerank,omitempty"` // the reranking model's score (reranker.enabled), which ordered the best reranker.top_n
	Dampening float64 `json:"dampening"`              // multiplier from gravity/hub/resolution
	Speaker   float64 `json:"speaker"`                // multiplier for a turn of a speaker the query does not name when it names another (core/speaker.go)
	Neighbor  float64 `json:"neighbor,omitempty"`     // added toward the score of the memory next to it in its session (core/neighbors.go)
	Decay     float64 `json:"decay"`                  // importance × decay multiplier
	Evidence  float64 `json:"evidence"`               // confidence × reinforcement × staleness, weighted (core/evolution)
	Final     float64 `json:"final"`
}

// RecallHit is one ranked memory.
type RecallHit struct {
	ID            string   `json:"id"`
	Content       string   `json:"content"`
	ContentLength int      `json:"content_length"`
	Truncated     bool     `json:"truncated"`
	Score         float64  `json:"score"`
	Source        string   `json:"source"`
	Type          string   `json:"type"`
	Tags          []string `json:"tags"`
	Pinned        bool     `json:"pinned"`
	Importance    float64  `json:"importance"`
	Who           string   `json:"who,omitempty"`
	Project       string   `json:"project,omitempty"`
	CreatedAt     string   `json:"created_at"`
	// Relevance is an absolute measure of how well the memory answers the
	// query, independent of the other results: the larger of its cosine
	// similarity and the share of the query's words it contains. Score
	// ranks within one answer (the best keyword hit always scores high);
	// Relevance is what a gate ("inject only if relevant") should use.
	Relevance float64 `json:"relevance"`
	// Explain is set when the request asked for it.
	Explain *ScoreParts `json:"explain,omitempty"`
	// Context is the memory's session context as ranking read it (for the
	// prompt gate; not part of the answer).
	Context string `json:"-"`
	// SessionID and Transcript: with expand, the session the memory came
	// from and that session's stored transcript.
	SessionID  string `json:"session_id,omitempty"`
	Transcript string `json:"transcript,omitempty"`
}

// RecallResult is a ranked list and how it was produced. Method is
// "keyword" when only full-text search contributed.
type RecallResult struct {
	Results  []*RecallHit `json:"results"`
	Query    string       `json:"query"`
	Method   string       `json:"method"`
	Warnings []string     `json:"warnings,omitempty"`
	// BelowFloor counts the memories found only by meaning and no closer
	// than unrelated text (the relevance floor): they are not results.
	BelowFloor int `json:"belowFloor,omitempty"`
}

// Recall searches live memories: the keyword leg (FTS5, BM25) and the
// vector leg (cosine over the in-memory index) run with the same filters,
// are fused, adjusted (graph boost, dampening, importance decay) and
// ranked. Without an embedder, or when the provider fails, recall is
// keyword-only and Method says so; nothing fails.
func (s *Service) Recall(ctx context.Context, in RecallInput) (*RecallResult, error) {
	defer s.analytics.Since(analytics.LatencyRecall, time.Now())
	if strings.TrimSpace(in.Query) == "" {
		return nil, Invalid("query", "query is required")
	}
	limit := in.Limit
	if limit == 0 {
		limit = DefaultRecallLimit
	}
	if limit < 1 || limit > MaxRecallLimit {
		return nil, Invalid("limit", "limit must be an integer from 1 to %d", MaxRecallLimit)
	}
	mode := in.Mode
	if mode == "" {
		mode = ModeHybrid
	}
	if mode != ModeHybrid && mode != ModeKeyword && mode != ModeVector {
		return nil, Invalid("mode", "mode must be hybrid, keyword or vector")
	}
	if e := CheckFilter(in.Filter); e != nil {
		return nil, e
	}
	f := in.Filter
	f.IncludeDeleted, f.OnlyDeleted = false, false
	k := max(s.cfg.Search.TopK, 2*limit)

	out := &RecallResult{Query: in.Query, Results: []*RecallHit{}}
	cands := map[string]*candidate{}
	get := func(id string) *candidate {
		c, ok := cands[id]
		if !ok {
			c = &candidate{id: id, kwRank: -1, vecRank: -1}
			cands[id] = c
		}
		return c
	}

	// The vector leg (most of it the query's embedding, which the
	// built-in model computes on this CPU) runs beside the keyword leg
	// instead of after it: a hybrid recall takes the longer of the two,
	// not their sum.
	var vectorLeg func() (*vectors.Query, error)
	// While a server that just started still loads the model and the
	// index, a hybrid recall answers from keywords rather than wait.
	warming := mode == ModeHybrid && s.vectors.Embedder() != nil && s.vectors.Warming()
	if warming {
		out.Warnings = append(out.Warnings, "the embedding model and the vector index are still loading: keyword results only")
	}
	if mode != ModeKeyword && s.vectors.Embedder() != nil && !warming {
		vf := f
		done := make(chan struct{})
		var vq *vectors.Query
		var verr error
		go func() {
			defer close(done)
			vq, verr = s.vectors.Search(ctx, VectorQuery(in.Query), k, &vf)
		}()
		vectorLeg = func() (*vectors.Query, error) { <-done; return vq, verr }
	}

	ranKeyword := false
	if mode != ModeVector {
		kq := in.KeywordQuery
		if strings.TrimSpace(kq) == "" {
			kq = in.Query
		}
		hits, err := s.KeywordSearch(ctx, kq, f, k)
		if err != nil {
			return nil, err
		}
		ranKeyword = true
		var hintBM map[string]float64
		if s.cfg.Hints.Enabled {
			if match := text.SanitizeFTSQuery(kq); match != "" {
				if hintBM, err = s.hintMatches(ctx, match, f, k); err != nil {
					return nil, err
				}
			}
		}
		best := 0.0
		for _, h := range hits {
			best = max(best, math.Abs(h.BM25))
		}
		for _, bm := range hintBM {
			best = max(best, math.Abs(bm))
		}
		for i, h := range hits {
			c := get(h.Memory.ID)
			c.mem, c.bm25, c.kwRank = h.Memory, h.BM25, i
			c.keyword = keywordScore(h.BM25, best)
		}
		// A hint lifts its memory to the hint's score when that is higher;
		// it never adds to the content's (merged with max:
		// docs/design/search.md, "Hints").
		for id, bm := range hintBM {
			c := get(id)
			c.hint = keywordScore(bm, best)
			if c.hint > c.keyword {
				c.keyword = c.hint
				if c.kwRank < 0 {
					c.kwRank = len(hits)
				}
			}
		}
	}

	ranVector := false
	if vectorLeg != nil {
		q, err := vectorLeg()
		if err != nil {
			out.Warnings = append(out.Warnings, "vector search unavailable: "+err.Error())
			s.log.Warn("recall without vectors", "err", err)
		} else {
			ranVector = true
			for i, h := range q.Hits {
				c := get(h.ID)
				c.vector, c.hasVec, c.vecRank = Clamp01(float64(h.Score)), true, i
			}
			// Candidates found only by keyword still get their exact
			// similarity (docs/design/search.md, "Vector leg").
			for _, c := range cands {
				if !c.hasVec {
					if sim, ok := q.Similarity(c.id); ok {
						c.vector, c.hasVec = Clamp01(float64(sim)), true
					}
				}
			}
		}
	}
	switch {
	case ranKeyword && ranVector:
		out.Method = ModeHybrid
	case ranVector:
		out.Method = ModeVector
	default:
		out.Method = ModeKeyword
	}
	if mode == ModeVector && !ranVector {
		return out, nil // asked for vectors only, and there are none
	}
	if len(cands) == 0 {
		return out, nil
	}
	if err := s.hydrate(ctx, cands); err != nil {
		return nil, err
	}
	s.loadContexts(ctx, cands)
	s.score(ctx, in.Query, cands, out.Method, ranKeyword && ranVector)

	ranked := make([]*candidate, 0, len(cands))
	floor := s.VectorFloor()
	for _, c := range cands {
		if c.mem == nil {
			continue
		}
		if !c.evident(floor) {
			out.BelowFloor++
			continue
		}
		if c.final >= s.cfg.Search.MinScore {
			ranked = append(ranked, c)
		}
	}
	slices.SortFunc(ranked, func(a, b *candidate) int {
		if a.final != b.final {
			if a.final > b.final {
				return -1
			}
			return 1
		}
		return strings.Compare(b.mem.CreatedAt, a.mem.CreatedAt)
	})
	ranked = s.rerank.apply(ctx, in.Query, ranked)
	if len(ranked) > limit {
		ranked = ranked[:limit]
	}
	ids := make([]string, 0, len(ranked))
	for _, c := range ranked {
		source := ModeHybrid
		switch {
		case c.kwRank < 0 && c.vecRank >= 0:
			source = ModeVector
		case c.vecRank < 0 && c.kwRank >= 0:
			source = ModeKeyword
		}
		if !ranVector {
			source = ModeKeyword
		}
		hit := s.recallHit(c.mem, c.final, source)
		hit.Relevance = math.Round(max(c.vector, c.coverage)*1000) / 1000
		hit.Context = c.context
		if in.Explain {
			hit.Explain = c.parts()
		}
		out.Results = append(out.Results, hit)
		ids = append(ids, c.id)
	}
	if in.Expand {
		if err := s.expandTranscripts(ctx, ranked, out.Results); err != nil {
			return nil, err
		}
	}
	if !in.NoTracking {
		s.RecordAccess(ctx, ids)
	}
	return out, nil
}

// expandTranscripts attaches each hit's session transcript (read once per
// session) for recall with expand.
func (s *Service) expandTranscripts(ctx context.Context, ranked []*candidate, hits []*RecallHit) error {
	cache := map[string]string{}
	for i, c := range ranked {
		key := c.mem.SessionID
		if key == "" {
			continue
		}
		hits[i].SessionID = key
		t, ok := cache[key]
		if !ok {
			var err error
			t, _, err = storage.TranscriptContent(ctx, s.db.Reader(), key)
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				return fmt.Errorf("expand: %w", err)
			}
			cache[key] = t
		}
		hits[i].Transcript = t
	}
	return nil
}

// VectorQuery is the text embedded for the vector leg: the query's content
// words, without question words and other stopwords. The built-in model
// embeds questions far from the statements that answer them; on LoCoMo this
// lifted vector-only R@10 from 41.2 to 52.3 and hybrid from 63.3 to 65.2.
func VectorQuery(q string) string {
	if terms := text.QueryTerms(q); len(terms) > 0 {
		return strings.Join(terms, " ")
	}
	return q
}

// Relevance floor. A memory is a result only with evidence that it is about
// the query: a content word in common (the keyword leg or a hint found
// it), or a cosine similarity the embedding model does not give unrelated
// text. Without it every query, nonsense included, gets the nearest
// memories by meaning, however far.

// calibratedFloors are the floors measured per embedding model with `cairn
// bench floor` on the LoCoMo dev conversations: the 99th percentile of the
// similarity between a question and turns of other conversations (50,900
// pairs). For use-lite-512 (the built-in model) that is 0.393; half of the
// question–evidence pairs (49.6%) reach it, and the other half share words
// with their question.
var calibratedFloors = map[string]float64{
	"use-lite-512": 0.393,
}

// VectorFloor is the vector leg's relevance floor: search.
// min_vector_similarity when set (≥ 0), else the floor measured for the
// embedding model, else 0 (a model never measured has no floor).
func (s *Service) VectorFloor() float64 {
	if f := s.cfg.Search.MinVectorSimilarity; f >= 0 {
		return f
	}
	if e := s.vectors.Embedder(); e != nil {
		return calibratedFloors[e.Model()]
	}
	return 0
}

// evident reports whether the candidate has evidence of relevance: a
// keyword or hint match, or a similarity at or above floor.
func (c *candidate) evident(floor float64) bool {
	return c.kwRank >= 0 || c.hint > 0 || (c.hasVec && c.vector >= floor)
}

// candidate is one memory on its way through ranking.
type candidate struct {
	id       string
	mem      *Memory
	bm25     float64
	keyword  float64
	kwRank   int
	hint     float64
	coverage float64
	vector   float64
	hasVec   bool
	vecRank  int
	// context is the content of the memory's predecessor in its session
	// (search.session_context), prevID that memory's id.
	context, prevID string

	// rel is the score before importance and evidence, which the
	// neighbour lift reads; neighbor is what that lift added.
	rel, neighbor float64

	fused, graph, damp, decay, final float64
	evidence, speaker                float64

	model    float64 // the reranking model's score
	reranked bool
}

func (c *candidate) parts() *ScoreParts {
	r := func(x float64) float64 { return math.Round(x*10000) / 10000 }
	p := &ScoreParts{BM25: r(c.bm25), Keyword: r(c.keyword), Coverage: r(c.coverage), Hint: r(c.hint), Fused: r(c.fused), Graph: r(c.graph),
		Dampening: r(c.damp), Speaker: r(c.speaker), Neighbor: r(c.neighbor), Decay: r(c.decay), Evidence: r(c.evidence), Final: r(c.final)}
	if c.reranked {
		p.Model = r(c.model)
	}
	if c.hasVec {
		p.Vector = r(c.vector)
		if c.vecRank < 0 {
			p.Rerank = p.Vector // similarity computed for a keyword-only hit
		}
	}
	return p
}

// TermCoverage is the share of the query's terms that content contains
// (either form of an irregular verb counts).
func TermCoverage(qterms []string, content string) float64 {
	return weightedCoverage(qterms, nil, content)
}

// weightedCoverage is TermCoverage with each term counted at its weight
// w[i] (nil: all alike).
func weightedCoverage(qterms []string, w []float64, content string) float64 {
	if len(qterms) == 0 {
		return 0
	}
	if c, ok := quickWeightedCoverage(qterms, w, content); ok {
		return c // the same answer, for short content (coverage.go)
	}
	have := map[string]bool{}
	for _, t := range text.QueryTerms(content) {
		have[t] = true
	}
	held := make([]bool, len(qterms))
	for i, t := range qterms {
		held[i] = have[t] || slices.ContainsFunc(text.IrregularVerbs[t], func(f string) bool { return have[f] })
	}
	return heldShare(held, w)
}

// keywordScore maps a raw bm25 (negative, lower is better) into [0,1]
// relative to the best hit of the query, so the keyword leg's scale does
// not depend on corpus size the way 1/(1+|s|) does (which also runs the
// wrong way: a better match scores lower).
func keywordScore(bm25, best float64) float64 {
	if best == 0 {
		return 0
	}
	return math.Abs(bm25) / best
}

func Clamp01(x float64) float64 { return max(0, min(1, x)) }

// rrfK is the rank offset of reciprocal rank fusion (the customary 60).
const rrfK = 60

// score fuses the legs and applies the post-fusion adjustments.
func (s *Service) score(ctx context.Context, query string, cands map[string]*candidate, method string, both bool) {
	cfg := s.cfg.Search
	alpha := cfg.Alpha
	now := s.now()
	var terms map[string]bool
	if cfg.Dampening {
		terms = map[string]bool{}
		for _, t := range text.QueryTerms(query) {
			terms[t] = true
		}
	}
	// The keyword score blends BM25 (relative to the query's best match)
	// with the share of the query's words the memory contains: BM25 is
	// dominated by rare words, coverage by how much of the question a
	// memory answers.
	// A word only the memory's context (its predecessor in its session)
	// holds counts half, as in the index.
	qterms := text.QueryTerms(query)
	var weights []float64 // nil: every word alike (termweights.go)
	if cfg.CoverageIDF {
		weights = s.termWeights(ctx, qterms)
	}
	for _, c := range cands {
		if c.mem != nil {
			c.coverage = TermCoverage(qterms, c.mem.Content)
			cov := c.coverage
			if weights != nil {
				cov = weightedCoverage(qterms, weights, c.mem.Content)
			}
			if c.context != "" && cov < 1 {
				cov = BlendContext(cov, weightedCoverage(qterms, weights, c.mem.Content+"\n"+c.context))
			}
			c.keyword = (1-cfg.CoverageWeight)*c.keyword + cfg.CoverageWeight*cov
		}
	}
	boosted := s.graphBoost(ctx, query, cands)
	speakers := speakerFactors(qterms, cands, cfg.SpeakerWeight, cfg.SpeakerMargin)
	var hubs, constrained map[string]bool
	if cfg.Dampening {
		hubs = s.hubCandidates(ctx, query, cands)
		constrained = s.constraintCandidates(ctx, cands) // constraints.go
	}
	for _, c := range cands {
		if c.mem == nil {
			continue
		}
		switch {
		case !both && method == ModeKeyword:
			c.fused = c.keyword
		case !both && method == ModeVector:
			c.fused = c.vector
		case cfg.Fusion == "rrf":
			f := 0.0
			if c.kwRank >= 0 {
				f += (1 - alpha) / float64(rrfK+c.kwRank+1)
			}
			if c.vecRank >= 0 {
				f += alpha / float64(rrfK+c.vecRank+1)
			}
			c.fused = f * float64(rrfK+1) // the best possible rank scores 1
		default:
			v := c.vector
			if !c.hasVec {
				v = c.keyword // not embedded yet: neutral, judged by keywords alone
			}
			c.fused = alpha*v + (1-alpha)*c.keyword
		}
		score := c.fused
		if w := boosted[c.id]; w > 0 {
			c.graph = w * (1 - score)
			score = (1-w)*score + w
		}
		c.damp = 1
		if cfg.Dampening {
			c.damp = dampening(c, terms, score, hubs[c.id]) * constraintBoost(c, constrained[c.id])
			score *= c.damp
		}
		c.speaker = 1
		if f, ok := speakers[c.id]; ok {
			c.speaker = f
			score *= f
		}
		c.rel = score
	}
	neighborLift(cands, cfg.NeighborWeight) // neighbors.go
	for _, c := range cands {
		if c.mem == nil {
			continue
		}
		score := c.rel + c.neighbor
		c.decay = decayMultiplier(c.mem, cfg.DecayRate, now)
		score *= c.decay
		c.evidence = evolution.Factor(s.cfg.Memory.EvidenceWeight, c.mem.Confidence, c.mem.reinforced, c.mem.CreatedAt, c.mem.lastConfirmed, c.mem.Pinned, now)
		score *= c.evidence
		c.final = score
	}
}

// graphBoost is in graph.go.

// dampening is the post-fusion correction (docs/design/search.md,
// "Dampening"), as a multiplier: gravity halves semantic-only hits that
// share no word with the query; resolution favours decisions and
// constraints (×1.2) and memories with a temporal anchor (×1.1); hub
// dampening (×0.7) hits memories whose linked entities are all hubs
// (mentioned by half the live memories or more, see graph.go).
func dampening(c *candidate, terms map[string]bool, score float64, hub bool) float64 {
	m := 1.0
	if hub {
		m *= hubPenalty
	}
	if c.kwRank < 0 && score > 0.3 && len(terms) > 0 {
		overlap := false
		for _, t := range text.QueryTerms(c.mem.Content) {
			if terms[t] {
				overlap = true
				break
			}
		}
		if !overlap {
			m *= 0.5
		}
	}
	if text.CharCount(c.mem.Content) >= 50 {
		switch {
		case c.mem.Type == "decision" || c.mem.Type == "constraint":
			m *= 1.2
		case hasTemporalAnchor(c.mem.Content):
			m *= 1.1
		}
	}
	return m
}

var months = []string{"january", "february", "march", "april", "may", "june", "july", "august",
	"september", "october", "november", "december"}

func hasTemporalAnchor(s string) bool {
	lower := strings.ToLower(s)
	for _, m := range months {
		if strings.Contains(lower, m) {
			return true
		}
	}
	for i := 0; i+10 <= len(s); i++ { // ISO date YYYY-MM-DD
		if isDigits(s[i:i+4]) && s[i+4] == '-' && isDigits(s[i+5:i+7]) && s[i+7] == '-' && isDigits(s[i+8:i+10]) {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// decayMultiplier turns importance, decayed since last access, into a
// gentle multiplier in [0.8, 1]: relevance decides, importance and recency
// break near-ties. Pinned memories never decay.
func decayMultiplier(m *Memory, rate float64, now time.Time) float64 {
	eff := 1.0
	if !m.Pinned {
		ref := m.LastAccessed
		if ref == "" {
			ref = m.CreatedAt
		}
		days := 0.0
		if t, err := storage.ParseTime(ref); err == nil {
			days = max(0, now.Sub(t).Hours()/24)
		}
		eff = m.Importance * math.Pow(rate, days)
	}
	return 0.8 + 0.2*Clamp01(eff)
}

// loadContexts reads the session context of the candidates that have
// one, in one query. A failed read costs the ranking its contexts, not
// the recall.
func (s *Service) loadContexts(ctx context.Context, cands map[string]*candidate) {
	if !s.cfg.Search.SessionContext {
		return
	}
	var rids []int64
	for _, c := range cands {
		if c.mem != nil && c.mem.contextRID > 0 {
			rids = append(rids, c.mem.contextRID)
		}
	}
	if len(rids) == 0 {
		return
	}
	contexts, err := storage.ContextsByRID(ctx, s.db.Reader(), rids)
	if err != nil {
		s.log.Warn("recall: session contexts", "err", err)
		return
	}
	for _, c := range cands {
		if c.mem != nil && c.mem.contextRID > 0 {
			sc := contexts[c.mem.contextRID]
			c.context, c.prevID = sc.Content, sc.ID
		}
	}
}

// hydrate loads the rows of candidates found only by the vector leg.
func (s *Service) hydrate(ctx context.Context, cands map[string]*candidate) error {
	var ids []string
	for id, c := range cands {
		if c.mem == nil {
			ids = append(ids, id)
		}
	}
	for start := 0; start < len(ids); start += 500 {
		part := ids[start:min(start+500, len(ids))]
		rows, err := storage.ListMemories(ctx, s.db.Reader(), storage.MemoryFilter{IDs: part}, len(part), 0)
		if err != nil {
			return err
		}
		for _, m := range rows {
			cands[m.ID].mem = ViewOf(m)
		}
	}
	return nil
}

// RecordAccess records that memories were recalled (or injected, read by
// an agent): last_accessed and access_count only, which neither bumps the
// version nor re-indexes FTS.
func (s *Service) RecordAccess(ctx context.Context, ids []string) {
	if len(ids) == 0 || s.MutationsFrozen() {
		return
	}
	now := s.Timestamp()
	err := s.db.WriteTx(ctx, func(tx storage.Tx) error {
		return storage.RecordAccess(ctx, tx, now, ids)
	})
	if err != nil {
		s.log.Warn("access tracking", "err", err)
	}
}

func (s *Service) recallHit(m *Memory, score float64, source string) *RecallHit {
	content, n := m.Content, text.CharCount(m.Content)
	truncated := false
	if limit := s.cfg.Guardrails.RecallTruncateChars; n > limit {
		content = string([]rune(content)[:limit]) + " [truncated]"
		truncated = true
	}
	return &RecallHit{ID: m.ID, Content: content, ContentLength: n, Truncated: truncated,
		Score: math.Round(score*1000) / 1000, Source: source, Type: m.Type, Tags: m.Tags, Pinned: m.Pinned,
		Importance: m.Importance, Who: m.Who, Project: m.Project, CreatedAt: m.CreatedAt}
}
