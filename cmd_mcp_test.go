//go:build integration

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpStdio starts `cairn mcp` for home and connects an SDK client named
// agent to it over stdin/stdout.
func mcpStdio(t *testing.T, home, agent string) (*mcp.ClientSession, *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := cairnCmd(home, "mcp")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: agent, Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to cairn mcp: %v\nstderr: %s", err, stderr)
	}
	return cs, stderr
}

func mcpToolCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s failed: %v", name, res.Content)
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || out == nil {
		t.Fatalf("%s: structured content %s", name, b)
	}
	return out
}

// storeAndSearch lists the tools, stores a decision and finds it again.
func storeAndSearch(t *testing.T, cs *mcp.ClientSession, content string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if len(names) != 6 {
		t.Fatalf("tools %v", names)
	}
	out := mcpToolCall(t, cs, "memory_store", map[string]any{"content": content, "type": "decision", "tags": []string{"mcp"}})
	id, _ := out["id"].(string)
	if id == "" || out["type"] != "decision" {
		t.Fatalf("store: %v", out)
	}
	out = mcpToolCall(t, cs, "memory_search", map[string]any{"query": content, "type": "decision"})
	res, _ := out["results"].([]any)
	if len(res) == 0 || res[0].(map[string]any)["id"] != id {
		t.Fatalf("search did not find %s: %v", id, out)
	}
	res2, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_forget", Arguments: map[string]any{"id": "missing", "reason": "x"}})
	if err != nil || !res2.IsError {
		t.Fatalf("forget missing: %v %v", res2, err)
	}
	return id
}

// `cairn mcp` with no cairn running opens the store itself; stdout carries
// protocol only and nothing reaches stderr (logs go to the log file).
func TestMCPStdioOpensStore(t *testing.T) {
	home := t.TempDir()
	cs, stderr := mcpStdio(t, home, "stdio-agent")
	storeAndSearch(t, cs, "the stdio server opens the store itself")
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr should be empty: %s", stderr)
	}
	logs, _ := os.ReadFile(filepath.Join(home, "logs", "cairn.log"))
	if !strings.Contains(string(logs), "mcp over stdio") {
		t.Errorf("log file lacks the start line: %q", logs)
	}
	// The store was released: a second run opens it again and finds the memory.
	cs, _ = mcpStdio(t, home, "stdio-agent")
	defer cs.Close()
	out := mcpToolCall(t, cs, "memory_list", map[string]any{"type": "decision"})
	if out["total"] != float64(1) {
		t.Errorf("list after restart: %v", out)
	}
}

// Every line `cairn mcp` writes to stdout is a JSON-RPC message, read here
// without the SDK.
func TestMCPStdioStdoutIsProtocolOnly(t *testing.T) {
	home := t.TempDir()
	cmd := cairnCmd(home, "mcp")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_store","arguments":{"content":"raw stdio works","type":"fact"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory_get","arguments":{"id":"nope"}}}`,
	}
	go func() {
		for _, m := range msgs {
			io.WriteString(stdin, m+"\n")
		}
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	got := map[float64]map[string]any{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for len(got) < 4 && sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
				t.Errorf("stdout line is not JSON-RPC: %q", sc.Text())
				continue
			}
			if id, ok := m["id"].(float64); ok {
				got[id] = m
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Error("no answers within 60s")
	}
	stdin.Close()
	werr := make(chan error, 1)
	go func() { werr <- cmd.Wait() }()
	select {
	case err := <-werr:
		if err != nil {
			t.Errorf("cairn mcp exited with %v after stdin closed", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Error("cairn mcp did not exit when stdin closed")
	}
	if len(got) != 4 {
		t.Fatalf("answers: %v", got)
	}
	if tools := got[2]["result"].(map[string]any)["tools"].([]any); len(tools) != 6 {
		t.Errorf("tools/list: %d tools", len(tools))
	}
	if r := got[3]["result"].(map[string]any); r["isError"] == true {
		t.Errorf("store: %v", r)
	}
	if r := got[4]["result"].(map[string]any); r["isError"] != true || !strings.Contains(mustJSON(r["content"]), "not_found") {
		t.Errorf("get missing: %v", r)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// With cairn serve holding the database, `cairn mcp` forwards to its /mcp:
// the write lands in the running instance with the stdio client as actor.
func TestMCPStdioProxiesToRunningCairn(t *testing.T) {
	home := t.TempDir()
	addr := freeAddr(t)
	srv := startServer(t, home, addr)
	defer srv.stop(t)

	cs, stderr := mcpStdio(t, home, "proxy-agent")
	id := storeAndSearch(t, cs, "the stdio server forwards to the running cairn")
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr should be empty: %s", stderr)
	}

	resp, err := http.Get("http://" + addr + "/api/memory/" + id + "/history")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var hist struct {
		History []struct {
			ChangedBy string `json:"changedBy"`
			ActorType string `json:"actorType"`
		} `json:"history"`
	}
	json.NewDecoder(resp.Body).Decode(&hist)
	if len(hist.History) != 1 || hist.History[0].ChangedBy != "proxy-agent" || hist.History[0].ActorType != "agent" {
		t.Errorf("history through the proxy: %+v", hist)
	}
}

// memory_store without a project files the memory under the agent's
// project (the repository of cairn mcp's working directory), whether this
// process owns the store or forwards to a running cairn; a call sent
// right after initialize, before the store is open, waits for it.
func TestMCPStdioStoresInTheAgentsProject(t *testing.T) {
	for _, mode := range []string{"owner", "proxy"} {
		t.Run(mode, func(t *testing.T) {
			home := t.TempDir()
			if mode == "proxy" {
				srv := startServer(t, home, freeAddr(t))
				defer srv.stop(t)
			}
			repo := filepath.Join(t.TempDir(), "atlas-"+mode)
			cwd := filepath.Join(repo, "service")
			for _, d := range []string{filepath.Join(repo, ".git"), cwd} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := cairnCmd(home, "mcp", "--addr", freeAddr(t))
			cmd.Dir = cwd
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "project-agent", Version: "1"}, nil).
				Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if ir := cs.InitializeResult(); ir == nil || ir.ServerInfo.Name != "cairn" || ir.Instructions == "" {
				t.Errorf("initialize: %+v", ir)
			}
			out := mcpToolCall(t, cs, "memory_store", map[string]any{"content": "the " + mode + " stdio server files memories under the agent's project"})
			got := mcpToolCall(t, cs, "memory_get", map[string]any{"id": out["id"]})
			if p, _ := got["project"].(string); !strings.Contains(p, "atlas-"+mode) {
				t.Errorf("project %q, want the repository atlas-%s", p, mode)
			}
			if got["who"] != "project-agent" && got["updated_by"] != "project-agent" {
				t.Errorf("author: who %v, updated_by %v", got["who"], got["updated_by"])
			}
		})
	}
}
