package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/project"
	"github.com/cairnmem/cairn/storage"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runMCP serves cairn's MCP tools over stdio. It answers the client at
// once, with the tools' definitions this binary holds (initialize and
// tools/list wait for nothing else), while it finds which store answers
// the calls: when no other cairn holds the database it opens the store
// itself (with the background workers and, when the address is free, the
// HTTP API); when one does, each call is forwarded to that instance's
// /mcp endpoint, connected on the first call. A call that comes before
// either is ready waits for it. Stdout carries protocol messages only:
// logs go to the log file.
func runMCP(ctx context.Context, args []string) error {
	fs, common := newFlagSet("mcp", "mcp [flags]")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	if err := a.openLog(false); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// memory_store files a memory under the agent's project (the
	// repository of this process's working directory) when it names none.
	be := newMCPBackend()
	srv := a.stdioMCPServer(be, a.currentProject())
	runDone := make(chan struct{})
	var runErr error
	go func() { runErr = srv.Run(ctx, &mcp.StdioTransport{}); close(runDone) }()
	// The client going away ends the run, and an open of the store still
	// under way.
	front := func(ctx context.Context) error {
		select {
		case <-runDone:
			return runErr
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	openCtx, stopOpen := context.WithCancel(ctx)
	defer stopOpen()
	go func() {
		select {
		case <-runDone:
			stopOpen()
		case <-openCtx.Done():
		}
	}()
	st, err := a.openStore(openCtx)
	if err != nil {
		var le *storage.LockedError
		if !errors.As(err, &le) {
			if openCtx.Err() != nil && ctx.Err() == nil {
				return nil // the client left while the store opened
			}
			be.fail(err)
			return err
		}
		endpoint := "http://" + a.holderAddr(le.Holder) + "/mcp"
		r := &mcpRemote{endpoint: endpoint, pid: le.Holder.PID,
			client: mcp.NewClient(&mcp.Implementation{Name: "cairn-mcp-stdio", Version: cairnVersion()}, nil), log: a.log}
		defer r.close()
		be.set(r)
		a.log.Info("mcp over stdio, proxying", "version", cairnVersion(), "endpoint", endpoint, "pid", le.Holder.PID)
		err = front(ctx)
		a.log.Info("mcp stopped", "err", err)
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	a.log.Info("mcp over stdio", "version", cairnVersion(), "db", a.paths.Database)
	local, err := localMCP(ctx, httpapi.NewMCPServerFor(st.app, cairnVersion(), httpapi.MCPOptions{}))
	if err != nil {
		st.Close()
		be.fail(err)
		return err
	}
	defer local.close()
	be.set(local)
	err, _ = a.host(ctx, st, hostOptions{
		// While this process owns the database it also serves the HTTP
		// API (when the address is free), so hooks and the CLI keep
		// working.
		listen: func() (net.Listener, error) {
			ln, err := a.listen()
			if err != nil {
				a.log.Warn("mcp: not serving the HTTP API", "err", err)
				return nil, nil
			}
			return ln, nil
		},
		// The client going away ends the run: the workers stop too.
		front: func(ctx context.Context, _ string) error { return front(ctx) },
	})
	a.log.Info("mcp stopped", "err", err)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// mcpCaller answers a tool call: the store's own MCP server in this
// process (mcpLocal) or a running cairn's /mcp (mcpRemote).
type mcpCaller interface {
	call(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
}

// mcpBackend is the caller the stdio server's tools forward to, once
// runMCP knows it: a call before then waits.
type mcpBackend struct {
	ready  chan struct{}
	caller mcpCaller
	err    error
}

func newMCPBackend() *mcpBackend { return &mcpBackend{ready: make(chan struct{})} }

func (b *mcpBackend) set(c mcpCaller) { b.caller = c; close(b.ready) }

func (b *mcpBackend) fail(err error) { b.err = err; close(b.ready) }

func (b *mcpBackend) call(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	select {
	case <-b.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if b.err != nil {
		return nil, b.err
	}
	return b.caller.call(ctx, params)
}

// stdioMCPServer is the server `cairn mcp` runs on stdio: cairn's tools
// (httpapi.MCPTools), each call forwarded to be with the calling client's
// name in its _meta (so history records it as the actor) and, for
// memory_store, the agent's project when the call names none.
func (a *app) stdioMCPServer(be mcpCaller, current string) *mcp.Server {
	srv := mcp.NewServer(httpapi.MCPImplementation(cairnVersion()),
		&mcp.ServerOptions{Instructions: httpapi.MCPInstructions, Logger: a.log})
	for _, tool := range mcpTools() {
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
			res, err := be.call(ctx, params)
			if err != nil {
				a.log.Warn("mcp call", "tool", req.Params.Name, "err", err)
				res = &mcp.CallToolResult{}
				res.SetError(fmt.Errorf("unavailable: %w", err))
			}
			return res, nil
		})
	}
	return srv
}

// mcpTools are the definitions of cairn's MCP tools (name, schemas,
// annotations) as the store's server lists them (httpapi.NewMCPServer),
// without their handlers: what the stdio server lists before it knows
// which store answers the calls. They are read from mcp_tools.json, that
// server's tool list written out, so that a process that only lists the
// tools neither derives their schemas from the Go types nor marshals them
// (TestMCPToolsFile keeps the file equal to what the server lists; `go
// test -run TestMCPToolsFile . -update` rewrites it).
func mcpTools() []*mcp.Tool {
	var listed []struct {
		mcp.Tool
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	}
	if err := json.Unmarshal(mcpToolsJSON, &listed); err != nil {
		panic(fmt.Errorf("mcp_tools.json: %w", err))
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

//go:embed mcp_tools.json
var mcpToolsJSON []byte

// mcpLocal is a client session to the store's MCP server in this process
// (over an in-memory transport).
type mcpLocal struct{ cs *mcp.ClientSession }

func localMCP(ctx context.Context, srv *mcp.Server) (*mcpLocal, error) {
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cairn-mcp-stdio", Version: cairnVersion()}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	return &mcpLocal{cs: cs}, nil
}

func (l *mcpLocal) call(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	return l.cs.CallTool(ctx, params)
}

func (l *mcpLocal) close() { l.cs.Close() }

// mcpRemote is a client session to a running cairn's /mcp, reconnected when
// a call finds it broken (the instance restarted).
type mcpRemote struct {
	endpoint string
	pid      int
	client   *mcp.Client
	log      *slog.Logger
	mu       sync.Mutex
	cs       *mcp.ClientSession
}

func (r *mcpRemote) session(ctx context.Context) (*mcp.ClientSession, error) {
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
	if ir := cs.InitializeResult(); ir != nil && ir.ServerInfo != nil && ir.ServerInfo.Version != cairnVersion() {
		r.log.Warn("mcp: the running cairn is another version; its tools answer the calls", "ours", cairnVersion(), "theirs", ir.ServerInfo.Version, "pid", r.pid)
	}
	r.cs = cs
	return cs, nil
}

func (r *mcpRemote) drop(cs *mcp.ClientSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cs == cs {
		r.cs = nil
		cs.Close()
	}
}

func (r *mcpRemote) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cs != nil {
		r.cs.Close()
		r.cs = nil
	}
}

// call forwards one tool call, retrying once on a fresh session when the
// old one fails at the transport level.
func (r *mcpRemote) call(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
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

// currentProject is the project of this process's working directory (the
// agent's), or none when it cannot be read.
func (a *app) currentProject() string {
	p, err := project.Current(a.cfg)
	if err != nil {
		a.log.Warn("current project", "err", err)
		return ""
	}
	return p
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
