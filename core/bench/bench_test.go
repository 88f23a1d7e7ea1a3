package bench_test

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/bench"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

const tinyLocomo = "testdata/tiny-locomo.json"

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestBenchMetrics(t *testing.T) {
	ranked := []string{"a", "b", "e1", "c", "d", "f", "g", "h", "i", "j", "e2"}
	ev := []string{"e1", "e2"}

	// Two evidence ids, one at rank 3, the other at rank 11 (outside k=10).
	if got := bench.RecallAt(ranked, ev, 1); got != 0 {
		t.Errorf("R@1 = %v, want 0", got)
	}
	if got := bench.RecallAt(ranked, ev, 5); !near(got, 0.5) {
		t.Errorf("R@5 = %v, want 0.5", got)
	}
	if got := bench.RecallAt(ranked, ev, 10); !near(got, 0.5) {
		t.Errorf("R@10 = %v, want 0.5", got)
	}
	if got := bench.RecallAt(ranked, ev, 11); !near(got, 1) {
		t.Errorf("R@11 = %v, want 1", got)
	}
	if got := bench.ReciprocalRank(ranked, ev, 10); !near(got, 1.0/3) {
		t.Errorf("MRR = %v, want 1/3", got)
	}
	if got := bench.ReciprocalRank(ranked, ev, 2); got != 0 {
		t.Errorf("MRR@2 = %v, want 0", got)
	}
	if got := bench.HitAt(ranked, ev, 10); got != 1 {
		t.Errorf("Hit@10 = %v, want 1", got)
	}
	if got := bench.HitAt(ranked, ev, 2); got != 0 {
		t.Errorf("Hit@2 = %v, want 0", got)
	}
	// DCG = 1/log2(4) = 0.5; ideal over min(2,10) = 1 + 1/log2(3).
	want := 0.5 / (1 + 1/math.Log2(3))
	if got := bench.NDCGAt(ranked, ev, 10); !near(got, want) {
		t.Errorf("nDCG@10 = %v, want %v", got, want)
	}
	// Perfect ranking.
	if got := bench.NDCGAt([]string{"e2", "e1", "x"}, ev, 10); !near(got, 1) {
		t.Errorf("perfect nDCG = %v, want 1", got)
	}
	// One evidence id at rank 2: nDCG = 1/log2(3).
	if got := bench.NDCGAt([]string{"x", "e1"}, []string{"e1"}, 10); !near(got, 1/math.Log2(3)) {
		t.Errorf("nDCG rank 2 = %v, want %v", got, 1/math.Log2(3))
	}
	// A repeated id in the ranking counts once.
	if got := bench.RecallAt([]string{"e1", "e1"}, ev, 10); !near(got, 0.5) {
		t.Errorf("R@10 with repeat = %v, want 0.5", got)
	}
	// Nothing found, empty ranking.
	if s := bench.ScoreRanking(nil, ev, 10); s != (bench.Scores{}) {
		t.Errorf("empty ranking scores %+v", s)
	}
	// scoreRanking cuts at k: with k=2, e1 at rank 3 is out.
	if s := bench.ScoreRanking(ranked, ev, 2); s.R10 != 0 || s.Hit != 0 || s.MRR != 0 {
		t.Errorf("k=2 scores %+v", s)
	}
	s := bench.ScoreRanking(ranked, ev, 10)
	if !near(s.R1, 0) || !near(s.R5, 0.5) || !near(s.R10, 0.5) || s.Hit != 1 || !near(s.MRR, 1.0/3) || !near(s.NDCG, want) {
		t.Errorf("scoreRanking = %+v", s)
	}
}

func TestBenchAggregate(t *testing.T) {
	a := bench.NewAgg()
	a.Add(1, bench.Scores{R10: 1, Hit: 1, MRR: 1})
	a.Add(4, bench.Scores{R10: 0.5, Hit: 1, MRR: 0.5})
	a.Add(5, bench.Scores{})
	rows := a.Rows()
	byKey := map[string]bench.Row{}
	for _, r := range rows {
		byKey[r.Key] = r
	}
	if r := byKey["1-4"]; r.N != 2 || r.R10 != 75 || r.Hit != 100 || r.MRR != 75 {
		t.Errorf("headline row %+v", r)
	}
	if r := byKey["all"]; r.N != 3 || r.R10 != 50 {
		t.Errorf("all row %+v", r)
	}
	if r := byKey["2"]; r.N != 0 || r.R10 != 0 {
		t.Errorf("empty category row %+v", r)
	}
	if rows[len(rows)-1].Key != "all" || rows[5].Key != "1-4" {
		t.Errorf("row order: %+v", rows)
	}
}

func TestRepairEvidence(t *testing.T) {
	valid := map[string]bool{"D8:6": true, "D9:17": true, "D11:26": true, "D30:5": true, "D1:1": true, "D22:1": true, "D22:2": true}
	cases := []struct {
		raw               []string
		want              []string
		repaired, dropped int
	}{
		{[]string{"D1:1"}, []string{"D1:1"}, 0, 0},
		{[]string{"D8:6; D9:17"}, []string{"D8:6", "D9:17"}, 1, 0},
		{[]string{"D22:1 D22:2"}, []string{"D22:1", "D22:2"}, 1, 0},
		{[]string{"D:11:26"}, []string{"D11:26"}, 1, 0},
		{[]string{"D30:05"}, []string{"D30:5"}, 1, 0},
		{[]string{"D4:36"}, nil, 0, 1},
		{[]string{"D1:1", "D4:36"}, []string{"D1:1"}, 0, 1},
		{[]string{"D8:6; D4:36"}, []string{"D8:6"}, 1, 1},
		{[]string{"D1:1", " D1:1 ", "D1:01"}, []string{"D1:1"}, 1, 0},
		{[]string{"garbage"}, nil, 0, 1},
		{[]string{""}, nil, 0, 0},
		{nil, nil, 0, 0},
	}
	for _, c := range cases {
		got, rep, drop := bench.RepairEvidence(c.raw, valid)
		if !reflect.DeepEqual(got, c.want) || rep != c.repaired || drop != c.dropped {
			t.Errorf("bench.RepairEvidence(%q) = %q, %d repaired, %d dropped; want %q, %d, %d",
				c.raw, got, rep, drop, c.want, c.repaired, c.dropped)
		}
	}
}

func TestLoadLocomo(t *testing.T) {
	samples, ev, err := bench.LoadLocomo(tinyLocomo)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 2 || samples[0].ID != "tiny-a" || samples[1].ID != "tiny-b" {
		t.Fatalf("samples: %+v", samples)
	}
	if want := (bench.EvidenceStats{Repaired: 3, Dropped: 2, Skipped: 2}); ev != want {
		t.Errorf("evidence stats %+v, want %+v", ev, want)
	}
	a, b := samples[0], samples[1]
	if len(a.Turns) != 10 || len(b.Turns) != 5 {
		t.Errorf("turns: %d, %d", len(a.Turns), len(b.Turns))
	}
	// Sessions in order, turns in order.
	if a.Turns[0].DiaID != "D1:1" || a.Turns[4].DiaID != "D2:1" || a.Turns[9].DiaID != "D3:2" {
		t.Errorf("turn order: %+v", a.Turns)
	}
	if got := bench.Content(a.Turns[2]); got != "Mira: Look where he naps every afternoon. [a photo of a grey dog lying on a sunny balcony]" {
		t.Errorf("content with caption: %q", got)
	}
	if got := bench.Content(a.Turns[0]); got != "Mira: I finally adopted a greyhound named Biscuit from the shelter last weekend." {
		t.Errorf("content: %q", got)
	}
	if len(a.Questions) != 7 || len(b.Questions) != 3 {
		t.Fatalf("questions: %d, %d", len(a.Questions), len(b.Questions))
	}
	q := a.Questions[2]
	if q.Category != 1 || !reflect.DeepEqual(q.Evidence, []string{"D2:2", "D3:2"}) {
		t.Errorf("split evidence: %+v", q)
	}
	if q := a.Questions[3]; !reflect.DeepEqual(q.Evidence, []string{"D2:1"}) {
		t.Errorf("D:2:1 evidence: %+v", q)
	}
	if q := a.Questions[4]; !reflect.DeepEqual(q.Evidence, []string{"D2:3"}) {
		t.Errorf("D2:03 evidence: %+v", q)
	}
	if q := a.Questions[6]; q.Category != 5 {
		t.Errorf("adversarial question: %+v", q)
	}
	if q := b.Questions[0]; q.Category != 4 || !reflect.DeepEqual(q.Evidence, []string{"D1:3"}) {
		t.Errorf("string category / dropped id: %+v", q)
	}

	if _, _, err := bench.LoadLocomo("testdata/does-not-exist.json"); err == nil {
		t.Error("missing file: no error")
	}
}

// TestIngestAndAskThroughAPI runs the benchmark's client side against the
// real API handler over HTTP: turns remembered through POST
// /api/memory/remember, questions through POST /api/memory/recall.
func TestIngestAndAskThroughAPI(t *testing.T) {
	ctx := context.Background()
	samples, _, err := bench.LoadLocomo(tinyLocomo)
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.NewEnv(t, apitest.NoPipeline)
	cl := client.HTTP(strings.TrimPrefix(e.Srv.URL, "http://"), client.Options{})
	var progress bytes.Buffer
	in, err := bench.IngestAPI(ctx, cl, samples, 3, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if in.Turns != 15 || in.Memories() != 14 || in.Deduped != 1 || len(in.Latency) != 15 || in.Rate() <= 0 {
		t.Errorf("ingest: turns %d memories %d deduped %d rate %v", in.Turns, in.Memories(), in.Deduped, in.Rate())
	}
	if got := e.Count(t, "SELECT count(*) FROM memories WHERE source_type = 'locomo'"); got != 14 {
		t.Errorf("stored %d memories, want 14", got)
	}
	if !strings.Contains(progress.String(), "remembered 15 turns -> 14 memories") {
		t.Errorf("progress: %s", progress.String())
	}
	m, err := bench.AskAPI(ctx, cl, in, core.ModeKeyword, 10)
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Row("4"); r.N != 5 || r.R10 != 100 || r.Hit != 100 {
		t.Errorf("category 4 row: %+v", r)
	}
	if r := m.Row("1"); r.N != 1 || r.R10 != 100 {
		t.Errorf("category 1 row (evidence split over two turns): %+v", r)
	}
	if r := m.Row("all"); r.N != 10 || m.Methods[core.ModeKeyword] != 10 || m.Mode != core.ModeKeyword {
		t.Errorf("all row %+v, methods %v", r, m.Methods)
	}
	if r := m.Row("nope"); r.Key != "nope" || r.N != 0 {
		t.Errorf("missing row: %+v", r)
	}
	// Questions stay in their conversation: tiny-b's memories never answer
	// tiny-a's questions (project filter).
	if n := e.Count(t, "SELECT count(*) FROM memories WHERE project NOT IN ('tiny-a','tiny-b')"); n != 0 {
		t.Errorf("%d memories outside the conversations' projects", n)
	}
	rr := bench.NewRunReport("default", nil, in, 3)
	rr.PendingProposals = 7
	rr.SetCPU(140*time.Millisecond, 70*time.Millisecond)
	rr.SetDatabaseBytes(14000)
	if rr.IngestCPUMSPerMemory != 10 || rr.BackgroundCPUMSPerMemory != 5 || rr.CPUMSPerMemory != 15 ||
		rr.DatabaseBytesPerMemory != 1000 || rr.PendingProposalsPerMemory != 0.5 {
		t.Errorf("per-memory figures: %+v", rr)
	}
}

func TestParseProcCPU(t *testing.T) {
	// A command name with spaces and a parenthesis; utime 250, stime 50
	// ticks.
	line := "4242 (cairn (x) y) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 50 0 0 20 0 12 0 100 0 0"
	d, ok := bench.ParseProcCPU([]byte(line))
	if !ok || d != 3*time.Second {
		t.Errorf("cpu = %v %v, want 3s", d, ok)
	}
	for _, bad := range []string{"", "4242 (cairn S 1", "1 (x) S 1 2 3 4 5 6 7 8 9 10 x 50 0"} {
		if _, ok := bench.ParseProcCPU([]byte(bad)); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestPercentile(t *testing.T) {
	if bench.Percentile(nil, 0.5) != 0 {
		t.Error("empty")
	}
	d := []time.Duration{5, 1, 4, 2, 3}
	if p := bench.Percentile(d, 0.5); p != 3 {
		t.Errorf("p50 = %v", p)
	}
	if p := bench.Percentile(d, 0.99); p != 5 {
		t.Errorf("p99 = %v", p)
	}
	if p := bench.Percentile(d, 0); p != 1 {
		t.Errorf("p0 = %v", p)
	}
	if d[0] != 5 {
		t.Error("input reordered")
	}
	if ms := bench.MS(1234567 * time.Nanosecond); ms != 1.23 {
		t.Errorf("MS = %v", ms)
	}
}
