//go:build integration

package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The harness's own tests run each pinned CLI against its scripted model
// with a probe in place of cairn: this test binary, run again by the CLI
// as a command hook (probeHookArg) or as a stdio MCP server (probeMCPArg).
// Both log what they get, one JSON object a line, to the file named in
// their arguments.

const (
	probeHookArg = "agenttest-hook"
	probeMCPArg  = "agenttest-mcp"
	// probeTool is the probe MCP server's one tool.
	probeTool = "probe"
	// probeResult starts every answer of the probe tool.
	probeResult = "PROBE_RESULT"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case probeHookArg:
			os.Exit(probeHook(os.Args[2:]))
		case probeMCPArg:
			os.Exit(probeMCP(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

// probeEntry is one line of a probe's log.
type probeEntry struct {
	// Role is hook or mcp.
	Role string `json:"role"`
	// Event is the hook's event (its first argument), or the MCP tool
	// called.
	Event string          `json:"event"`
	Stdin json.RawMessage `json:"stdin,omitempty"`
	Args  json.RawMessage `json:"args,omitempty"`
	Env   map[string]string
}

var logMu sync.Mutex

func appendLog(path string, e probeEntry) {
	logMu.Lock()
	defer logMu.Unlock()
	b, _ := json.Marshal(e)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		return
	}
	defer f.Close()
	f.Write(append(b, '\n'))
}

// hookMarker is the context a probe hook injects for event.
func hookMarker(event string) string { return "PROBE_CTX_" + event + ": remember the build uses make." }

// probeHook is `TESTBIN agenttest-hook EVENT LOG [inject]`: it logs its
// stdin, and with inject prints the context-injection answer the Claude
// Code family of hooks reads (Codex and Gemini CLI took it over).
func probeHook(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: agenttest-hook EVENT LOG [inject]")
		return 1
	}
	event, logPath := args[0], args[1]
	in, _ := io.ReadAll(os.Stdin)
	if !json.Valid(in) {
		in, _ = json.Marshal(string(in))
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		// What the CLI tells its hooks about itself.
		for _, p := range []string{"CLAUDE", "CODEX", "GEMINI", "OPENCODE", "CURSOR"} {
			if strings.HasPrefix(k, p) && !strings.Contains(k, "KEY") {
				env[k] = v
			}
		}
	}
	appendLog(logPath, probeEntry{Role: "hook", Event: event, Stdin: in, Env: env})
	if len(args) > 2 && args[2] == "inject" {
		out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": event, "additionalContext": hookMarker(event)}})
		fmt.Println(string(out))
	}
	return 0
}

// probeMCP is `TESTBIN agenttest-mcp LOG`: a stdio MCP server with one
// tool, probe(query), that answers PROBE_RESULT and the query.
func probeMCP(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: agenttest-mcp LOG")
		return 1
	}
	logPath := args[0]
	srv := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "1"}, nil)
	type in struct {
		Query string `json:"query" jsonschema:"what to look up"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: probeTool, Description: "Look up stored memories that match a query."},
		func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			b, _ := json.Marshal(a)
			appendLog(logPath, probeEntry{Role: "mcp", Event: probeTool, Args: b})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: probeResult + " for " + a.Query + ": the build uses make."}}}, nil, nil
		})
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "probe mcp:", err)
		return 1
	}
	return 0
}

// probeLog reads a probe log.
func probeLog(t *testing.T, path string) []probeEntry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []probeEntry
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var e probeEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("probe log line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

// logProbe writes what the probes got to the test log (go test -v shows
// it: the hook payloads docs/agents.md describes).
func logProbe(t *testing.T, entries []probeEntry) {
	t.Helper()
	for _, e := range entries {
		if strings.HasPrefix(e.Event, "event:plugin.added") || strings.HasPrefix(e.Event, "event:message.part") {
			continue // many, and all alike
		}
		s := string(e.Stdin)
		if len(s) > 1500 {
			s = s[:1500] + "…"
		}
		t.Logf("%s %s: %s %s env=%v", e.Role, e.Event, s, e.Args, e.Env)
	}
}

// events is the hook events in a probe log, in order.
func events(entries []probeEntry) []string {
	var out []string
	for _, e := range entries {
		if e.Role != "mcp" {
			out = append(out, e.Event)
		}
	}
	return out
}

func testBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// elapsed formats a duration for the log.
func elapsed(d time.Duration) string { return d.Round(10 * time.Millisecond).String() }
