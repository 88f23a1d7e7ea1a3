//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/bench"
)

// TestBenchThroughTheBinary runs `cairn bench locomo` as users run it: the
// real binary started as servers (default, pipeline off), turns remembered
// over HTTP, the workers drained, questions recalled over HTTP.
func TestBenchThroughTheBinary(t *testing.T) {
	var out, errb bytes.Buffer
	err := benchMain(context.Background(), []string{"locomo", "--data", tinyLocomo, "--binary", cairnBin,
		"--ablations", "pipeline-off,keyword", "--clients", "2", "--json"}, &out, &errb)
	if err != nil {
		t.Fatalf("bench: %v\nstderr:\n%s", err, errb.String())
	}
	var rep bench.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out.String())
	}
	if rep.Conversations != 2 || rep.Turns != 15 || rep.Questions != 10 {
		t.Errorf("report counts: %+v", rep)
	}
	if want := (bench.EvidenceStats{Repaired: 3, Dropped: 2, Skipped: 2}); rep.Evidence != want {
		t.Errorf("evidence %+v, want %+v", rep.Evidence, want)
	}
	if len(rep.Runs) != 2 || rep.Runs[0].Name != "default" || rep.Runs[1].Name != "pipeline-off" {
		t.Fatalf("runs: %+v", rep.Runs)
	}
	def := rep.Runs[0]
	if def.Memories != 14 || def.Deduped != 1 || def.RememberPerSec <= 0 || def.CPUMSPerMemory <= 0 || def.DatabaseBytes <= 0 {
		t.Errorf("default run: %+v", def)
	}
	if len(def.Modes) != 2 || def.Modes[0].Mode != "default" || def.Modes[1].Mode != "keyword" {
		t.Fatalf("default modes: %+v", def.Modes)
	}
	if h := rep.Headline(); h != def.Modes[0] || h.Row("4").N != 5 || h.Row("4").R10 != 100 {
		t.Errorf("headline: %+v", h.Row("4"))
	}
	if off := rep.Runs[1]; len(off.Modes) != 1 || off.Set[len(off.Set)-1] != "pipeline.enabled=false" || off.Memories != 14 {
		t.Errorf("pipeline-off run: %+v", off)
	}
	for _, want := range []string{"default: background work done", "pipeline-off: starting cairn serve pipeline.enabled=false"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, errb.String())
		}
	}

	// The text report has the per-category table, the headline and the
	// cost table.
	out.Reset()
	errb.Reset()
	if err := benchMain(context.Background(), []string{"locomo", "--data", tinyLocomo, "--binary", cairnBin, "--ablations", "none", "--convs", "1"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	text := out.String()
	for _, want := range []string{"default server, default recall", "adversarial", "default / default", "rem/s", "evidence ids: 3 repaired, 1 dropped"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

// TestBenchLocoThroughTheBinary runs the leave-one-conversation-out mode
// on the two tiny conversations: a store per ingest setting, a server per
// ranking setting on it, two folds, BM25 beside them.
func TestBenchLocoThroughTheBinary(t *testing.T) {
	var out, errb bytes.Buffer
	err := benchMain(context.Background(), []string{"locomo", "--loco", "--data", tinyLocomo, "--binary", cairnBin,
		"--factor", "search.speaker_weight=0,0.3", "--factor", "search.session_context=false,true", "--json"}, &out, &errb)
	if err != nil {
		t.Fatalf("bench: %v\nstderr:\n%s", err, errb.String())
	}
	var rep bench.LocoReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out.String())
	}
	if len(rep.Folds) != 2 || len(rep.Factors) != 2 || rep.Factors[0].Base != "0.3" || rep.Factors[1].Base != "true" {
		t.Fatalf("report: %+v", rep)
	}
	// Three stores: BM25's, the base's, and one without session context.
	if rep.Stores != 3 || rep.Servers < 4 {
		t.Errorf("stores %d, servers %d", rep.Stores, rep.Servers)
	}
	for _, f := range rep.Folds {
		if f.Questions == 0 || f.Tuned.R10 <= 0 || f.BM25.R10 <= 0 {
			t.Errorf("fold %+v", f)
		}
	}
	for _, fr := range rep.Factors {
		if len(fr.Folds) != 2 || fr.Wins+fr.Losses > 2 || fr.WinsAdv+fr.LossesAdv > 2 {
			t.Errorf("factor %+v", fr)
		}
		for _, ff := range fr.Folds {
			if ff.Off.R10 <= 0 || ff.Off.R10All <= 0 {
				t.Errorf("factor %s fold %+v", fr.Key, ff)
			}
		}
	}
	if s, ok := rep.Summary["tuned_r_at_10"]; !ok || s.Min > s.Mean || s.Mean > s.Max {
		t.Errorf("summary: %+v", rep.Summary)
	}

	out.Reset()
	errb.Reset()
	if err := benchMain(context.Background(), []string{"locomo", "--loco", "--data", tinyLocomo, "--binary", cairnBin,
		"--factor", "search.speaker_weight=0,0.3"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, want := range []string{"held out", "mean over the held-out folds", "search.speaker_weight", "in-sample", "adversarial"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
