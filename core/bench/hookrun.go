package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/harness/shim"
	"github.com/cairnmem/cairn/storage"
)

// HookSeries collects one event's run times in one phase.
type HookSeries struct {
	Phase, Event string
	took         []time.Duration
	injected     int
}

func (s *HookSeries) Add(d time.Duration, injected bool) {
	s.took = append(s.took, d)
	if injected {
		s.injected++
	}
}

func (s *HookSeries) Row() HooksRow {
	return HooksRow{Phase: s.Phase, Event: s.Event, Runs: len(s.took), P50MS: MS(Percentile(s.took, 0.5)),
		P99MS: MS(Percentile(s.took, 0.99)), MaxMS: MS(Percentile(s.took, 1)), Injected: s.injected}
}

// HookRunner runs the hook shim as Claude Code does.
type HookRunner struct {
	Bin, Cwd, DB string // the cairn binary, the working folder, the database it serves
	Env          []string
}

// Run runs `cairn hook EVENT` once and returns how long the process took
// and whether it printed an inject.
func (h *HookRunner) Run(ctx context.Context, event, session, prompt string) (time.Duration, bool, error) {
	in := map[string]any{"session_id": session, "cwd": h.Cwd, "hook_event_name": event}
	if event == "user-prompt-submit" {
		in["prompt"] = prompt
	}
	body, _ := json.Marshal(in)
	cmd := exec.CommandContext(ctx, h.Bin, "hook", event)
	cmd.Env, cmd.Dir = h.Env, h.Cwd
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

// StopServer stops the server a hook started and waits until its lock is
// free. With expect, a hook just ran that starts one: it waits for that
// server to be up first (else it would start after the next hook began).
func (h *HookRunner) StopServer(expect bool) error {
	var info storage.LockInfo
	up := time.Now().Add(30 * time.Second)
	for {
		var ok bool
		info, ok = storage.ReadLockInfo(h.DB)
		held := shim.LockHeld(h.DB)
		if held && ok && info.Addr != "" {
			break
		}
		if !held && !expect {
			return nil
		}
		if time.Now().After(up) {
			return fmt.Errorf("no server came up on %s within 30 s after a hook", h.DB)
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(info.PID, syscall.SIGTERM)
	deadline := time.Now().Add(30 * time.Second)
	for shim.LockHeld(h.DB) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(info.PID, syscall.SIGKILL)
			return fmt.Errorf("cairn (pid %d) did not stop within 30 s", info.PID)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// WaitServer waits until the server a hook started answers on addr and,
// with drain, has embedded every memory.
func (h *HookRunner) WaitServer(ctx context.Context, addr string, drain bool, timeout time.Duration, progress io.Writer) error {
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

// HookPrompts makes prompts from the first n memories of a JSONL file:
// the first words of each, as a user would ask about them.
func HookPrompts(path string, n int) ([]string, error) {
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

// HooksRow is one hook event measured in one phase.
type HooksRow struct {
	Phase    string  `json:"phase"` // cold: no server running; warm: the server a hook started
	Event    string  `json:"event"`
	Runs     int     `json:"runs"`
	P50MS    float64 `json:"p50_ms"`
	P99MS    float64 `json:"p99_ms"`
	MaxMS    float64 `json:"max_ms"`
	Injected int     `json:"injected"` // runs whose answer carried an inject
}
