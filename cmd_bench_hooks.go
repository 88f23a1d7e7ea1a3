package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cairnmem/cairn/core/bench"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/storage"
)

const benchHooksUsage = "bench hooks --data FILE.jsonl [--n 50] [--binary PATH] [--drain=true] [--json]"

// hooksRow is one hook event measured in one phase.
type hooksRow struct {
	Phase    string  `json:"phase"` // cold: no server running; warm: the server a hook started
	Event    string  `json:"event"`
	Runs     int     `json:"runs"`
	P50MS    float64 `json:"p50_ms"`
	P99MS    float64 `json:"p99_ms"`
	MaxMS    float64 `json:"max_ms"`
	Injected int     `json:"injected"` // runs whose answer carried an inject
}

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
	prompts, err := hookPrompts(*data, *n)
	if err != nil {
		return err
	}
	home, err := os.MkdirTemp("", "cairn-bench-hooks-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	addr, err := benchFreeAddr()
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
	h := &hookRunner{bin: bin, cwd: cwd, db: filepath.Join(home, "memories.db"), env: []string{"CAIRN_HOME=" + home, "CAIRN_ADDR=" + addr}}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CAIRN_") {
			h.env = append(h.env, kv)
		}
	}
	defer h.stopServer(false)
	fmt.Fprintf(stderr, "bench: importing %s into %s\n", *data, home)
	imp := exec.CommandContext(ctx, bin, "import", *data)
	imp.Env = h.env
	if out, err := imp.CombinedOutput(); err != nil {
		return fmt.Errorf("cairn import: %v: %s", err, out)
	}

	rows := map[string]*hookSeries{}
	series := func(phase, event string) *hookSeries {
		k := phase + " " + event
		if rows[k] == nil {
			rows[k] = &hookSeries{phase: phase, event: event}
		}
		return rows[k]
	}
	// Cold: the two events alternate, each after the server the previous
	// hook started has stopped.
	for i := 0; i < *n; i++ {
		for _, ev := range []string{"session-start", "user-prompt-submit"} {
			if err := h.stopServer(i > 0 || ev != "session-start"); err != nil {
				return err
			}
			took, injected, err := h.run(ctx, ev, fmt.Sprintf("cold-%d", i), prompts[i%len(prompts)])
			if err != nil {
				return err
			}
			series("cold", ev).add(took, injected)
		}
	}
	for _, ev := range []string{"session-start", "user-prompt-submit"} {
		r := series("cold", ev).row()
		fmt.Fprintf(stderr, "bench: cold %s: p50 %.1f ms, p99 %.1f ms (%d runs)\n", ev, r.P50MS, r.P99MS, r.Runs)
	}
	// Warm: one hook starts the server; the others use it.
	if err := h.stopServer(true); err != nil {
		return err
	}
	if _, _, err := h.run(ctx, "session-start", "warm-up", prompts[0]); err != nil {
		return err
	}
	if err := h.waitServer(ctx, addr, *drain, *drainTimeout, stderr); err != nil {
		return err
	}
	for i := 0; i < *n; i++ {
		for _, ev := range []string{"session-start", "user-prompt-submit"} {
			took, injected, err := h.run(ctx, ev, fmt.Sprintf("warm-%d", i), prompts[i%len(prompts)])
			if err != nil {
				return err
			}
			series("warm", ev).add(took, injected)
		}
	}
	var out []hooksRow
	for _, phase := range []string{"cold", "warm"} {
		for _, ev := range []string{"session-start", "user-prompt-submit"} {
			out = append(out, series(phase, ev).row())
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

// hookSeries collects one event's run times in one phase.
type hookSeries struct {
	phase, event string
	took         []time.Duration
	injected     int
}

func (s *hookSeries) add(d time.Duration, injected bool) {
	s.took = append(s.took, d)
	if injected {
		s.injected++
	}
}

func (s *hookSeries) row() hooksRow {
	return hooksRow{Phase: s.phase, Event: s.event, Runs: len(s.took), P50MS: bench.MS(bench.Percentile(s.took, 0.5)),
		P99MS: bench.MS(bench.Percentile(s.took, 0.99)), MaxMS: bench.MS(bench.Percentile(s.took, 1)), Injected: s.injected}
}

// hookRunner runs the hook shim as Claude Code does.
type hookRunner struct {
	bin, cwd, db string
	env          []string
}

// run runs `cairn hook EVENT` once and returns how long the process took
// and whether it printed an inject.
func (h *hookRunner) run(ctx context.Context, event, session, prompt string) (time.Duration, bool, error) {
	in := map[string]any{"session_id": session, "cwd": h.cwd, "hook_event_name": event}
	if event == "user-prompt-submit" {
		in["prompt"] = prompt
	}
	body, _ := json.Marshal(in)
	cmd := exec.CommandContext(ctx, h.bin, "hook", event)
	cmd.Env, cmd.Dir = h.env, h.cwd
	cmd.Stdin = bytes.NewReader(body)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return 0, false, fmt.Errorf("cairn hook %s: %v: %s", event, err, errb.String())
	}
	return took, strings.Contains(out.String(), "additionalContext"), nil
}

// stopServer stops the server a hook started and waits until its lock is
// free. With expect, a hook just ran that starts one: it waits for that
// server to be up first (else it would start after the next hook began).
func (h *hookRunner) stopServer(expect bool) error {
	var info storage.LockInfo
	up := time.Now().Add(30 * time.Second)
	for {
		var ok bool
		info, ok = storage.ReadLockInfo(h.db)
		held := harness.LockHeld(h.db)
		if held && ok && info.Addr != "" {
			break
		}
		if !held && !expect {
			return nil
		}
		if time.Now().After(up) {
			return fmt.Errorf("no server came up on %s within 30 s after a hook", h.db)
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(info.PID, syscall.SIGTERM)
	deadline := time.Now().Add(30 * time.Second)
	for harness.LockHeld(h.db) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(info.PID, syscall.SIGKILL)
			return fmt.Errorf("cairn (pid %d) did not stop within 30 s", info.PID)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// waitServer waits until the server a hook started answers on addr and,
// with drain, has embedded every memory.
func (h *hookRunner) waitServer(ctx context.Context, addr string, drain bool, timeout time.Duration, progress io.Writer) error {
	cl := client.HTTP(addr, client.Options{Timeout: 10 * time.Second})
	deadline := time.Now().Add(timeout)
	last := time.Now()
	for {
		ready := cl.Health(ctx) == nil
		if ready && drain {
			es, err := cl.EmbeddingStatus(ctx)
			pending, _ := es.Coverage["pending"].(float64)
			ready = err == nil && (es.Provider == "none" || (es.IndexReady && pending == 0))
			if !ready && time.Since(last) > 10*time.Second {
				last = time.Now()
				fmt.Fprintf(progress, "bench: waiting for the server's embeddings: %.0f left\n", pending)
			}
		}
		if ready {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server a hook started was not ready within %s", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// hookPrompts makes prompts from the first n memories of a JSONL file:
// the first words of each, as a user would ask about them.
func hookPrompts(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() && len(out) < n {
		var m struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		words := strings.Fields(m.Content)
		if len(words) < 3 {
			continue
		}
		out = append(out, "what about "+strings.Join(words[:min(len(words), 8)], " ")+"?")
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no memory with content to ask about", path)
	}
	return out, nil
}

// benchFreeAddr returns a loopback address nothing listens on.
func benchFreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
