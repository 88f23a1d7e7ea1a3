package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// runMCP serves cairn's MCP tools over stdio. When no other cairn holds the
// database it opens the store itself (with the background workers, but no
// HTTP API); when one does, it serves the running instance's tools by
// forwarding each call to that instance's /mcp endpoint. Stdout carries
// protocol messages only: logs go to the log file.
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
	st, err := a.openStore(ctx)
	if err != nil {
		var le *storage.LockedError
		if !errors.As(err, &le) {
			return err
		}
		addr := a.holderAddr(le.Holder)
		return a.proxyMCP(ctx, "http://"+addr+"/mcp", le.Holder.PID)
	}
	a.log.Info("mcp over stdio", "version", cairnVersion(), "db", a.paths.Database)
	// memory_store files a memory under the agent's project (the
	// repository of this process's working directory) when it names none.
	srv := httpapi.NewMCPServerFor(st.app, cairnVersion(), httpapi.MCPOptions{DefaultProject: a.currentProject()})
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
		front: func(ctx context.Context, _ string) error { return srv.Run(ctx, &mcp.StdioTransport{}) },
	})
	a.log.Info("mcp stopped", "err", err)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// mcpRemote is a client session to a running cairn's /mcp, reconnected when
// a call finds it broken (the instance restarted).
type mcpRemote struct {
	endpoint string
	pid      int
	client   *mcp.Client
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

// proxyMCP serves over stdio the tools of the cairn that holds the
// database, forwarding every call to its /mcp endpoint so writes take that
// instance's one write path. The calling client's name travels along in
// the request's _meta, so history records it as the actor.
func (a *app) proxyMCP(ctx context.Context, endpoint string, pid int) error {
	r := &mcpRemote{endpoint: endpoint, pid: pid,
		client: mcp.NewClient(&mcp.Implementation{Name: "cairn-mcp-stdio", Version: cairnVersion()}, nil)}
	defer r.close()
	cs, err := r.session(ctx)
	if err != nil {
		return err
	}
	var instructions string
	impl := &mcp.Implementation{Name: "cairn", Version: cairnVersion()}
	if ir := cs.InitializeResult(); ir != nil {
		instructions = ir.Instructions
		if ir.ServerInfo != nil {
			impl = ir.ServerInfo
		}
	}
	srv := mcp.NewServer(impl, &mcp.ServerOptions{Instructions: instructions, Logger: a.log})
	current := a.currentProject()
	n := 0
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("list the tools of cairn (pid %d) at %s: %w", pid, endpoint, err)
		}
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
			res, err := r.call(ctx, params)
			if err != nil {
				a.log.Warn("mcp proxy call", "tool", req.Params.Name, "err", err)
				res = &mcp.CallToolResult{}
				res.SetError(fmt.Errorf("unavailable: %w", err))
			}
			return res, nil
		})
		n++
	}
	a.log.Info("mcp over stdio, proxying", "version", cairnVersion(), "endpoint", endpoint, "pid", pid, "tools", n)
	err = srv.Run(ctx, &mcp.StdioTransport{})
	a.log.Info("mcp stopped", "err", err)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
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
