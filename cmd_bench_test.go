package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

const tinyLocomo = "testdata/bench/tiny-locomo.json"

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestBenchMetrics(t *testing.T) {
	ranked := []string{"a", "b", "e1", "c", "d", "f", "g", "h", "i", "j", "e2"}
	ev := []string{"e1", "e2"}

	// Two evidence ids, one at rank 3, the other at rank 11 (outside k=10).
	if got := recallAt(ranked, ev, 1); got != 0 {
		t.Errorf("R@1 = %v, want 0", got)
	}
	if got := recallAt(ranked, ev, 5); !near(got, 0.5) {
		t.Errorf("R@5 = %v, want 0.5", got)
	}
	if got := recallAt(ranked, ev, 10); !near(got, 0.5) {
		t.Errorf("R@10 = %v, want 0.5", got)
	}
	if got := recallAt(ranked, ev, 11); !near(got, 1) {
		t.Errorf("R@11 = %v, want 1", got)
	}
	if got := reciprocalRank(ranked, ev, 10); !near(got, 1.0/3) {
		t.Errorf("MRR = %v, want 1/3", got)
	}
	if got := reciprocalRank(ranked, ev, 2); got != 0 {
		t.Errorf("MRR@2 = %v, want 0", got)
	}
	if got := hitAt(ranked, ev, 10); got != 1 {
		t.Errorf("Hit@10 = %v, want 1", got)
	}
	if got := hitAt(ranked, ev, 2); got != 0 {
		t.Errorf("Hit@2 = %v, want 0", got)
	}
	// DCG = 1/log2(4) = 0.5; ideal over min(2,10) = 1 + 1/log2(3).
	want := 0.5 / (1 + 1/math.Log2(3))
	if got := ndcgAt(ranked, ev, 10); !near(got, want) {
		t.Errorf("nDCG@10 = %v, want %v", got, want)
	}
	// Perfect ranking.
	if got := ndcgAt([]string{"e2", "e1", "x"}, ev, 10); !near(got, 1) {
		t.Errorf("perfect nDCG = %v, want 1", got)
	}
	// One evidence id at rank 2: nDCG = 1/log2(3).
	if got := ndcgAt([]string{"x", "e1"}, []string{"e1"}, 10); !near(got, 1/math.Log2(3)) {
		t.Errorf("nDCG rank 2 = %v, want %v", got, 1/math.Log2(3))
	}
	// A repeated id in the ranking counts once.
	if got := recallAt([]string{"e1", "e1"}, ev, 10); !near(got, 0.5) {
		t.Errorf("R@10 with repeat = %v, want 0.5", got)
	}
	// Nothing found, empty ranking.
	if s := scoreRanking(nil, ev, 10); s != (benchScores{}) {
		t.Errorf("empty ranking scores %+v", s)
	}
	// scoreRanking cuts at k: with k=2, e1 at rank 3 is out.
	if s := scoreRanking(ranked, ev, 2); s.R10 != 0 || s.Hit != 0 || s.MRR != 0 {
		t.Errorf("k=2 scores %+v", s)
	}
	s := scoreRanking(ranked, ev, 10)
	if !near(s.R1, 0) || !near(s.R5, 0.5) || !near(s.R10, 0.5) || s.Hit != 1 || !near(s.MRR, 1.0/3) || !near(s.NDCG, want) {
		t.Errorf("scoreRanking = %+v", s)
	}
}

func TestBenchAggregate(t *testing.T) {
	a := newBenchAgg()
	a.add(1, benchScores{R10: 1, Hit: 1, MRR: 1})
	a.add(4, benchScores{R10: 0.5, Hit: 1, MRR: 0.5})
	a.add(5, benchScores{})
	rows := a.rows()
	byKey := map[string]benchRow{}
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
		got, rep, drop := repairEvidence(c.raw, valid)
		if !reflect.DeepEqual(got, c.want) || rep != c.repaired || drop != c.dropped {
			t.Errorf("repairEvidence(%q) = %q, %d repaired, %d dropped; want %q, %d, %d",
				c.raw, got, rep, drop, c.want, c.repaired, c.dropped)
		}
	}
}

func TestLoadLocomo(t *testing.T) {
	samples, ev, err := loadLocomo(tinyLocomo)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 2 || samples[0].ID != "tiny-a" || samples[1].ID != "tiny-b" {
		t.Fatalf("samples: %+v", samples)
	}
	if want := (evidenceStats{Repaired: 3, Dropped: 2, Skipped: 2}); ev != want {
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
	if got := benchContent(a.Turns[2]); got != "Mira: Look where he naps every afternoon. [a photo of a grey dog lying on a sunny balcony]" {
		t.Errorf("content with caption: %q", got)
	}
	if got := benchContent(a.Turns[0]); got != "Mira: I finally adopted a greyhound named Biscuit from the shelter last weekend." {
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

	if _, _, err := loadLocomo("testdata/bench/does-not-exist.json"); err == nil {
		t.Error("missing file: no error")
	}
}

func TestBenchUsage(t *testing.T) {
	ctx := context.Background()
	var out, errb bytes.Buffer
	for _, args := range [][]string{
		{},
		{"other", "--data", tinyLocomo},
		{"locomo"},
		{"locomo", "--data", tinyLocomo, "--modes", "fuzzy"},
		{"locomo", "--data", tinyLocomo, "--k", "0"},
	} {
		err := benchMain(ctx, args, &out, &errb)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("bench %q: err %v, want a usage error", args, err)
		}
	}
}

func TestBenchKeywordEndToEnd(t *testing.T) {
	var out, errb bytes.Buffer
	err := benchMain(context.Background(), []string{"locomo", "--data", tinyLocomo, "--modes", "keyword", "--json"}, &out, &errb)
	if err != nil {
		t.Fatalf("bench: %v\nstderr:\n%s", err, errb.String())
	}
	var rep benchReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out.String())
	}
	if rep.Conversations != 2 || rep.Turns != 15 || rep.Memories != 14 || rep.Deduped != 1 || rep.Questions != 10 {
		t.Errorf("report counts: %+v", rep)
	}
	if want := (evidenceStats{Repaired: 3, Dropped: 2, Skipped: 2}); rep.Evidence != want {
		t.Errorf("evidence %+v, want %+v", rep.Evidence, want)
	}
	if len(rep.Modes) != 1 || rep.Modes[0].Mode != "keyword" {
		t.Fatalf("modes: %+v", rep.Modes)
	}
	m := rep.Modes[0]
	rows := map[string]benchRow{}
	for _, r := range m.Rows {
		rows[r.Key] = r
	}
	// The single-hop questions share words with their evidence turns.
	if r := rows["4"]; r.N != 5 || r.R10 != 100 || r.Hit != 100 {
		t.Errorf("category 4 row: %+v", r)
	}
	if r := rows["1"]; r.N != 1 || r.R10 != 100 {
		t.Errorf("category 1 row (split evidence): %+v", r)
	}
	if r := rows["5"]; r.N != 1 {
		t.Errorf("category 5 row: %+v", r)
	}
	if r := rows["1-4"]; r.N != 9 {
		t.Errorf("headline row: %+v", r)
	}
	if r := rows["all"]; r.N != 10 {
		t.Errorf("all row: %+v", r)
	}

	// The text table has every row and the headline line.
	out.Reset()
	errb.Reset()
	if err := benchMain(context.Background(), []string{"locomo", "--data", tinyLocomo, "--modes", "keyword", "--convs", "1"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"mode keyword", "adversarial", "1-4", "headline (codes 1-4)", "ingest:", "evidence ids: 3 repaired, 1 dropped"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(errb.String(), "ingested tiny-a") || strings.Contains(errb.String(), "tiny-b") {
		t.Errorf("progress (stderr) with --convs 1:\n%s", errb.String())
	}
}
