//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/bench"
)

// TestBenchSessionsThroughTheHookShim runs `cairn bench sessions` on a
// slice of the built-in corpus (the first session of each project) as
// users run it: the real binary as the server, the hook shim as Claude
// Code's subprocesses, learning on and off. It checks the report's shape
// and sanity, not its timings.
func TestBenchSessionsThroughTheHookShim(t *testing.T) {
	full, err := bench.DefaultSessionCorpus()
	if err != nil {
		t.Fatal(err)
	}
	slice := full.Slice(1)
	turns := 0
	for _, s := range slice.Sessions {
		turns += len(s.Turns)
	}
	var out, errb bytes.Buffer
	err = benchMain(context.Background(), []string{"sessions", "--sessions", "1", "--binary", cairnBin,
		"--set", "pipeline.shadow_mode=false", "--json"}, &out, &errb)
	if err != nil {
		t.Fatalf("bench: %v\nstderr:\n%s", err, errb.String())
	}
	var rep bench.SessionsReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out.String())
	}
	if rep.Provider != "heuristic" || rep.Mode != "controlled-write" || rep.Corpus != bench.DefaultSessionCorpusName {
		t.Errorf("provider %q, mode %q, corpus %q", rep.Provider, rep.Mode, rep.Corpus)
	}
	all := rep.Split("all")
	if len(rep.Splits) != 3 || all.Sessions != len(slice.Sessions) || all.Turns != turns || all.Never != len(slice.Projects) ||
		all.Questions+all.Never != len(slice.Questions) || len(rep.Questions) != len(slice.Questions) {
		t.Fatalf("splits %+v for %d sessions, %d questions", rep.Splits, len(slice.Sessions), len(slice.Questions))
	}
	if dev, held := rep.Split(bench.SplitDev), rep.Split(bench.SplitHeldOut); dev.Sessions+held.Sessions != all.Sessions || dev.Memories+held.Memories != all.Memories {
		t.Errorf("dev %+v + held-out %+v is not all %+v", dev, held, all)
	}
	learned := 0
	for _, s := range rep.Sessions {
		learned += s.Memories
		if s.Memories != len(s.Learned) {
			t.Errorf("session %s: %d memories, %d listed", s.ID, s.Memories, len(s.Learned))
		}
	}
	// The sessions teach (a stack, decisions, commands), none of their
	// chatter is learned, and some later question gets what answers it.
	if rep.Memories == 0 || learned != rep.Memories || all.Memories != rep.Memories || all.MemoriesPerSess <= 0 {
		t.Errorf("%d memories, %d by session, split %+v", rep.Memories, learned, all)
	}
	if len(rep.Chatter) != 0 || all.ChatterMemories != 0 {
		t.Errorf("chatter learned: %+v", rep.Chatter)
	}
	if all.AnsweredAlone == 0 || all.AnsweredWithStart < all.Answered {
		t.Errorf("answered: %+v", all)
	}
	if rep.SessionEnd.N != len(slice.Sessions) || rep.Prompt.N != turns {
		t.Errorf("hook runs: session end %+v, prompt %+v", rep.SessionEnd, rep.Prompt)
	}
	if rep.Cost == nil || rep.Cost.Turns != turns {
		t.Errorf("learning cost: %+v", rep.Cost)
	}
	for _, want := range []string{"learning: pipeline controlled-write, provider heuristic", "learning-off: starting cairn serve pipeline.shadow_mode=false pipeline.enabled=false"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, errb.String())
		}
	}

	// The text report, on the dev split alone.
	out.Reset()
	errb.Reset()
	if err := benchMain(context.Background(), []string{"sessions", "--sessions", "1", "--split", "dev", "--binary", cairnBin, "--cost=false"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, want := range []string{"default configuration; pipeline controlled-write, provider heuristic", "answered", "session end p50"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	// A corpus with a mistake is refused before any server starts, naming
	// the field; so is an unknown split.
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"projects":[{"name":"api"}],"sessions":[{"id":"s1","project":"web","split":"dev","turns":[]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := benchMain(context.Background(), []string{"sessions", "--data", bad}, &out, &errb); err == nil || !strings.Contains(err.Error(), "sessions[0].project") {
		t.Errorf("bad corpus: %v", err)
	}
	if err := benchMain(context.Background(), []string{"sessions", "--split", "train"}, &out, &errb); err == nil || !strings.Contains(err.Error(), "train") {
		t.Errorf("bad split: %v", err)
	}
}
