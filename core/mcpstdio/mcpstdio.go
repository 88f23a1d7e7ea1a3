package mcpstdio

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Caller answers a tool call: the store's own MCP server in this process
// (Local) or a running cairn's /mcp (Remote).
type Caller interface {
	Call(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
}

// Backend is the caller the stdio server's tools forward to, once
// `cairn mcp` knows it: a call before then waits.
type Backend struct {
	ready  chan struct{}
	caller Caller
	err    error
}

// NewBackend is a backend not known yet.
func NewBackend() *Backend { return &Backend{ready: make(chan struct{})} }

// Set makes c the caller (once).
func (b *Backend) Set(c Caller) { b.caller = c; close(b.ready) }

// Fail answers every call with err (once, instead of Set).
func (b *Backend) Fail(err error) { b.err = err; close(b.ready) }

// Call waits for the caller and forwards to it.
func (b *Backend) Call(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	select {
	case <-b.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if b.err != nil {
		return nil, b.err
	}
	return b.caller.Call(ctx, params)
}

// Server is the server `cairn mcp` runs on stdio, of cairn version
// version: cairn's tools (Tools), each call forwarded to be with the
// calling client's name in its _meta (so history records it as the
// actor) and, for memory_store, the agent's project (current) when the
// call names none.
func Server(version string, log *slog.Logger, be Caller, current string) *mcp.Server {
	srv := mcp.NewServer(httpapi.MCPImplementation(version),
		&mcp.ServerOptions{Instructions: httpapi.MCPInstructions, Logger: log})
	for _, tool := range Tools() {
		srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			params := &mcp.CallToolParams{Name: req.Params.Name}
			if len(req.Params.Arguments) > 0 {
				params.Arguments = req.Params.Arguments
			}
			if req.Params.Name == "memory_store" {
				params.Arguments = withDefaultProject(req.Params.Arguments, current)
			}
			if ci := req.ClientInfo(); ci != nil && ci.Name != "" {
				params.Meta = mcp.Meta{mcp.MetaKeyClientInfo: ci}
			}
			res, err := be.Call(ctx, params)
			if err != nil {
				log.Warn("mcp call", "tool", req.Params.Name, "err", err)
				res = &mcp.CallToolResult{}
				res.SetError(fmt.Errorf("unavailable: %w", err))
			}
			return res, nil
		})
	}
	return srv
}

// Tools are the definitions of cairn's MCP tools (name, schemas,
// annotations) as the store's server lists them (httpapi.NewMCPServer),
// without their handlers: what the stdio server lists before it knows
// which store answers the calls. They are read from tools.json, that
// server's tool list written out, so that a process that only lists the
// tools neither derives their schemas from the Go types nor marshals them
// (TestToolsFile keeps the file equal to what the server lists; `go test
// -run TestToolsFile ./core/mcpstdio -update` rewrites it).
func Tools() []*mcp.Tool {
	var listed []struct {
		mcp.Tool
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	}
	if err := json.Unmarshal(toolsJSON, &listed); err != nil {
		panic(fmt.Errorf("tools.json: %w", err))
	}
	tools := make([]*mcp.Tool, len(listed))
	for i, l := range listed {
		t := l.Tool
		t.InputSchema = l.InputSchema
		if len(l.OutputSchema) > 0 {
			t.OutputSchema = l.OutputSchema
		}
		tools[i] = &t
	}
	return tools
}

//go:embed tools.json
var toolsJSON []byte

// Local is a client session to the store's MCP server in this process
// (over an in-memory transport).
type Local struct{ cs *mcp.ClientSession }

// NewLocal connects to srv, as cairn version version.
func NewLocal(ctx context.Context, srv *mcp.Server, version string) (*Local, error) {
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cairn-mcp-stdio", Version: version}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	return &Local{cs: cs}, nil
}

// Call forwards one tool call.
func (l *Local) Call(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	return l.cs.CallTool(ctx, params)
}

// Close ends the session.
func (l *Local) Close() { l.cs.Close() }

// Remote is a client session to a running cairn's /mcp, reconnected when
// a call finds it broken (the instance restarted).
type Remote struct {
	endpoint string
	pid      int
	version  string // this binary's
	client   *mcp.Client
	log      *slog.Logger
	mu       sync.Mutex
	cs       *mcp.ClientSession
}

// NewRemote is a session to endpoint, the /mcp of the cairn of pid,
// connected at the first call by c; version is this binary's.
func NewRemote(endpoint string, pid int, version string, c *mcp.Client, log *slog.Logger) *Remote {
	return &Remote{endpoint: endpoint, pid: pid, version: version, client: c, log: log}
}

func (r *Remote) session(ctx context.Context) (*mcp.ClientSession, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cs != nil {
		return r.cs, nil
	}
	cs, err := r.client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: r.endpoint, DisableStandaloneSSE: true, MaxRetries: -1,
		HTTPClient: client.NewHTTPClient(2 * time.Minute),
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("cairn (pid %d) holds the database but its MCP endpoint %s does not answer: %w", r.pid, r.endpoint, err)
	}
	// The tools listed are this binary's: say so when the instance
	// answering their calls is another build.
	if ir := cs.InitializeResult(); ir != nil && ir.ServerInfo != nil && ir.ServerInfo.Version != r.version {
		r.log.Warn("mcp: the running cairn is another version; its tools answer the calls", "ours", r.version, "theirs", ir.ServerInfo.Version, "pid", r.pid)
	}
	r.cs = cs
	return cs, nil
}

func (r *Remote) drop(cs *mcp.ClientSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cs == cs {
		r.cs = nil
		cs.Close()
	}
}

// Close ends the session, if one is open.
func (r *Remote) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cs != nil {
		r.cs.Close()
		r.cs = nil
	}
}

// Call forwards one tool call, retrying once on a fresh session when the
// old one fails at the transport level.
func (r *Remote) Call(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	var err error
	for range 2 {
		var cs *mcp.ClientSession
		if cs, err = r.session(ctx); err != nil {
			return nil, err
		}
		var res *mcp.CallToolResult
		if res, err = cs.CallTool(ctx, params); err == nil {
			return res, nil
		}
		var wire *jsonrpc.Error
		if errors.As(err, &wire) || ctx.Err() != nil {
			break // the instance answered (or the caller gave up): no reconnect
		}
		r.drop(cs)
	}
	return nil, err
}

// withDefaultProject adds "project": current to a tool call's arguments
// when they name none, so a memory stored through a running cairn lands
// in the agent's project as it does when this process owns the store.
// Arguments that are not a JSON object are passed on as they are (the
// server refuses them).
func withDefaultProject(args json.RawMessage, current string) any {
	if current == "" {
		return nullableArgs(args)
	}
	var m map[string]any
	if len(args) > 0 && json.Unmarshal(args, &m) != nil {
		return args
	}
	if m == nil {
		m = map[string]any{}
	}
	if p, _ := m["project"].(string); strings.TrimSpace(p) != "" {
		return args
	}
	m["project"] = current
	return m
}

func nullableArgs(args json.RawMessage) any {
	if len(args) == 0 {
		return nil
	}
	return args
}
