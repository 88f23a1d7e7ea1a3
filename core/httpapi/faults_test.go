package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/storage"
)

// healthUntil polls /health until ok says its answer is the one expected
// (the snapshot is refreshed in the background) and returns it.
func healthUntil(t *testing.T, e *apitest.Env, ok func(*apitest.Resp) bool) *apitest.Resp {
	t.Helper()
	var r *apitest.Resp
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if r = e.Get(t, "/health"); ok(r) {
			return r
		}
	}
	t.Fatalf("/health never reached the expected state; last: %s", r)
	return nil
}

func storageFault(r *apitest.Resp) string {
	st, _ := r.JSON["storage"].(map[string]any)
	s, _ := st["fault"].(string)
	return s
}

// TestDiskFullAnswers507: a full disk (SQLITE_FULL, simulated with
// max_page_count on the real database) is a clear 507 storage_full, not an
// opaque 500; nothing is half-written; /health says unhealthy until a
// commit succeeds again; the error ring has it.
func TestDiskFullAnswers507(t *testing.T) {
	t.Parallel()
	apitest.SQLiteOnly(t, "a full disk injected through PRAGMA max_page_count")
	e := apitest.NewEnv(t, apitest.NoPipeline)
	e.MustID(t, "written before the disk filled up")
	pages := e.Count(t, `PRAGMA page_count`)
	e.Exec(t, `PRAGMA max_page_count = `+strconv.Itoa(pages))
	before := e.State(t)
	var b strings.Builder
	for i := range 250 {
		fmt.Fprintf(&b, "Note %d: release train %d uses staging cluster %d and on-call rota %d. ", i, i*7, i*13, i*31)
	}
	long := b.String()
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": long}).WantErr(t, http.StatusInsufficientStorage, core.CodeStorageFull)
	if !strings.Contains(r.Str("error"), "disk is full") {
		t.Fatalf("the answer does not name the cause: %s", r)
	}
	e.Unchanged(t, before)

	h := e.Get(t, "/health")
	if h.Status != http.StatusServiceUnavailable || h.Str("status") != "unhealthy" || h.Str("code") != core.CodeStorageFull ||
		storageFault(h) != core.CodeStorageFull || h.JSON["db"] != false {
		t.Fatalf("/health on a full disk: %s", h)
	}
	errs := e.Get(t, "/api/analytics/errors?stage=storage").Want(t, 200)
	if !strings.Contains(string(errs.Raw), analytics.CodeStorageError) || !strings.Contains(string(errs.Raw), core.CodeStorageFull) {
		t.Fatalf("the error ring has no storage fault: %s", errs)
	}

	// Space again: the next commit clears the fault.
	e.Exec(t, `PRAGMA max_page_count = 1073741823`)
	e.Post(t, "/api/memory/remember", map[string]any{"content": long}).Want(t, 200)
	healthUntil(t, e, func(r *apitest.Resp) bool { return r.Status == 200 && r.Str("status") == "healthy" })
}

// TestReadOnlyStoreIsUnhealthy: a store that refuses writes answers 503
// storage_readonly, and /health does not call it healthy.
func TestReadOnlyStoreIsUnhealthy(t *testing.T) {
	t.Parallel()
	apitest.SQLiteOnly(t, "a read-only store injected through PRAGMA query_only")
	e := apitest.NewEnv(t, apitest.NoPipeline)
	e.MustID(t, "written while the store was writable")
	healthUntil(t, e, func(r *apitest.Resp) bool { return r.Status == 200 && r.Str("status") == "healthy" })
	e.Exec(t, `PRAGMA query_only = 1`) // from here the writer cannot write, as on a read-only file
	e.Post(t, "/api/memory/remember", map[string]any{"content": "refused by a read-only store"}).
		WantErr(t, http.StatusServiceUnavailable, core.CodeStorageReadOnly)
	h := e.Get(t, "/health")
	if h.Status != http.StatusServiceUnavailable || h.Str("status") != "unhealthy" || storageFault(h) != core.CodeStorageReadOnly {
		t.Fatalf("/health on a read-only store: %s", h)
	}
	// Reads still work and do not clear the fault.
	e.Get(t, "/api/memories").Want(t, 200)
	if h := e.Get(t, "/health"); h.Str("status") != "unhealthy" {
		t.Fatalf("/health after a read: %s", h)
	}
}

// TestDamagedStoreAtRuntime: pages damaged under a running cairn. The
// first read that meets them answers 503 storage_corrupt (export included:
// a real error, not an empty 200); from then on /health says unhealthy
// and writes are refused rather than written over broken pages.
func TestDamagedStoreAtRuntime(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memories.db")
	ctx := context.Background()
	cfg := config.DefaultConfig()
	apitest.NoPipeline(&cfg)
	db, err := storage.Open(ctx, storage.Options{Path: path, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	ap := app.New(db, cfg, app.Options{})
	svc := ap.Service
	for i := range 400 {
		if _, err := svc.Remember(ctx, core.RememberInput{Content: fmt.Sprintf("memory %d about service %d and its runbook in docs/%d.md", i, i%31, i)},
			core.Actor{Name: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = storage.Open(ctx, storage.Options{Path: path, NoBackup: true})
	if err != nil {
		t.Fatalf("the intact store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	ap = app.New(db, cfg, app.Options{})
	svc = ap.Service
	api := httpapi.NewAPI(ap, "test", "127.0.0.1:0")
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(api.Wait) // a refresh started by /health reads the store: before it closes
	t.Cleanup(srv.Close)
	e := &apitest.Env{DB: db, Svc: svc, H: srv.Config.Handler, Srv: srv}

	st, _ := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	junk := []byte(strings.Repeat("\xde\xad\xbe\xef", 1024))
	for off := int64(8 * 4096); off < st.Size(); off += 4096 {
		if _, err := f.WriteAt(junk, off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()

	ex := e.Get(t, "/api/memories/export")
	if ex.Status == 200 {
		t.Fatalf("export of a damaged store answered 200 (%d bytes)", len(ex.Raw))
	}
	ex.WantErr(t, http.StatusServiceUnavailable, core.CodeStorageCorrupt)
	e.Get(t, "/api/memories?limit=1000").WantErr(t, http.StatusServiceUnavailable, core.CodeStorageCorrupt)
	h := e.Get(t, "/health")
	if h.Status != http.StatusServiceUnavailable || h.Str("status") != "unhealthy" || storageFault(h) != core.CodeStorageCorrupt {
		t.Fatalf("/health on a damaged store: %s", h)
	}
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": "must not be written over damaged pages"}).
		WantErr(t, http.StatusServiceUnavailable, core.CodeStorageCorrupt)
	if !strings.Contains(r.Str("error"), "damaged") {
		t.Fatalf("the refusal does not say why: %s", r)
	}
}
