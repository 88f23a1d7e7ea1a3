package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/bench"
)

const benchHooksUsage = "bench hooks --data FILE.jsonl [--n 50] [--binary PATH] [--drain=true] [--json]"

// benchHooks is `cairn bench hooks`: how long Claude Code waits on `cairn
// hook session-start` and `cairn hook user-prompt-submit`, through the real
// binary on a store imported from FILE (cairn import JSONL), from a
// repository's subfolder. Cold: no cairn runs before each hook (the server
// the previous hook started is stopped first), so the shim answers from
// the store itself and starts a server. Warm: the hooks go to the server
// the first hook started (by default once it has embedded every memory).
// Each figure is the hook process's whole run, start to exit.
func benchHooks(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, _ := newFlagSet("bench hooks", benchHooksUsage)
	data := fs.String("data", "", "memories to import, as cairn import JSONL")
	n := fs.Int("n", 50, "runs of each event in each phase")
	binary := fs.String("binary", "", "cairn binary to measure (default: this one)")
	drain := fs.Bool("drain", true, "before the warm phase, wait until the server has embedded every memory")
	drainTimeout := fs.Duration("drain-timeout", 30*time.Minute, "how long to wait for the embeddings")
	asJSON := fs.Bool("json", false, "print the rows as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *data == "" {
		return usageError{"--data FILE is required: cairn " + benchHooksUsage}
	}
	if *n < 1 {
		return usageError{"--n must be at least 1"}
	}
	bin := *binary
	if bin == "" {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		bin = self
	}
	prompts, err := bench.HookPrompts(*data, *n)
	if err != nil {
		return err
	}
	home, err := os.MkdirTemp("", "cairn-bench-hooks-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	addr, err := bench.FreeAddr()
	if err != nil {
		return err
	}
	repo := filepath.Join(home, "repo")
	cwd := filepath.Join(repo, "src", "api")
	for _, d := range []string{filepath.Join(repo, ".git"), cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	h := &bench.HookRunner{Bin: bin, Cwd: cwd, DB: filepath.Join(home, "memories.db"), Env: []string{"CAIRN_HOME=" + home, "CAIRN_ADDR=" + addr}}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CAIRN_") {
			h.Env = append(h.Env, kv)
		}
	}
	defer h.StopServer(false)
	fmt.Fprintf(stderr, "bench: importing %s into %s\n", *data, home)
	imp := exec.CommandContext(ctx, bin, "import", *data)
	imp.Env = h.Env
	if out, err := imp.CombinedOutput(); err != nil {
		return fmt.Errorf("cairn import: %v: %s", err, out)
	}

	rows := map[string]*bench.HookSeries{}
	series := func(phase, event string) *bench.HookSeries {
		k := phase + " " + event
		if rows[k] == nil {
			rows[k] = &bench.HookSeries{Phase: phase, Event: event}
		}
		return rows[k]
	}
	// Cold: the two events alternate, each after the server the previous
	// hook started has stopped.
	for i := 0; i < *n; i++ {
		for _, ev := range []string{"session-start", "user-prompt-submit"} {
			if err := h.StopServer(i > 0 || ev != "session-start"); err != nil {
				return err
			}
			took, injected, err := h.Run(ctx, ev, fmt.Sprintf("cold-%d", i), prompts[i%len(prompts)])
			if err != nil {
				return err
			}
			series("cold", ev).Add(took, injected)
		}
	}
	for _, ev := range []string{"session-start", "user-prompt-submit"} {
		r := series("cold", ev).Row()
		fmt.Fprintf(stderr, "bench: cold %s: p50 %.1f ms, p99 %.1f ms (%d runs)\n", ev, r.P50MS, r.P99MS, r.Runs)
	}
	// Warm: one hook starts the server; the others use it.
	if err := h.StopServer(true); err != nil {
		return err
	}
	if _, _, err := h.Run(ctx, "session-start", "warm-up", prompts[0]); err != nil {
		return err
	}
	if err := h.WaitServer(ctx, addr, *drain, *drainTimeout, stderr); err != nil {
		return err
	}
	for i := 0; i < *n; i++ {
		for _, ev := range []string{"session-start", "user-prompt-submit"} {
			took, injected, err := h.Run(ctx, ev, fmt.Sprintf("warm-%d", i), prompts[i%len(prompts)])
			if err != nil {
				return err
			}
			series("warm", ev).Add(took, injected)
		}
	}
	var out []bench.HooksRow
	for _, phase := range []string{"cold", "warm"} {
		for _, ev := range []string{"session-start", "user-prompt-submit"} {
			out = append(out, series(phase, ev).Row())
		}
	}
	if *asJSON {
		return printJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "hook processes from a repository subfolder, %d runs each (store: %s)\n", *n, *data)
	fmt.Fprintf(stdout, "%-6s %-20s %8s %8s %8s %9s\n", "phase", "event", "p50 ms", "p99 ms", "max ms", "injected")
	for _, r := range out {
		fmt.Fprintf(stdout, "%-6s %-20s %8.1f %8.1f %8.1f %5d/%-3d\n", r.Phase, r.Event, r.P50MS, r.P99MS, r.MaxMS, r.Injected, r.Runs)
	}
	return nil
}
