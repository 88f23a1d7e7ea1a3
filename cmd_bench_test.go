package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/bench"
)

const tinyLocomo = "core/bench/testdata/tiny-locomo.json"

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
	var rep bench.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out.String())
	}
	if rep.Conversations != 2 || rep.Turns != 15 || rep.Memories != 14 || rep.Deduped != 1 || rep.Questions != 10 {
		t.Errorf("report counts: %+v", rep)
	}
	if want := (bench.EvidenceStats{Repaired: 3, Dropped: 2, Skipped: 2}); rep.Evidence != want {
		t.Errorf("evidence %+v, want %+v", rep.Evidence, want)
	}
	if len(rep.Modes) != 1 || rep.Modes[0].Mode != "keyword" {
		t.Fatalf("modes: %+v", rep.Modes)
	}
	m := rep.Modes[0]
	rows := map[string]bench.Row{}
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
