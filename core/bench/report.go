package bench

import (
	"math"
	"sort"
	"strconv"
	"time"
)

// CategoryNames names LoCoMo's question categories by code.
var CategoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

// sum accumulates the scores of a set of questions.
type sum struct {
	n int
	s Scores
}

func (b *sum) add(x Scores) {
	b.n++
	b.s.R1 += x.R1
	b.s.R5 += x.R5
	b.s.R10 += x.R10
	b.s.Hit += x.Hit
	b.s.MRR += x.MRR
	b.s.NDCG += x.NDCG
}

func (b *sum) row(key, name string) Row {
	r := Row{Key: key, Name: name, N: b.n}
	if b.n == 0 {
		return r
	}
	pct := func(v float64) float64 { return math.Round(1000*v/float64(b.n)) / 10 }
	r.R1, r.R5, r.R10, r.Hit, r.MRR, r.NDCG = pct(b.s.R1), pct(b.s.R5), pct(b.s.R10), pct(b.s.Hit), pct(b.s.MRR), pct(b.s.NDCG)
	return r
}

// Agg averages scores by question category, over the headline categories
// (1-4) and over all questions.
type Agg struct {
	cat           map[int]*sum
	headline, all sum
}

// NewAgg returns an empty aggregate.
func NewAgg() *Agg { return &Agg{cat: map[int]*sum{}} }

// Add counts one question of category with scores x.
func (a *Agg) Add(category int, x Scores) {
	if a.cat[category] == nil {
		a.cat[category] = &sum{}
	}
	a.cat[category].add(x)
	if category >= 1 && category <= 4 {
		a.headline.add(x)
	}
	a.all.add(x)
}

// Rows are codes 1..5, "1-4" (the headline), any other codes, then "all".
func (a *Agg) Rows() []Row {
	var rows []Row
	for c := 1; c <= 5; c++ {
		s := a.cat[c]
		if s == nil {
			s = &sum{}
		}
		rows = append(rows, s.row(strconv.Itoa(c), CategoryNames[c]))
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

// Row is one table row; figures are percentages with one decimal.
type Row struct {
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

// ModeReport is the result of one recall mode.
type ModeReport struct {
	Mode    string         `json:"mode"`
	Methods map[string]int `json:"methods"` // RecallResult.Method -> questions
	Rows    []Row          `json:"rows"`
	TotalMS float64        `json:"total_ms"`
	P50MS   float64        `json:"latency_p50_ms"`
	P99MS   float64        `json:"latency_p99_ms"`
}

// Row returns the row with key, or an empty one.
func (m *ModeReport) Row(key string) Row {
	for _, r := range m.Rows {
		if r.Key == key {
			return r
		}
	}
	return Row{Key: key}
}

// Report is every figure of one benchmark run.
type Report struct {
	Data          string        `json:"data"`
	K             int           `json:"k"`
	Conversations int           `json:"conversations"`
	Turns         int           `json:"turns"`
	Questions     int           `json:"questions"`
	Evidence      EvidenceStats `json:"evidence"`
	// Runs are the servers measured; the first is the default
	// configuration, and its first mode the headline.
	Runs []*RunReport `json:"runs"`
}

// NewReport starts the report of a run over samples of the file data,
// recalling k memories per question.
func NewReport(data string, k int, samples []Sample, ev EvidenceStats) *Report {
	r := &Report{Data: data, K: k, Conversations: len(samples), Evidence: ev}
	for _, s := range samples {
		r.Turns += len(s.Turns)
		r.Questions += len(s.Questions)
	}
	return r
}

// Headline is the default server's recall in the API's default mode.
func (r *Report) Headline() *ModeReport {
	if len(r.Runs) == 0 || len(r.Runs[0].Modes) == 0 {
		return nil
	}
	return r.Runs[0].Modes[0]
}

// RunReport is one server: its configuration, what the ingest cost it and
// the recall it gave.
type RunReport struct {
	Name           string   `json:"name"`
	Set            []string `json:"set,omitempty"` // config overrides
	Clients        int      `json:"clients"`
	Turns          int      `json:"turns"`
	Memories       int      `json:"memories"`
	Deduped        int      `json:"deduped_turns"`
	IngestMS       float64  `json:"ingest_ms"`
	RememberPerSec float64  `json:"remember_per_sec"`
	RememberP50MS  float64  `json:"remember_p50_ms"`
	RememberP99MS  float64  `json:"remember_p99_ms"`
	DrainMS        float64  `json:"drain_ms"` // after the last remember until the background work was done
	// CPU of the server process, per memory: while the turns were
	// remembered, and after that until the background work was drained.
	IngestCPUMSPerMemory      float64       `json:"ingest_cpu_ms_per_memory"`
	BackgroundCPUMSPerMemory  float64       `json:"background_cpu_ms_per_memory"`
	CPUMSPerMemory            float64       `json:"cpu_ms_per_memory"`
	DatabaseBytes             int64         `json:"database_bytes"`
	DatabaseBytesPerMemory    float64       `json:"database_bytes_per_memory"`
	PendingProposals          int64         `json:"pending_proposals"`
	PendingProposalsPerMemory float64       `json:"pending_proposals_per_memory"`
	Modes                     []*ModeReport `json:"modes"`
}

// NewRunReport starts the report of server name from its ingest.
func NewRunReport(name string, set []string, in *Ingested, clients int) *RunReport {
	return &RunReport{Name: name, Set: set, Clients: clients, Turns: in.Turns, Memories: in.Memories(), Deduped: in.Deduped,
		IngestMS: MS(in.Elapsed), RememberPerSec: math.Round(in.Rate()), RememberP50MS: MS(Percentile(in.Latency, 0.5)),
		RememberP99MS: MS(Percentile(in.Latency, 0.99))}
}

// SetCPU records the server's CPU during the ingest and after it.
func (r *RunReport) SetCPU(ingest, background time.Duration) {
	if r.Memories == 0 {
		return
	}
	per := func(d time.Duration) float64 { return MS(d / time.Duration(r.Memories)) }
	r.IngestCPUMSPerMemory, r.BackgroundCPUMSPerMemory, r.CPUMSPerMemory = per(ingest), per(background), per(ingest+background)
}

// SetDatabaseBytes records the database's size once the server stopped,
// and the per-memory figures.
func (r *RunReport) SetDatabaseBytes(n int64) {
	r.DatabaseBytes = n
	if r.Memories > 0 {
		r.DatabaseBytesPerMemory = math.Round(float64(n) / float64(r.Memories))
		r.PendingProposalsPerMemory = math.Round(1000*float64(r.PendingProposals)/float64(r.Memories)) / 1000
	}
}
