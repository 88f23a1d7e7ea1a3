package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/storage"
)

// backend is how a command reaches cairn: the API of the instance that owns
// the database, or the store opened directly when none runs. Both go
// through the same core functions.
type backend interface {
	Remember(ctx context.Context, in map[string]any) (json.RawMessage, error)
	Recall(ctx context.Context, in map[string]any) (*core.RecallResult, error)
	Export(ctx context.Context, f storage.MemoryFilter, fn func(json.RawMessage) error) error
	Import(ctx context.Context, lines []transfer.ImportLine, raw [][]byte) (*transfer.ImportResult, error)
	Get(ctx context.Context, id string, includeDeleted bool) (*core.Memory, error)
	List(ctx context.Context, f storage.MemoryFilter, limit, offset int) (*core.ListResult, error)
	Modify(ctx context.Context, p core.Patch) (*core.MutationResult, error)
	Forget(ctx context.Context, in core.ForgetInput) (*core.MutationResult, error)
	ForgetBatch(ctx context.Context, in core.BatchForgetInput) (*core.BatchForgetResult, error)
	Recover(ctx context.Context, in core.RecoverInput) (*core.MutationResult, error)
	History(ctx context.Context, id string, limit int) ([]*core.HistoryEntry, error)
	Describe() string
	Close() error
}

// connect loads the configuration the common flags name and opens the
// backend: the preamble of the commands that read or write memories.
// Closing the backend closes the app too.
func connect(ctx context.Context, common *commonFlags) (backend, error) {
	a, err := loadApp(common)
	if err != nil {
		return nil, err
	}
	be, err := a.openBackend(ctx)
	if err != nil {
		a.close()
		return nil, err
	}
	return appBackend{be, a}, nil
}

// appBackend is a backend that owns its app.
type appBackend struct {
	backend
	a *app
}

func (b appBackend) Close() error {
	err := b.backend.Close()
	b.a.close()
	return err
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
	addr := a.holderAddr(le.Holder)
	return newHTTPBackend(addr, le.Holder.PID), nil
}

type localBackend struct{ st *store }

// localOf returns the store behind be when this process holds it (be is
// a localBackend, or an appBackend owning one).
func localOf(be backend) (*localBackend, bool) {
	if ab, ok := be.(appBackend); ok {
		be = ab.backend
	}
	lb, ok := be.(*localBackend)
	return lb, ok
}

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
	return b.st.app.Transfer.Export(ctx, f, func(m *transfer.ExportRecord) error {
		line, err := json.Marshal(m)
		if err != nil {
			return err
		}
		return fn(line)
	})
}

func (b *localBackend) Import(ctx context.Context, lines []transfer.ImportLine, _ [][]byte) (*transfer.ImportResult, error) {
	return b.st.app.Transfer.Import(ctx, lines, importActor)
}

// importActor is who `cairn import` records its memories as.
var importActor = core.Actor{Name: "cli-import", Type: core.ActorOperator}

// cliActor is who the CLI's changes are recorded as.
var cliActor = core.Actor{Name: "cli", Type: core.ActorOperator}

func (b *localBackend) Get(ctx context.Context, id string, includeDeleted bool) (*core.Memory, error) {
	return b.st.svc.Get(ctx, id, includeDeleted)
}

func (b *localBackend) List(ctx context.Context, f storage.MemoryFilter, limit, offset int) (*core.ListResult, error) {
	return b.st.svc.List(ctx, f, limit, offset)
}

func (b *localBackend) Modify(ctx context.Context, p core.Patch) (*core.MutationResult, error) {
	return b.st.svc.Modify(ctx, p, cliActor)
}

func (b *localBackend) Forget(ctx context.Context, in core.ForgetInput) (*core.MutationResult, error) {
	return b.st.svc.Forget(ctx, in, cliActor)
}

func (b *localBackend) ForgetBatch(ctx context.Context, in core.BatchForgetInput) (*core.BatchForgetResult, error) {
	return b.st.svc.ForgetBatch(ctx, in, cliActor)
}

func (b *localBackend) Recover(ctx context.Context, in core.RecoverInput) (*core.MutationResult, error) {
	return b.st.svc.Recover(ctx, in, cliActor)
}

func (b *localBackend) History(ctx context.Context, id string, limit int) ([]*core.HistoryEntry, error) {
	return b.st.svc.MemoryHistory(ctx, id, limit)
}

// httpBackend reaches the cairn that holds the database through its API.
type httpBackend struct {
	c   *client.Client
	pid int
}

// cliTimeout bounds one CLI call to the API (an export streams as long as
// it needs).
const cliTimeout = 60 * time.Second

func newHTTPBackend(addr string, pid int) *httpBackend {
	return &httpBackend{pid: pid, c: client.New(addr, client.Options{
		Actor:   core.Actor{Name: "cli", Type: core.ActorOperator},
		Timeout: cliTimeout,
	})}
}

func (b *httpBackend) Describe() string {
	return fmt.Sprintf("the running cairn (pid %d) at %s", b.pid, b.c.BaseURL())
}
func (b *httpBackend) Close() error { return nil }

// explain names the process that holds the database when its API does not
// answer.
func (b *httpBackend) explain(err error) error {
	var ue *client.UnreachableError
	if errors.As(err, &ue) {
		return fmt.Errorf("cairn (pid %d) holds the database but its API at %s does not answer: %w", b.pid, ue.URL, ue.Err)
	}
	return err
}

func (b *httpBackend) Remember(ctx context.Context, in map[string]any) (json.RawMessage, error) {
	out, err := b.c.Remember(ctx, in)
	if err != nil {
		return nil, b.explain(err)
	}
	return out.Raw, nil
}

func (b *httpBackend) Recall(ctx context.Context, in map[string]any) (*core.RecallResult, error) {
	out, err := b.c.Recall(ctx, in)
	return out, b.explain(err)
}

func (b *httpBackend) Export(ctx context.Context, f storage.MemoryFilter, fn func(json.RawMessage) error) error {
	return b.explain(b.c.Export(ctx, f, fn))
}

func (b *httpBackend) Import(ctx context.Context, _ []transfer.ImportLine, raw [][]byte) (*transfer.ImportResult, error) {
	out, err := b.c.Import(ctx, raw)
	return out, b.explain(err)
}

func (b *httpBackend) Get(ctx context.Context, id string, includeDeleted bool) (*core.Memory, error) {
	m, err := b.c.Get(ctx, id, includeDeleted)
	return m, b.explain(err)
}

func (b *httpBackend) List(ctx context.Context, f storage.MemoryFilter, limit, offset int) (*core.ListResult, error) {
	out, err := b.c.ListPage(ctx, f, limit, offset)
	return out, b.explain(err)
}

// mutation keeps the API's answer of a refused change (its status and
// current version) beside the error, as the service returns it.
func (b *httpBackend) mutation(res *core.MutationResult, err error) (*core.MutationResult, error) {
	if err != nil && client.StatusOf(err) == 0 {
		return nil, b.explain(err)
	}
	return res, err
}

func (b *httpBackend) Modify(ctx context.Context, p core.Patch) (*core.MutationResult, error) {
	return b.mutation(b.c.Modify(ctx, p))
}

func (b *httpBackend) Forget(ctx context.Context, in core.ForgetInput) (*core.MutationResult, error) {
	return b.mutation(b.c.Forget(ctx, in))
}

func (b *httpBackend) ForgetBatch(ctx context.Context, in core.BatchForgetInput) (*core.BatchForgetResult, error) {
	out, err := b.c.ForgetBatch(ctx, in)
	return out, b.explain(err)
}

func (b *httpBackend) Recover(ctx context.Context, in core.RecoverInput) (*core.MutationResult, error) {
	return b.mutation(b.c.Recover(ctx, in))
}

func (b *httpBackend) History(ctx context.Context, id string, limit int) ([]*core.HistoryEntry, error) {
	h, err := b.c.MemoryHistory(ctx, id, limit)
	return h, b.explain(err)
}
