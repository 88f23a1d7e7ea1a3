package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/httpapi"

	"github.com/cairnmem/cairn/core/auth"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

// backend is how a command reaches cairn: the API of the instance that owns
// the database, or the store opened directly when none runs. Both go
// through the same core functions.
type backend interface {
	Remember(ctx context.Context, in map[string]any) (json.RawMessage, error)
	Recall(ctx context.Context, in map[string]any) (*core.RecallResult, error)
	Export(ctx context.Context, f storage.MemoryFilter, fn func(json.RawMessage) error) error
	Import(ctx context.Context, lines []core.ImportLine, raw [][]byte) (*core.ImportResult, error)
	Describe() string
	Close() error
}

// openBackend opens the store, or connects to the process holding it.
func (a *app) openBackend(ctx context.Context) (backend, error) {
	st, err := a.openStore(ctx)
	if err == nil {
		return &localBackend{st: st}, nil
	}
	var le *storage.LockedError
	if !errors.As(err, &le) {
		return nil, err
	}
	addr := le.Holder.Addr
	if addr == "" {
		addr = a.cfg.Server.Addr
	}
	return &httpBackend{base: "http://" + addr, client: &http.Client{Timeout: 60 * time.Second}, pid: le.Holder.PID}, nil
}

type localBackend struct{ st *store }

func (b *localBackend) Describe() string { return "database " + b.st.db.Path() }
func (b *localBackend) Close() error     { return b.st.Close() }

func (b *localBackend) Remember(ctx context.Context, in map[string]any) (json.RawMessage, error) {
	raw, _ := json.Marshal(in)
	rin, err := httpapi.DecodeRememberInput(raw)
	if err != nil {
		return nil, err
	}
	res, err := b.st.svc.Remember(ctx, rin, core.Actor{Name: "cli", Type: core.ActorOperator})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res.Response())
}

func (b *localBackend) Recall(ctx context.Context, in map[string]any) (*core.RecallResult, error) {
	raw, _ := json.Marshal(in)
	rin, err := httpapi.DecodeRecallInput(raw)
	if err != nil {
		return nil, err
	}
	return b.st.svc.Recall(ctx, rin)
}

func (b *localBackend) Export(ctx context.Context, f storage.MemoryFilter, fn func(json.RawMessage) error) error {
	return b.st.svc.Export(ctx, f, func(m *core.Memory) error {
		line, err := json.Marshal(m)
		if err != nil {
			return err
		}
		return fn(line)
	})
}

func (b *localBackend) Import(ctx context.Context, lines []core.ImportLine, _ [][]byte) (*core.ImportResult, error) {
	return b.st.svc.Import(ctx, lines, core.Actor{Name: "cli-import", Type: core.ActorOperator})
}

type httpBackend struct {
	base   string
	client *http.Client
	pid    int
}

func (b *httpBackend) Describe() string {
	return fmt.Sprintf("the running cairn (pid %d) at %s", b.pid, b.base)
}
func (b *httpBackend) Close() error { return nil }

// do sends a request and decodes a JSON answer into out, turning the API's
// error bodies into *core.Error.
func (b *httpBackend) do(ctx context.Context, method, path, contentType string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, b.base+path, body)
	if err != nil {
		return err
	}
	auth.AuthorizeRequest(req)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("X-Cairn-Actor", "cli")
	req.Header.Set("X-Cairn-Actor-Type", core.ActorOperator)
	resp, err := b.client.Do(req)
	if err != nil {
		return fmt.Errorf("cairn (pid %d) holds the database but its API at %s does not answer: %w", b.pid, b.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Error string `json:"error"`
			Code  string `json:"code"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			return &core.Error{Code: e.Code, Message: e.Error}
		}
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	if out == nil {
		return nil
	}
	if raw, ok := out.(*json.RawMessage); ok {
		*raw = data
		return nil
	}
	return json.Unmarshal(data, out)
}

func (b *httpBackend) Remember(ctx context.Context, in map[string]any) (json.RawMessage, error) {
	body, _ := json.Marshal(in)
	var out json.RawMessage
	err := b.do(ctx, http.MethodPost, "/api/memory/remember", "application/json", bytes.NewReader(body), &out)
	return out, err
}

func (b *httpBackend) Recall(ctx context.Context, in map[string]any) (*core.RecallResult, error) {
	body, _ := json.Marshal(in)
	var out core.RecallResult
	err := b.do(ctx, http.MethodPost, "/api/memory/recall", "application/json", bytes.NewReader(body), &out)
	return &out, err
}

func (b *httpBackend) Export(ctx context.Context, f storage.MemoryFilter, fn func(json.RawMessage) error) error {
	path := "/api/memories/export"
	if f.IncludeDeleted {
		path += "?include_deleted=true"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.base+path, nil)
	if err != nil {
		return err
	}
	auth.AuthorizeRequest(req)
	client := *b.client
	client.Timeout = 0 // a large export streams for as long as it needs
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("export from %s: %w", b.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("export from %s: %s", b.base, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if bytes.HasPrefix(line, []byte(`{"_end"`)) {
			return nil
		}
		if err := fn(append(json.RawMessage(nil), line...)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return errors.New("export stream ended early; the output is incomplete")
}

func (b *httpBackend) Import(ctx context.Context, _ []core.ImportLine, raw [][]byte) (*core.ImportResult, error) {
	var out core.ImportResult
	err := b.do(ctx, http.MethodPost, "/api/memories/import", "application/x-ndjson",
		strings.NewReader(string(bytes.Join(raw, []byte("\n")))), &out)
	return &out, err
}
