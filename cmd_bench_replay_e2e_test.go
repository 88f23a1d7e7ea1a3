//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/cairnmem/cairn/core/bench"
)

// TestBenchReplayRepeatable runs `cairn bench replay` through the real
// binary twice: with the server's background work settled after each
// session and before the questions, the two runs give the same figures
// (recovery, questions, the relevance scoring's agreement with the
// evidence, the ranker's), and the report says what aspect feedback did.
func TestBenchReplayRepeatable(t *testing.T) {
	run := func() *bench.ReplayReport {
		var out, errb bytes.Buffer
		err := benchMain(context.Background(), []string{"replay", "--data", tinyLocomo, "--binary", cairnBin,
			"--train", "1", "--compact-every", "2", "--json"}, &out, &errb)
		if err != nil {
			t.Fatalf("bench replay: %v\nstderr:\n%s", err, errb.String())
		}
		var rep bench.ReplayReport
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("json: %v\n%s", err, out.String())
		}
		return &rep
	}
	a, b := run(), run()
	if a.All.Sessions != 5 || a.All.Prompts != 15 || a.CompactEvery != 2 || a.All.Recovery.Compactions == 0 {
		t.Fatalf("replay counts: %+v", a.All)
	}
	if a.All.Relevance.Offered == 0 || a.Feedback == nil || a.Feedback.SinceStart.Sessions != 5 {
		t.Fatalf("relevance and aspect feedback figures: %+v, %+v", a.All.Relevance, a.Feedback)
	}
	figures := func(r *bench.ReplayReport) string {
		// The parts hold every count and share; the ranker's status carries
		// times, so only its figures.
		b, err := json.Marshal([]any{r.Train, r.Held, r.All, r.Trained.Holdout, r.Final.Moving, r.Feedback.SinceStart})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if fa, fb := figures(a), figures(b); fa != fb {
		t.Fatalf("two runs of one binary differ:\n%s\n%s", fa, fb)
	}
}
