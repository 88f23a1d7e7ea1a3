package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/core/wire"

	"github.com/cairnmem/cairn/core/httpapi"

	"github.com/cairnmem/cairn/core/analytics"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

// opsBackends returns a Local and an HTTP client over one real store.
func opsBackends(t *testing.T) (*core.Service, map[string]client.Client) {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "memories.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ap := app.New(db, config.DefaultConfig(), app.Options{})
	svc := ap.Service
	srv := httptest.NewServer(httpapi.NewAPI(ap, "test", "127.0.0.1:0").Handler())
	t.Cleanup(srv.Close)
	return svc, map[string]client.Client{
		"local": client.Local(ap, client.LocalOptions{Actor: testActor}),
		"http":  client.HTTP(strings.TrimPrefix(srv.URL, "http://"), client.Options{Actor: testActor}),
	}
}

func TestOpsBothBackends(t *testing.T) {
	svc, backends := opsBackends(t)
	ctx := context.Background()
	if _, err := svc.Remember(ctx, core.RememberInput{Content: "the staging database listens on 5433"}, core.Actor{Name: "agent"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Recall(ctx, core.RecallInput{Query: "staging"}); err != nil {
		t.Fatal(err)
	}
	svc.Analytics().RecordError(analytics.ErrorEvent{Stage: "api", Code: "test_error", Message: "seeded for the test"})
	for name, b := range backends {
		t.Run(name, func(t *testing.T) {
			rep, err := b.Diagnostics(ctx, false)
			if err != nil || len(rep.Domains) != len(ops.DiagnosticsDomains) || rep.Composite.Status == "" {
				t.Fatalf("diagnostics: %+v %v", rep, err)
			}
			if !reflect.DeepEqual(wire.RepairActions(), ops.RepairActions()) {
				t.Fatal("repair actions differ from core's")
			}
			res, err := b.Repair(ctx, ops.RepairCheckFTS, ops.RepairOptions{})
			if err != nil || res.Action != ops.RepairCheckFTS || !res.Success {
				t.Fatalf("check-fts: %+v %v", res, err)
			}
			if _, err := b.Repair(ctx, "no-such-repair", ops.RepairOptions{}); !errors.Is(err, &core.Error{Code: ops.CodeUnknownRepair}) {
				t.Fatalf("unknown repair: %v", err)
			}
			if _, err := b.Maintenance(ctx); err != nil {
				t.Fatal(err)
			}
			lat, err := b.Latency(ctx)
			if err != nil || lat[analytics.LatencyRecall].Count < 1 {
				t.Fatalf("latency: %+v %v", lat, err)
			}
			samples, err := b.LatencySamples(ctx, analytics.LatencyRecall)
			if err != nil || len(samples) < 1 {
				t.Fatalf("%s client has no recall samples: %v", name, err)
			}
			errs, err := b.RecentErrors(ctx, 5)
			if err != nil || len(errs) == 0 || errs[0].Code == "" {
				t.Fatalf("errors: %+v %v", errs, err)
			}
		})
	}
}

// TestHTTPRepairErrorsKeepTheirCode checks that a 409 from the API reaches
// the caller as a *core.Error with its status and code.
func TestHTTPRepairErrorsKeepTheirCode(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/repair/check-fts" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		w.Write([]byte(`{"error":"repair check-fts is already running","code":"repair_in_progress"}`))
	}))
	defer srv.Close()
	b := client.HTTP(strings.TrimPrefix(srv.URL, "http://"), client.Options{Actor: testActor})
	_, err := b.Repair(context.Background(), ops.RepairCheckFTS, ops.RepairOptions{Repair: true})
	var ce *core.Error
	if !errors.As(err, &ce) || client.StatusOf(err) != http.StatusConflict || ce.Code != ops.CodeRepairInProgress {
		t.Fatalf("got %v", err)
	}
}

// TestHTTPFreshDiagnosticsWaitsForTheCache: the API caches reports for
// core.DiagnosticsTTL, so a fresh one is asked for after that.
func TestHTTPFreshDiagnosticsWaitsForTheCache(t *testing.T) {
	_, backends := opsBackends(t)
	start := time.Now()
	if _, err := backends["http"].Diagnostics(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < ops.DiagnosticsTTL {
		t.Fatalf("fresh report after %v, before the cache turned over", d)
	}
}

// testActor is who the tests' clients write as.
var testActor = core.Actor{Name: "tui", Type: core.ActorOperator}
