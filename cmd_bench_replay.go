package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/cairnmem/cairn/core/bench"
	"github.com/cairnmem/cairn/core/ranker"
)

const benchReplayUsage = "bench replay --data FILE [--convs N] [--train N] [--compact-every 20] [--next-prompts 3] [--ranker=true] [--settle=true] [--set section.key=value] [--binary PATH] [--json]"

// benchReplay is `cairn bench replay` (core/bench/replay.go): LoCoMo
// conversations as sessions through the hooks of the real binary, with
// compactions injected; what the recovery digest carries across them; and
// the learned ranker, trained on the first conversations' sessions,
// against the baseline on the others'.
func benchReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, _ := newFlagSet("bench replay", benchReplayUsage)
	data := fs.String("data", "", "LoCoMo-format JSON file (a list of samples)")
	convs := fs.Int("convs", 0, "use only the first N conversations (0: all)")
	train := fs.Int("train", -1, "conversations the ranker trains on, the rest held out (default: all but 2)")
	every := fs.Int("compact-every", 20, "turns between injected compactions (a window the recovery digest must carry; LoCoMo sessions hold 22 turns on average)")
	next := fs.Int("next-prompts", 3, "prompts after a compaction whose injections count as carried")
	withRanker := fs.Bool("ranker", true, "run the learned ranker (predictor.enabled) and measure it")
	settle := fs.Bool("settle", true, "wait for the server's background work after each session and before the questions (repeatable figures)")
	var sets setFlags
	fs.Var(&sets, "set", "override a config key on the server, as section.key=value (repeatable)")
	binary := fs.String("binary", "", "cairn binary to measure (default: this one)")
	asJSON := fs.Bool("json", false, "print one JSON object with every figure")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *data == "" {
		return usageError{"--data FILE is required: cairn " + benchReplayUsage}
	}
	if *every < 1 || *next < 0 {
		return usageError{"--compact-every must be at least 1 and --next-prompts not negative"}
	}
	samples, _, err := bench.LoadLocomo(*data)
	if err != nil {
		return err
	}
	if *convs > 0 && *convs < len(samples) {
		samples = samples[:*convs]
	}
	nTrain := *train
	if nTrain < 0 {
		nTrain = max(1, len(samples)-2)
	}
	if nTrain > len(samples) || (*withRanker && (nTrain < 1 || nTrain == len(samples))) {
		return usageError{fmt.Sprintf("--train must leave conversations on both sides (%d conversations)", len(samples))}
	}
	set := append([]string{}, sets...)
	if *withRanker {
		// One training, on the training conversations' sessions alone: the
		// held-out sessions are only ranked.
		set = append(set, "predictor.enabled=true", "predictor.interval=1s",
			"predictor.min_sessions="+strconv.Itoa(max(2, bench.SessionCount(samples[:nTrain]))), "predictor.retrain_every=10000000")
	}
	if _, err := configWithSets(set); err != nil {
		return err
	}
	srv, err := bench.StartServer(ctx, bench.ServerOptions{Name: "replay", Binary: *binary, Set: set})
	if err != nil {
		return err
	}
	defer srv.Remove()
	if err := srv.WaitEmbedderReady(ctx, time.Minute); err != nil {
		return err
	}
	opts := bench.ReplayOptions{CompactEvery: *every, NextPrompts: *next}
	if *settle {
		opts.Settle = func(ctx context.Context) error {
			_, err := srv.Drain(ctx, 30*time.Minute, stderr)
			return err
		}
	}
	rep := &bench.ReplayReport{Data: *data, CompactEvery: *every, NextPrompts: *next, Train: &bench.ReplayPart{}, Held: &bench.ReplayPart{}, All: &bench.ReplayPart{}}
	for i, sm := range samples {
		if i == nTrain && *withRanker {
			if _, err := srv.Drain(ctx, 30*time.Minute, stderr); err != nil {
				return err
			}
			if rep.Trained, err = waitRanker(ctx, srv, func(st *ranker.PredictorStatus) bool { return st.TrainedSessions > 0 }); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "bench: replay: ranker trained on %d sessions: %s\n", rep.Trained.TrainedSessions, rep.Trained.Reason)
		}
		rc, err := bench.ReplayConversation(ctx, srv.Client, sm, opts, stderr)
		if err != nil {
			return err
		}
		if i < nTrain {
			rep.Train.Add(rc)
		} else {
			rep.Held.Add(rc)
		}
		rep.All.Add(rc)
	}
	if _, err := srv.Drain(ctx, 30*time.Minute, stderr); err != nil {
		return err
	}
	if *withRanker {
		if rep.Final, err = waitRanker(ctx, srv, func(st *ranker.PredictorStatus) bool { return st.PendingSessions == 0 }); err != nil {
			return err
		}
	}
	if rep.Feedback, err = srv.Client.AspectFeedback(ctx); err != nil {
		return err
	}
	for _, p := range []*bench.ReplayPart{rep.Train, rep.Held, rep.All} {
		p.Finish()
	}
	if *asJSON {
		return printJSON(stdout, rep)
	}
	bench.PrintReplay(stdout, rep)
	return nil
}

// waitRanker polls the ranker's status until done says so (two minutes at
// most: the worker looks every second).
func waitRanker(ctx context.Context, srv *bench.Server, done func(*ranker.PredictorStatus) bool) (*ranker.PredictorStatus, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, err := srv.Client.PredictorStatus(ctx)
		if err != nil {
			return nil, err
		}
		if done(st) {
			return st, nil
		}
		if time.Now().After(deadline) {
			return st, fmt.Errorf("the ranker did not get there within 2 minutes: %s (pending %d)", st.Reason, st.PendingSessions)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
