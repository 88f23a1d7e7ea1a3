package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/storage"
)

// api serves the real API over a fresh store.
type api struct {
	svc  *core.Service
	app  *app.App
	db   *storage.DB
	srv  *httptest.Server
	addr string
}

func newAPI(t *testing.T, set func(*config.Config)) *api {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "memories.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := config.DefaultConfig()
	if set != nil {
		set(&cfg)
	}
	ap := app.New(db, cfg, app.Options{})
	srv := httptest.NewServer(httpapi.NewAPI(ap, "test", "127.0.0.1:0").Handler())
	t.Cleanup(srv.Close)
	return &api{app: ap, svc: ap.Service, db: db, srv: srv, addr: strings.TrimPrefix(srv.URL, "http://")}
}

var tester = core.Actor{Name: "tester", Type: core.ActorOperator}

func TestMemoryRoutes(t *testing.T) {
	a := newAPI(t, nil)
	c := client.HTTP(a.addr, client.Options{Actor: tester, Timeout: 10 * time.Second})
	ctx := context.Background()
	if c.Addr() != a.addr || c.BaseURL() != a.srv.URL {
		t.Fatalf("addr %q base %q", c.Addr(), c.BaseURL())
	}
	if err := c.Health(ctx); err != nil {
		t.Fatal(err)
	}

	// A RememberInput is sent as the API reads it.
	r, err := c.Remember(ctx, core.RememberInput{Content: "postgres runs on port 5433 in staging", Tags: []string{"infra", "db"}})
	if err != nil || r.ID == "" || len(r.Tags) != 2 || r.Chunked {
		t.Fatalf("remember: %+v %v", r, err)
	}
	var raw map[string]any
	if err := json.Unmarshal(r.Raw, &raw); err != nil || raw["id"] != r.ID {
		t.Fatalf("raw answer %s: %v", r.Raw, err)
	}
	imp := 0.9
	r2, err := c.Remember(ctx, core.RememberInput{Content: "the deploy train leaves on tuesday", Importance: &imp, Project: "atlas"})
	if err != nil || r2.Importance != 0.9 {
		t.Fatalf("remember from RememberInput: %+v %v", r2, err)
	}
	if again, err := c.Remember(ctx, core.RememberInput{Content: "the deploy train leaves on tuesday", Project: "atlas"}); err != nil || !again.Deduped || again.ID != r2.ID {
		t.Fatalf("dedup: %+v %v", again, err)
	}

	res, err := c.Recall(ctx, core.RecallInput{Query: "which port does postgres use", Limit: 5})
	if err != nil || len(res.Results) == 0 || res.Results[0].ID != r.ID {
		t.Fatalf("recall: %+v %v", res, err)
	}
	res, err = c.Recall(ctx, core.RecallInput{Query: "deploy train", Filter: core.MemoryFilter{Project: "atlas"}, NoTracking: true, Explain: true})
	if err != nil || len(res.Results) != 1 || res.Results[0].ID != r2.ID || res.Results[0].Explain == nil {
		t.Fatalf("recall from RecallInput: %+v %v", res, err)
	}

	m, err := c.Get(ctx, r.ID, false)
	if err != nil || m.Content != "postgres runs on port 5433 in staging" {
		t.Fatalf("get: %+v %v", m, err)
	}
	list, err := c.List(ctx, core.MemoryFilter{Project: "atlas"}, 10, 0)
	if err != nil || len(list.Memories) != 1 || list.Memories[0].ID != r2.ID {
		t.Fatalf("list: %+v %v", list, err)
	}

	content := "postgres runs on port 5434 in staging"
	mod, err := c.Modify(ctx, core.Patch{ID: r.ID, Content: &content, Reason: "moved"})
	if err != nil || mod.NewVersion != 2 {
		t.Fatalf("modify: %+v %v", mod, err)
	}
	stale := int64(1)
	_, err = c.Modify(ctx, core.Patch{ID: r.ID, Content: &content, Reason: "again", IfVersion: &stale})
	var ce *core.Error
	if !errors.Is(err, core.ErrVersionConflict) || !errors.As(err, &ce) || client.StatusOf(err) != http.StatusConflict || ce.Extra["currentVersion"] != float64(2) {
		t.Fatalf("stale modify: %#v", err)
	}
	if f, err := c.Forget(ctx, core.ForgetInput{ID: r.ID, Reason: "cleanup"}); err != nil || f.Status != "deleted" {
		t.Fatalf("forget: %+v %v", f, err)
	}
	if _, err := c.Get(ctx, r.ID, false); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("get deleted: %v", err)
	}
	if m, err := c.Get(ctx, r.ID, true); err != nil || m.DeletedAt == "" {
		t.Fatalf("get deleted with includeDeleted: %+v %v", m, err)
	}
	if rec, err := c.Recover(ctx, core.RecoverInput{ID: r.ID, Reason: "oops"}); err != nil || rec.Status != "recovered" {
		t.Fatalf("recover: %+v %v", rec, err)
	}

	stamp, err := c.MemoryStamp(ctx, r.ID)
	if err != nil || stamp == "" {
		t.Fatalf("memory stamp: %q %v", stamp, err)
	}
	// A recall that counts its access changes the stamp; nothing else
	// said so.
	if _, err := c.Recall(ctx, core.RecallInput{Query: "which port does postgres use", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if again, err := c.MemoryStamp(ctx, r.ID); err != nil || again == stamp {
		t.Fatalf("the stamp after an access: %q (was %q) %v", again, stamp, err)
	}
	if _, err := c.MemoryStamp(ctx, "no-such-memory"); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("the stamp of an unknown memory: %v", err)
	}

	hist, err := c.MemoryHistory(ctx, r.ID, 50)
	if err != nil || len(hist) != 4 || hist[0].Event != "created" || hist[0].ChangedBy != "tester" {
		t.Fatalf("memory history: %+v %v", hist, err)
	}
	all, err := c.History(ctx, core.HistoryFilter{Event: "recovered"}, 10)
	if err != nil || len(all) != 1 || all[0].MemoryID != r.ID {
		t.Fatalf("history: %+v %v", all, err)
	}
	st, err := c.Status(ctx)
	if err != nil || st.Memories.Total != 2 || st.AuthMode != "local" || st.Pipeline.Mode == "" {
		t.Fatalf("status: %+v %v", st, err)
	}
}

func TestErrors(t *testing.T) {
	a := newAPI(t, nil)
	c := client.HTTP(a.addr, client.Options{Actor: tester})
	ctx := context.Background()

	// The API's JSON error: status, code, message and every field.
	_, err := c.Recall(ctx, core.RecallInput{Query: "x", Limit: core.MaxRecallLimit + 1})
	var ce *core.Error
	if !errors.As(err, &ce) || client.StatusOf(err) != 400 || ce.Code != core.CodeInvalidRequest || ce.Extra["field"] != "limit" || !strings.Contains(ce.Message, "limit") {
		t.Fatalf("invalid recall: %#v", err)
	}
	if _, err := c.Job(ctx, "no-such-job"); !errors.As(err, &ce) || client.StatusOf(err) != 404 || !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("missing job: %#v", err)
	}

	// Something that is not cairn answers on the address.
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	oc := client.HTTP(strings.TrimPrefix(other.URL, "http://"), client.Options{})
	err = oc.Health(ctx)
	if !errors.As(err, &ce) || client.StatusOf(err) != 404 || ce.Code != "" || ce.Message != "GET /health: 404 Not Found" {
		t.Fatalf("foreign server: %#v", err)
	}

	// Nothing listens.
	addr := other.Listener.Addr().String()
	other.Close()
	err = client.HTTP(addr, client.Options{}).Health(ctx)
	var ue *client.UnreachableError
	if !errors.As(err, &ue) || ue.URL != "http://"+addr || !strings.HasPrefix(err.Error(), "cairn at http://"+addr+" does not answer: ") {
		t.Fatalf("nothing listening: %#v", err)
	}
}

func TestBoundsAndDeadlines(t *testing.T) {
	a := newAPI(t, nil)
	ctx := context.Background()
	for i := range 5 {
		if _, err := a.svc.Remember(ctx, core.RememberInput{Content: strings.Repeat("long enough memory text ", 10) + string(rune('a'+i))}, tester); err != nil {
			t.Fatal(err)
		}
	}
	// An answer longer than MaxResponse is an error, not a truncated read.
	small := client.HTTP(a.addr, client.Options{MaxResponse: 512})
	if _, err := small.List(ctx, core.MemoryFilter{}, 10, 0); !errors.Is(err, client.ErrTooLarge) {
		t.Fatalf("oversized answer: %v", err)
	}
	if _, err := client.HTTP(a.addr, client.Options{}).List(ctx, core.MemoryFilter{}, 10, 0); err != nil {
		t.Fatalf("default bound: %v", err)
	}

	// Timeout bounds a call the server does not answer in time; the error
	// says the deadline passed.
	stuck := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stuck:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(stuck)
	sc := client.HTTP(strings.TrimPrefix(slow.URL, "http://"), client.Options{Timeout: 100 * time.Millisecond})
	start := time.Now()
	err := sc.Health(ctx)
	var ue *client.UnreachableError
	if !errors.As(err, &ue) || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("timeout: %v after %v", err, time.Since(start))
	}
	// So does the caller's deadline (the hook shim's).
	dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := client.HTTP(sc.Addr(), client.Options{}).Hook(dctx, "session-end", map[string]any{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("caller deadline: %v", err)
	}
}

func TestExportImport(t *testing.T) {
	from := newAPI(t, nil)
	ctx := context.Background()
	c := client.HTTP(from.addr, client.Options{Actor: tester, Timeout: time.Nanosecond})
	var ids []string
	for _, s := range []string{"first exported memory about caching", "second exported memory about queues", "third one, deleted later"} {
		res, err := from.svc.Remember(ctx, core.RememberInput{Content: s}, tester)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Memory.ID)
	}
	if _, err := from.svc.Forget(ctx, core.ForgetInput{ID: ids[2], Reason: "test"}, tester); err != nil {
		t.Fatal(err)
	}
	// The export streams past Options.Timeout.
	var lines [][]byte
	err := c.Export(ctx, core.MemoryFilter{IncludeDeleted: true}, func(line json.RawMessage) error {
		lines = append(lines, line)
		return nil
	})
	if err != nil || len(lines) != 3 {
		t.Fatalf("export: %d lines, %v", len(lines), err)
	}
	n := 0
	if err := c.Export(ctx, core.MemoryFilter{}, func(json.RawMessage) error { n++; return nil }); err != nil || n != 2 {
		t.Fatalf("export of live memories: %d, %v", n, err)
	}
	stop := errors.New("stop")
	if err := c.Export(ctx, core.MemoryFilter{}, func(json.RawMessage) error { return stop }); err != stop {
		t.Fatalf("callback error: %v", err)
	}

	to := newAPI(t, nil)
	tc := client.HTTP(to.addr, client.Options{Actor: tester})
	res, err := tc.ImportLines(ctx, lines)
	if err != nil || res.Total != 3 || res.Imported != 3 {
		t.Fatalf("import: %+v %v", res, err)
	}
	if res, err := tc.ImportLines(ctx, lines); err != nil || res.Existing != 3 {
		t.Fatalf("re-import: %+v %v", res, err)
	}
	var ce *core.Error
	if _, err := tc.ImportLines(ctx, [][]byte{[]byte(`{"content":"bad","importance":"high"}`)}); !errors.As(err, &ce) || client.StatusOf(err) != 400 {
		t.Fatalf("bad import: %#v", err)
	}

	// A stream cut before the end marker is incomplete.
	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(append(lines[0], '\n'))
	}))
	defer cut.Close()
	err = client.HTTP(strings.TrimPrefix(cut.URL, "http://"), client.Options{}).Export(ctx, core.MemoryFilter{}, func(json.RawMessage) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "incomplete") {
		t.Fatalf("cut stream: %v", err)
	}
}

func TestTokenFromEnvironment(t *testing.T) {
	a := newAPI(t, func(c *config.Config) { c.Auth.Mode = auth.ModeTeam })
	ctx := context.Background()
	c := client.HTTP(a.addr, client.Options{Actor: tester})
	t.Setenv(client.TokenEnv, "")
	var ce *core.Error
	if _, err := c.List(ctx, core.MemoryFilter{}, 10, 0); !errors.As(err, &ce) || client.StatusOf(err) != 401 || ce.Code != auth.CodeUnauthorized {
		t.Fatalf("no token: %#v", err)
	}
	secret, err := auth.LoadOrCreateSecret(filepath.Join(filepath.Dir(a.db.Path()), "auth-secret"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := auth.SignToken(secret, auth.NewClaims("agent", auth.TokenScope{Project: "alpha"}, time.Hour, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(client.TokenEnv, " "+tok+"\n")
	r, err := c.Remember(ctx, core.RememberInput{Content: "written with a token"})
	if err != nil {
		t.Fatalf("with token: %v", err)
	}
	if m, err := c.Get(ctx, r.ID, false); err != nil || m.Project != "alpha" {
		t.Fatalf("scoped write: %+v %v", m, err)
	}
	// The MCP proxy's HTTP client sends it too.
	req, _ := http.NewRequest(http.MethodGet, a.srv.URL+"/api/auth/whoami", nil)
	resp, err := client.NewHTTPClient(10 * time.Second).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var who map[string]any
	json.NewDecoder(resp.Body).Decode(&who)
	if who["authenticated"] != true {
		t.Fatalf("whoami through NewHTTPClient: %v", who)
	}
}

func TestHook(t *testing.T) {
	a := newAPI(t, nil)
	ctx := context.Background()
	c := client.HTTP(a.addr, client.Options{Actor: core.Actor{Name: "claude-code", Type: core.ActorHarness}, MaxResponse: 4 << 20})
	if _, err := c.Hook(ctx, "remember", map[string]any{"content": "hooks store this fact about releases", "session_id": "s1", "harness": "claude-code"}); err != nil {
		t.Fatal(err)
	}
	hist, err := a.svc.History(ctx, core.HistoryFilter{Event: "created"}, 10)
	if err != nil || len(hist) != 1 || hist[0].ChangedBy != "claude-code" {
		t.Fatalf("hook actor: %+v %v", hist, err)
	}
	out, err := c.Hook(ctx, "user-prompt-submit", map[string]any{"session_id": "s2", "prompt": "what about releases?", "harness": "claude-code"})
	if err != nil {
		t.Fatal(err)
	}
	if inject, _ := out["inject"].(string); !strings.Contains(inject, "releases") {
		t.Fatalf("prompt hook answer: %v", out)
	}
	var ce *core.Error
	if _, err := c.Hook(ctx, "no-such-event", map[string]any{}); !errors.As(err, &ce) || client.StatusOf(err) != 404 || ce.Code != core.CodeNotFound {
		t.Fatalf("unknown hook: %#v", err)
	}
}

// List pages through memories; ForgetBatch previews a selection and
// executes it with the preview's confirm token, which a changed selection
// no longer matches.
func TestListPagesAndForgetBatch(t *testing.T) {
	a := newAPI(t, func(c *config.Config) { c.Memory.ForgetConfirmThreshold = 2 })
	c := client.HTTP(a.addr, client.Options{Actor: tester, Timeout: 10 * time.Second})
	ctx := context.Background()
	var ids []string
	for _, s := range []string{"alpha kubernetes cluster", "beta kubernetes node", "gamma kubernetes pod", "delta unrelated"} {
		r, err := c.Remember(ctx, core.RememberInput{Content: s, Project: "k8s"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	seen := map[string]bool{}
	for offset := 0; ; offset += 3 {
		page, err := c.List(ctx, core.MemoryFilter{Project: "k8s"}, 3, offset)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Memories {
			seen[m.ID] = true
		}
		if !page.HasMore {
			break
		}
	}
	if len(seen) != 4 {
		t.Fatalf("pages held %d memories", len(seen))
	}

	in := core.BatchForgetInput{Query: "kubernetes", Reason: "cleanup", Filter: core.MemoryFilter{Project: "k8s"}}
	preview, err := c.ForgetBatch(ctx, in)
	if err != nil || preview.Mode != "preview" || preview.Count != 3 || !preview.RequiresConfirm || preview.ConfirmToken == "" || len(preview.Candidates) != 3 {
		t.Fatalf("preview: %+v %v", preview, err)
	}
	// The selection changes: the token no longer matches, nothing goes.
	if _, err := c.Remember(ctx, core.RememberInput{Content: "epsilon kubernetes ingress", Project: "k8s"}); err != nil {
		t.Fatal(err)
	}
	in.Mode, in.ConfirmToken = "execute", preview.ConfirmToken
	if _, err := c.ForgetBatch(ctx, in); !errors.Is(err, &core.Error{Code: core.CodeConfirmRequired}) {
		t.Fatalf("stale token: %v", err)
	}
	in.Mode, in.ConfirmToken = "preview", ""
	preview, err = c.ForgetBatch(ctx, in)
	if err != nil || preview.Count != 4 {
		t.Fatalf("second preview: %+v %v", preview, err)
	}
	in.Mode, in.ConfirmToken = "execute", preview.ConfirmToken
	res, err := c.ForgetBatch(ctx, in)
	if err != nil || res.Mode != "execute" || res.Deleted != 4 || len(res.Results) != 4 {
		t.Fatalf("execute: %+v %v", res, err)
	}
	// By ids.
	res, err = c.ForgetBatch(ctx, core.BatchForgetInput{Mode: "execute", IDs: []string{ids[3]}, Reason: "cleanup"})
	if err != nil || res.Deleted != 1 || res.Results[0].ID != ids[3] {
		t.Fatalf("execute by ids: %+v %v", res, err)
	}
}
