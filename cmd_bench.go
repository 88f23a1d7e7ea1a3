package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/embedding"
)

// runBench runs a retrieval benchmark: cairn bench locomo --data FILE.
func runBench(ctx context.Context, args []string) error {
	return benchMain(ctx, args, os.Stdout, os.Stderr)
}

const benchUsage = "bench locomo --data FILE [--modes keyword,vector,hybrid] [--convs N] [--k 10] [--json]"

func benchMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, common := newFlagSet("bench", benchUsage)
	data := fs.String("data", "", "LoCoMo-format JSON file (a list of samples)")
	modes := fs.String("modes", "keyword,vector,hybrid", "comma-separated recall modes: keyword, vector, hybrid")
	var sets setFlags
	fs.Var(&sets, "set", "override a config key for this run, as section.key=value (repeatable)")
	sweep := fs.Bool("sweep", false, "also run hybrid over fusion (blend, rrf) × alpha (0.2..0.8) and print the headline of each")
	convs := fs.Int("convs", 0, "use only the first N conversations (0: all)")
	k := fs.Int("k", 10, "how many memories to recall per question")
	asJSON := fs.Bool("json", false, "print one JSON object with every figure")
	pos, err := parseFlags(fs, args)
	if err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	if len(pos) == 0 {
		return usageError{"which benchmark? usage: cairn " + benchUsage}
	}
	if pos[0] != "locomo" || len(pos) > 1 {
		return usageError{fmt.Sprintf("unknown benchmark %q (only locomo is known): cairn %s", strings.Join(pos, " "), benchUsage)}
	}
	if *data == "" {
		return usageError{"--data FILE is required: cairn " + benchUsage}
	}
	if *k < 1 || *k > core.MaxRecallLimit {
		return usageError{fmt.Sprintf("--k must be from 1 to %d", core.MaxRecallLimit)}
	}
	if *convs < 0 {
		return usageError{"--convs must not be negative"}
	}
	modeList, err := parseBenchModes(*modes)
	if err != nil {
		return err
	}

	// The benchmark runs on the default configuration unless a config file
	// or home folder is named explicitly (never the user's own config by
	// accident: figures must be reproducible).
	cfg := config.DefaultConfig()
	if common.config != "" || common.home != "" {
		a, err := loadApp(common)
		if err != nil {
			return err
		}
		a.close()
		cfg = *a.cfg
	}
	// One turn, one memory: no turn may be chunked.
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return usageError{fmt.Sprintf("--set %q: want section.key=value", kv)}
		}
		if err := cfg.Set(k, v); err != nil {
			return err
		}
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg.Guardrails.MaxContentChars = 100000
	cfg.Guardrails.ChunkTargetChars = 50000
	cfg.Guardrails.MaxRememberChars = max(cfg.Guardrails.MaxRememberChars, 100000)
	cfg.Guardrails.RecallTruncateChars = 100000

	samples, ev, err := loadLocomo(*data)
	if err != nil {
		return err
	}
	if *convs > 0 && *convs < len(samples) {
		samples = samples[:*convs]
		ev = evidenceStats{}
		for _, s := range samples {
			ev.add(s.evidence)
		}
	}
	rep := &benchReport{Data: *data, K: *k, Conversations: len(samples), Evidence: ev}
	for _, s := range samples {
		rep.Turns += len(s.Turns)
		rep.Questions += len(s.Questions)
	}
	fmt.Fprintf(stderr, "bench: %d conversations, %d turns, %d questions (%d skipped: no valid evidence)\n",
		len(samples), rep.Turns, rep.Questions, ev.Skipped)
	fmt.Fprintf(stderr, "bench: evidence ids: %d repaired, %d dropped\n", ev.Repaired, ev.Dropped)

	needVectors := false
	for _, m := range modeList {
		if m != core.ModeKeyword {
			needVectors = true
		}
	}
	var emb core.Embedder
	if needVectors {
		emb, err = embedding.New(cfg.Embedding)
		if err != nil {
			return fmt.Errorf("embedder: %w", err)
		}
		if emb != nil {
			rep.EmbeddingModel = emb.Model()
		}
	}

	dir, err := os.MkdirTemp("", "cairn-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := storage.Open(ctx, storage.Options{Path: dir + string(os.PathSeparator) + "bench.db", NoBackup: true})
	if err != nil {
		return err
	}
	defer db.Close()
	// Ingest runs without the embedder (Remember would otherwise embed each
	// turn on its own, one provider call per turn); EmbedPending then embeds
	// everything in batches, so the two times are measured apart.
	svc := core.NewService(db, cfg, core.ServiceOptions{})

	// Ingest every turn through the one write path.
	start := time.Now()
	idToDia := map[string][]string{} // memory id -> dia ids, per conversation
	actor := core.Actor{Name: "bench", Type: core.ActorSDK}
	for _, s := range samples {
		for _, t := range s.Turns {
			res, err := svc.Remember(ctx, core.RememberInput{
				Content:    benchContent(t),
				Project:    s.ID,
				Tags:       []string{s.ID},
				SourceType: "locomo",
				SourceID:   s.ID + ":" + t.DiaID,
			}, actor)
			if err != nil {
				return fmt.Errorf("remember %s %s: %w", s.ID, t.DiaID, err)
			}
			if res.Chunked || res.Memory == nil {
				return fmt.Errorf("remember %s %s: turn was chunked", s.ID, t.DiaID)
			}
			key := s.ID + "\x00" + res.Memory.ID
			if _, ok := idToDia[key]; ok {
				rep.Deduped++
			}
			idToDia[key] = append(idToDia[key], t.DiaID)
		}
		fmt.Fprintf(stderr, "bench: ingested %s (%d turns)\n", s.ID, len(s.Turns))
	}
	rep.Memories = len(idToDia)
	rep.IngestMS = ms(time.Since(start))
	fmt.Fprintf(stderr, "bench: ingest %d turns -> %d memories in %s\n", rep.Turns, rep.Memories, time.Since(start).Round(time.Millisecond))

	if emb != nil {
		svc = core.NewService(db, cfg, core.ServiceOptions{Embedder: emb})
		start := time.Now()
		last := time.Time{}
		err := svc.EmbedPending(ctx, func(done, total int) {
			if time.Since(last) >= 2*time.Second || done == total {
				last = time.Now()
				fmt.Fprintf(stderr, "bench: embedded %d/%d\n", done, total)
			}
		})
		if err != nil {
			return fmt.Errorf("embed: %w", err)
		}
		rep.EmbedMS = ms(time.Since(start))
		rep.Embedded = true
		fmt.Fprintf(stderr, "bench: embedding took %s\n", time.Since(start).Round(time.Millisecond))
	}

	for _, mode := range modeList {
		mr, err := benchMode(ctx, svc, samples, idToDia, mode, *k, stderr)
		if err != nil {
			return err
		}
		rep.Modes = append(rep.Modes, mr)
	}

	if *sweep && emb != nil {
		fmt.Fprintln(stdout, "sweep (hybrid, codes 1-4): fusion alpha  R@1  R@5  R@10  Hit@10  MRR  nDCG@10")
		for _, fusion := range []string{"blend", "rrf"} {
			for _, alpha := range []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8} {
				c := cfg
				c.Search.Fusion, c.Search.Alpha = fusion, alpha
				mr, err := benchMode(ctx, core.NewService(db, c, core.ServiceOptions{Embedder: emb}), samples, idToDia, core.ModeHybrid, *k, io.Discard)
				if err != nil {
					return err
				}
				h := mr.row("1-4")
				fmt.Fprintf(stdout, "sweep %-5s %.1f  %5.1f %5.1f %5.1f %6.1f %5.1f %6.1f\n", fusion, alpha, h.R1, h.R5, h.R10, h.Hit, h.MRR, h.NDCG)
			}
		}
	}

	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printBenchReport(stdout, rep)
	return nil
}

func parseBenchModes(s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, m := range strings.Split(s, ",") {
		m = strings.ToLower(strings.TrimSpace(m))
		if m == "" || seen[m] {
			continue
		}
		switch m {
		case core.ModeKeyword, core.ModeVector, core.ModeHybrid:
		default:
			return nil, usageError{fmt.Sprintf("unknown mode %q (keyword, vector or hybrid)", m)}
		}
		seen[m] = true
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, usageError{"--modes is empty"}
	}
	return out, nil
}

// benchContent is what one turn is stored as: "<speaker>: <text>", with an
// image's caption in brackets when the turn shared one.
func benchContent(t benchTurn) string {
	c := t.Speaker + ": " + t.Text
	if t.Caption != "" {
		c += " [" + t.Caption + "]"
	}
	return c
}

func ms(d time.Duration) float64 { return math.Round(float64(d.Microseconds())/10) / 100 }

// benchMode asks every question in one mode and scores the answers.
func benchMode(ctx context.Context, svc *core.Service, samples []benchSample, idToDia map[string][]string, mode string, k int, stderr io.Writer) (*benchModeReport, error) {
	agg := newBenchAgg()
	methods := map[string]int{}
	var lat []time.Duration
	start := time.Now()
	for _, s := range samples {
		for _, q := range s.Questions {
			t0 := time.Now()
			res, err := svc.Recall(ctx, core.RecallInput{Query: q.Question, Limit: k, Mode: mode,
				Filter: storage.MemoryFilter{Project: s.ID}, NoTracking: true})
			d := time.Since(t0)
			if err != nil {
				return nil, fmt.Errorf("%s recall %q: %w", mode, q.Question, err)
			}
			lat = append(lat, d)
			methods[res.Method]++
			var ranked []string
			seen := map[string]bool{}
			for _, h := range res.Results {
				for _, dia := range idToDia[s.ID+"\x00"+h.ID] {
					if !seen[dia] {
						seen[dia] = true
						ranked = append(ranked, dia)
					}
				}
			}
			agg.add(q.Category, scoreRanking(ranked, q.Evidence, k))
		}
	}
	mr := &benchModeReport{Mode: mode, Methods: methods, Rows: agg.rows(),
		TotalMS: ms(time.Since(start)), P50MS: ms(percentile(lat, 0.50)), P99MS: ms(percentile(lat, 0.99))}
	fmt.Fprintf(stderr, "bench: %s: %d questions in %s\n", mode, len(lat), time.Since(start).Round(time.Millisecond))
	if n := methods[mode]; mode != core.ModeKeyword && n < len(lat) {
		fmt.Fprintf(stderr, "bench: warning: %s mode answered %d of %d questions by another method: %v\n", mode, len(lat)-n, len(lat), methods)
	}
	return mr, nil
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// --- metrics ---

// benchScores are one question's figures, each a fraction in [0,1].
type benchScores struct {
	R1, R5, R10, Hit, MRR, NDCG float64
}

// scoreRanking scores ranked dia ids (best first; only the first k count)
// against the evidence ids.
func scoreRanking(ranked, evidence []string, k int) benchScores {
	if len(ranked) > k {
		ranked = ranked[:k]
	}
	return benchScores{
		R1:   recallAt(ranked, evidence, 1),
		R5:   recallAt(ranked, evidence, 5),
		R10:  recallAt(ranked, evidence, 10),
		Hit:  hitAt(ranked, evidence, k),
		MRR:  reciprocalRank(ranked, evidence, k),
		NDCG: ndcgAt(ranked, evidence, 10),
	}
}

func evidenceSet(evidence []string) map[string]bool {
	set := make(map[string]bool, len(evidence))
	for _, e := range evidence {
		set[e] = true
	}
	return set
}

// recallAt is |evidence ∩ top-k| / |evidence|.
func recallAt(ranked, evidence []string, k int) float64 {
	set := evidenceSet(evidence)
	if len(set) == 0 {
		return 0
	}
	found := 0
	for i, r := range ranked {
		if i >= k {
			break
		}
		if set[r] {
			found++
			delete(set, r) // count each evidence id once
		}
	}
	return float64(found) / float64(len(evidenceSet(evidence)))
}

// hitAt is 1 when any evidence id is in the top k.
func hitAt(ranked, evidence []string, k int) float64 {
	if reciprocalRank(ranked, evidence, k) > 0 {
		return 1
	}
	return 0
}

// reciprocalRank is 1/rank of the first evidence id within the top k, else 0.
func reciprocalRank(ranked, evidence []string, k int) float64 {
	set := evidenceSet(evidence)
	for i, r := range ranked {
		if i >= k {
			break
		}
		if set[r] {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// ndcgAt is binary-relevance nDCG over the top k, the ideal ranking putting
// min(|evidence|, k) relevant ids first.
func ndcgAt(ranked, evidence []string, k int) float64 {
	set := evidenceSet(evidence)
	if len(set) == 0 {
		return 0
	}
	var dcg, ideal float64
	for i, r := range ranked {
		if i >= k {
			break
		}
		if set[r] {
			dcg += 1 / math.Log2(float64(i+2))
			delete(set, r)
		}
	}
	for i := 0; i < min(len(evidenceSet(evidence)), k); i++ {
		ideal += 1 / math.Log2(float64(i+2))
	}
	return dcg / ideal
}

// --- aggregation and report ---

var benchCategoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

type benchSum struct {
	n int
	s benchScores
}

func (b *benchSum) add(x benchScores) {
	b.n++
	b.s.R1 += x.R1
	b.s.R5 += x.R5
	b.s.R10 += x.R10
	b.s.Hit += x.Hit
	b.s.MRR += x.MRR
	b.s.NDCG += x.NDCG
}

func (b *benchSum) row(key, name string) benchRow {
	r := benchRow{Key: key, Name: name, N: b.n}
	if b.n == 0 {
		return r
	}
	pct := func(v float64) float64 { return math.Round(1000*v/float64(b.n)) / 10 }
	r.R1, r.R5, r.R10, r.Hit, r.MRR, r.NDCG = pct(b.s.R1), pct(b.s.R5), pct(b.s.R10), pct(b.s.Hit), pct(b.s.MRR), pct(b.s.NDCG)
	return r
}

type benchAgg struct {
	cat           map[int]*benchSum
	headline, all benchSum
}

func newBenchAgg() *benchAgg { return &benchAgg{cat: map[int]*benchSum{}} }

func (a *benchAgg) add(category int, x benchScores) {
	if a.cat[category] == nil {
		a.cat[category] = &benchSum{}
	}
	a.cat[category].add(x)
	if category >= 1 && category <= 4 {
		a.headline.add(x)
	}
	a.all.add(x)
}

// rows are codes 1..5, "1-4" (the headline), any other codes, then "all".
func (a *benchAgg) rows() []benchRow {
	var rows []benchRow
	for c := 1; c <= 5; c++ {
		s := a.cat[c]
		if s == nil {
			s = &benchSum{}
		}
		rows = append(rows, s.row(strconv.Itoa(c), benchCategoryNames[c]))
	}
	rows = append(rows, a.headline.row("1-4", "headline"))
	var other []int
	for c := range a.cat {
		if c < 1 || c > 5 {
			other = append(other, c)
		}
	}
	sort.Ints(other)
	for _, c := range other {
		rows = append(rows, a.cat[c].row(strconv.Itoa(c), "unknown"))
	}
	return append(rows, a.all.row("all", "all"))
}

// benchRow is one table row; figures are percentages with one decimal.
type benchRow struct {
	Key  string  `json:"category"`
	Name string  `json:"name"`
	N    int     `json:"n"`
	R1   float64 `json:"r_at_1"`
	R5   float64 `json:"r_at_5"`
	R10  float64 `json:"r_at_10"`
	Hit  float64 `json:"hit_at_k"`
	MRR  float64 `json:"mrr"`
	NDCG float64 `json:"ndcg_at_10"`
}

type benchModeReport struct {
	Mode    string         `json:"mode"`
	Methods map[string]int `json:"methods"` // RecallResult.Method -> questions
	Rows    []benchRow     `json:"rows"`
	TotalMS float64        `json:"total_ms"`
	P50MS   float64        `json:"latency_p50_ms"`
	P99MS   float64        `json:"latency_p99_ms"`
}

func (m *benchModeReport) row(key string) benchRow {
	for _, r := range m.Rows {
		if r.Key == key {
			return r
		}
	}
	return benchRow{Key: key}
}

type benchReport struct {
	Data           string             `json:"data"`
	K              int                `json:"k"`
	Conversations  int                `json:"conversations"`
	Turns          int                `json:"turns"`
	Memories       int                `json:"memories"`
	Deduped        int                `json:"deduped_turns"`
	Questions      int                `json:"questions"`
	Evidence       evidenceStats      `json:"evidence"`
	EmbeddingModel string             `json:"embedding_model,omitempty"`
	Embedded       bool               `json:"embedded"`
	IngestMS       float64            `json:"ingest_ms"`
	EmbedMS        float64            `json:"embed_ms"`
	Modes          []*benchModeReport `json:"modes"`
}

func printBenchReport(w io.Writer, r *benchReport) {
	fmt.Fprintf(w, "LoCoMo retrieval: %d conversations, %d turns -> %d memories, %d questions scored (%d skipped), k=%d\n",
		r.Conversations, r.Turns, r.Memories, r.Questions, r.Evidence.Skipped, r.K)
	fmt.Fprintf(w, "evidence ids: %d repaired, %d dropped\n", r.Evidence.Repaired, r.Evidence.Dropped)
	hitCol := fmt.Sprintf("Hit@%d", r.K)
	for _, m := range r.Modes {
		fmt.Fprintf(w, "\nmode %s (methods: %s)\n", m.Mode, formatMethods(m.Methods))
		fmt.Fprintf(w, "%-4s %-12s %5s %6s %6s %6s %7s %6s %8s\n", "cat", "", "n", "R@1", "R@5", "R@10", hitCol, "MRR", "nDCG@10")
		for _, row := range m.Rows {
			fmt.Fprintf(w, "%-4s %-12s %5d %6.1f %6.1f %6.1f %7.1f %6.1f %8.1f\n",
				row.Key, row.Name, row.N, row.R1, row.R5, row.R10, row.Hit, row.MRR, row.NDCG)
		}
	}
	fmt.Fprintf(w, "\nheadline (codes 1-4)\n")
	fmt.Fprintf(w, "%-8s %5s %6s %6s %6s %7s %6s %8s %9s %9s\n", "mode", "n", "R@1", "R@5", "R@10", hitCol, "MRR", "nDCG@10", "p50 ms", "p99 ms")
	for _, m := range r.Modes {
		h := m.row("1-4")
		fmt.Fprintf(w, "%-8s %5d %6.1f %6.1f %6.1f %7.1f %6.1f %8.1f %9.2f %9.2f\n",
			m.Mode, h.N, h.R1, h.R5, h.R10, h.Hit, h.MRR, h.NDCG, m.P50MS, m.P99MS)
	}
	fmt.Fprintf(w, "\ningest: %.0f ms", r.IngestMS)
	switch {
	case r.Embedded:
		fmt.Fprintf(w, "; embedding (%s): %.0f ms", r.EmbeddingModel, r.EmbedMS)
	default:
		fmt.Fprint(w, "; embedding: none")
	}
	fmt.Fprintln(w)
}

func formatMethods(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// --- loading LoCoMo ---

type benchTurn struct {
	DiaID, Speaker, Text, Caption string
}

type benchQuestion struct {
	Question string
	Evidence []string // repaired, valid, deduplicated
	Category int      // 0 when missing or unreadable
}

type benchSample struct {
	ID        string
	Turns     []benchTurn
	Questions []benchQuestion
	evidence  evidenceStats
}

// evidenceStats counts the evidence repairs: entries that were not a valid
// dia id as given but yielded valid ones (split lists, "D:11:26",
// "D30:05"), ids that could not be repaired, and questions left without
// any valid evidence (not scored).
type evidenceStats struct {
	Repaired int `json:"repaired"`
	Dropped  int `json:"dropped"`
	Skipped  int `json:"skipped_questions"`
}

func (e *evidenceStats) add(o evidenceStats) {
	e.Repaired += o.Repaired
	e.Dropped += o.Dropped
	e.Skipped += o.Skipped
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// loadLocomo reads a LoCoMo-format file. It tolerates missing or oddly typed
// fields in qa items, repairs malformed evidence ids and skips questions
// left with no valid evidence.
func loadLocomo(path string) ([]benchSample, evidenceStats, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, evidenceStats{}, err
	}
	var in []struct {
		SampleID     json.RawMessage            `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []map[string]any           `json:"qa"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, evidenceStats{}, fmt.Errorf("%s: not a LoCoMo-format file (a JSON list of samples): %w", path, err)
	}
	var out []benchSample
	var total evidenceStats
	for i, s := range in {
		sm := benchSample{ID: jsonScalar(s.SampleID)}
		if sm.ID == "" {
			sm.ID = fmt.Sprintf("sample-%d", i+1)
		}
		type session struct {
			n     int
			turns json.RawMessage
		}
		var sessions []session
		for key, v := range s.Conversation {
			if m := sessionKey.FindStringSubmatch(key); m != nil {
				n, _ := strconv.Atoi(m[1])
				sessions = append(sessions, session{n, v})
			}
		}
		sort.Slice(sessions, func(a, b int) bool { return sessions[a].n < sessions[b].n })
		valid := map[string]bool{}
		for _, ses := range sessions {
			var turns []struct {
				Speaker     string `json:"speaker"`
				DiaID       string `json:"dia_id"`
				Text        string `json:"text"`
				BlipCaption string `json:"blip_caption"`
			}
			if err := json.Unmarshal(ses.turns, &turns); err != nil {
				return nil, evidenceStats{}, fmt.Errorf("%s: %s session_%d: %w", path, sm.ID, ses.n, err)
			}
			for _, t := range turns {
				t.DiaID = strings.TrimSpace(t.DiaID)
				if t.DiaID == "" || valid[t.DiaID] || strings.TrimSpace(t.Text+t.BlipCaption) == "" {
					continue
				}
				valid[t.DiaID] = true
				sm.Turns = append(sm.Turns, benchTurn{DiaID: t.DiaID, Speaker: strings.TrimSpace(t.Speaker),
					Text: strings.TrimSpace(t.Text), Caption: strings.TrimSpace(t.BlipCaption)})
			}
		}
		for _, qa := range s.QA {
			q, _ := qa["question"].(string)
			q = strings.TrimSpace(q)
			var rawEv []string
			switch e := qa["evidence"].(type) {
			case string:
				rawEv = []string{e}
			case []any:
				for _, x := range e {
					if str, ok := x.(string); ok {
						rawEv = append(rawEv, str)
					}
				}
			}
			ids, repaired, dropped := repairEvidence(rawEv, valid)
			sm.evidence.Repaired += repaired
			sm.evidence.Dropped += dropped
			if q == "" || len(ids) == 0 {
				sm.evidence.Skipped++
				continue
			}
			sm.Questions = append(sm.Questions, benchQuestion{Question: q, Evidence: ids, Category: anyInt(qa["category"])})
		}
		total.add(sm.evidence)
		out = append(out, sm)
	}
	if len(out) == 0 {
		return nil, total, fmt.Errorf("%s: no samples", path)
	}
	return out, total, nil
}

// jsonScalar renders a string or number as a string.
func jsonScalar(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(r, &n) == nil {
		return n.String()
	}
	return ""
}

// anyInt reads a category given as a number or a numeric string; 0 if neither.
func anyInt(v any) int {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) {
			return int(x)
		}
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err == nil {
			return n
		}
	}
	return 0
}

var diaIDLoose = regexp.MustCompile(`^[Dd]\W*0*(\d+)\W+0*(\d+)$`)

// repairEvidence returns the valid dia ids named by raw evidence entries, in
// order and without repeats. An entry that is not itself a valid id is split
// on ';', ',' and spaces, and each part normalized ("D:11:26" -> "D11:26",
// "D30:05" -> "D30:5"); parts that still name no turn are dropped. repaired
// counts entries that needed this and yielded at least one valid id;
// dropped counts parts that could not be repaired.
func repairEvidence(raw []string, valid map[string]bool) (ids []string, repaired, dropped int) {
	seen := map[string]bool{}
	keep := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, e := range raw {
		e = strings.TrimSpace(e)
		if valid[e] {
			keep(e)
			continue
		}
		parts := strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ',' || r == ' ' || r == '\t' || r == '\n' })
		fixed := 0
		for _, p := range parts {
			if !valid[p] {
				if m := diaIDLoose.FindStringSubmatch(p); m != nil {
					a, _ := strconv.Atoi(m[1])
					b, _ := strconv.Atoi(m[2])
					p = fmt.Sprintf("D%d:%d", a, b)
				}
			}
			if valid[p] {
				keep(p)
				fixed++
			} else {
				dropped++
			}
		}
		if fixed > 0 {
			repaired++
		}
	}
	return ids, repaired, dropped
}

// setFlags collects repeated --set flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }
