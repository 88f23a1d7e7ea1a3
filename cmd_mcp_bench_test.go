//go:build integration

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkMCPStart: what `cairn mcp` costs an agent's session start, the
// way a client starts it: spawn the process, send initialize, wait for
// its answer, send notifications/initialized and tools/list, and stop the
// clock at the tool list. Two cases: "proxy", with a cairn serve holding
// the database (as a hook leaves it), and "owner", with none running (the
// process opens the store itself). Each case runs every binary of
// CAIRN_BENCH_MCP_BINARIES (NAME=PATH,... beside the one TestMain built,
// "now") in rotating order, so that the machine's load falls on each
// alike. Metrics per binary: the p50 of the wall time to the tool list,
// and the p50 of the process's whole CPU time (user+sys, start to exit,
// which the load does not inflate). Run with
//
//	go test -tags integration -run '^$' -bench 'MCPStart' -benchtime 40x .
//	CAIRN_BENCH_MCP_BINARIES=before=/tmp/cairn-before go test -tags integration -run '^$' -bench 'MCPStart' -benchtime 40x .
func BenchmarkMCPStart(b *testing.B) {
	type binary struct{ name, path string }
	bins := []binary{{"now", cairnBin}}
	if env := os.Getenv("CAIRN_BENCH_MCP_BINARIES"); env != "" {
		for _, kv := range strings.Split(env, ",") {
			name, path, ok := strings.Cut(kv, "=")
			if !ok {
				b.Fatalf("CAIRN_BENCH_MCP_BINARIES: %q is not NAME=PATH", kv)
			}
			bins = append(bins, binary{name, path})
		}
	}
	for _, mode := range []string{"proxy", "owner"} {
		b.Run(mode, func(b *testing.B) {
			home := b.TempDir()
			addr := freeAddr(b)
			srv := startServer(b, home, addr)
			if code, out := postJSON(b, "http://"+addr+"/api/memory/remember", map[string]any{"content": "the MCP benchmark's memory"}); code != 200 && code != 201 {
				b.Fatalf("remember: %d %v", code, out)
			}
			if mode == "owner" {
				srv.stop(b)
			} else {
				defer srv.stop(b)
			}
			dir := b.TempDir() // the agent's working directory
			run := func(bin binary) (wall, cpu time.Duration) {
				// An address of its own: an owner serves the API too.
				cmd := exec.Command(bin.path, "mcp", "--addr", freeAddr(b))
				cmd.Env, cmd.Dir = append(os.Environ(), "CAIRN_HOME="+home), dir
				wall = mcpStartOnce(b, cmd)
				return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			for _, bin := range bins { // warm up: the page cache, the store's first open
				run(bin)
			}
			walls := make([][]time.Duration, len(bins))
			cpus := make([][]time.Duration, len(bins))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := range bins {
					k := (i + j) % len(bins)
					w, c := run(bins[k])
					walls[k] = append(walls[k], w)
					cpus[k] = append(cpus[k], c)
				}
			}
			b.StopTimer()
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			for k, bin := range bins {
				b.ReportMetric(ms(median(walls[k])), bin.name+"-tools-p50-ms")
				b.ReportMetric(ms(median(cpus[k])), bin.name+"-cpu-p50-ms")
				b.Logf("%s %s: tools/list answered p50 %v (runs: %v); CPU p50 %v", mode, bin.name,
					median(walls[k]).Round(time.Millisecond/10), round(walls[k]), median(cpus[k]).Round(time.Millisecond/10))
			}
			if logs, _ := os.ReadFile(filepath.Join(home, "logs", "cairn.log")); !strings.Contains(string(logs), "mcp") {
				b.Errorf("the log file has no line of cairn mcp: %s", logs)
			}
		})
	}
}

// mcpStartOnce starts cmd (a cairn mcp), times it from its start to its
// answer to tools/list, then closes its stdin and waits for it to exit.
func mcpStartOnce(b *testing.B, cmd *exec.Cmd) time.Duration {
	b.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	answer := func(id float64) map[string]any {
		for lines.Scan() {
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				b.Fatalf("stdout line is not JSON: %q", lines.Text())
			}
			if m["id"] == id {
				return m
			}
		}
		cmd.Process.Kill()
		b.Fatalf("cairn mcp ended before answering %v: %v; stderr: %s", id, lines.Err(), stderr)
		return nil
	}
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if m := answer(1); m["result"] == nil {
		b.Fatalf("initialize: %v", m)
	}
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
	m := answer(2)
	elapsed := time.Since(start)
	if res, _ := m["result"].(map[string]any); res == nil || len(res["tools"].([]any)) != 6 {
		b.Fatalf("tools/list: %v", m)
	}
	stdin.Close()
	go io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("cairn mcp exited with %v: %s", err, stderr)
	}
	return elapsed
}
