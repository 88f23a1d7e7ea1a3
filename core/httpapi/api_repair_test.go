package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/auth"

	"github.com/cairnmem/cairn/core"
)

func TestAPIRepairRoutes(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed)
	e.MustID(t, "The cache layer evicts entries after ten minutes.")

	list := e.Get(t, "/api/repair").Want(t, http.StatusOK).List(t, "actions")
	if len(list) != len(ops.RepairActions()) {
		t.Fatalf("actions = %v", list)
	}
	destructive := map[string]bool{}
	for _, a := range list {
		if a["destructive"] == true {
			destructive[a["action"].(string)] = true
		}
	}
	for _, a := range []string{"deduplicate", "clean-orphans", "retention-sweep", "check-fts"} {
		if !destructive[a] {
			t.Fatalf("%s not marked destructive: %v", a, list)
		}
	}

	if apitest.OnPostgres() {
		// FTS5 is SQLite's: the repair says so, and changes nothing.
		e.Do(t, "POST", "/api/repair/check-fts", nil, apitest.Hdr("X-Cairn-Reason", "nightly check")).WantErr(t, http.StatusNotImplemented, core.CodeNotOnPostgres)
		return
	}
	// Body optional; the reason comes from the header.
	r := e.Do(t, "POST", "/api/repair/check-fts", nil, apitest.Hdr("X-Cairn-Reason", "nightly check")).Want(t, http.StatusOK)
	if !r.Bool("success") || r.Str("action") != "check-fts" || r.Num("affected") != 0 || r.Str("message") == "" {
		t.Fatalf("check-fts = %s", r)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = 'system' AND reason = 'nightly check' AND changed_by = 'api'`); n != 1 {
		t.Fatal("header reason not audited")
	}
	r = e.Post(t, "/api/repair/retention-sweep", map[string]any{"dryRun": true, "reason": "look"}).Want(t, http.StatusOK)
	if !r.Bool("dryRun") || r.Num("affected") != 0 {
		t.Fatalf("dry sweep = %s", r)
	}
	r = e.Post(t, "/api/repair/re-embed", map[string]any{}).Want(t, http.StatusOK)
	if r.Bool("success") || !strings.Contains(r.Str("message"), "no embedding provider") {
		t.Fatalf("re-embed without embedder = %s", r)
	}

	// Bad input names its field.
	e.Post(t, "/api/repair/re-embed", map[string]any{"batchSize": "many"}).WantInvalid(t, "batchSize", "batchSize must be an integer")
	e.Post(t, "/api/repair/re-embed", map[string]any{"batchSize": 0}).WantInvalid(t, "batchSize", "batchSize must be between 1 and 10000")
	e.Post(t, "/api/repair/check-fts", map[string]any{"repair": "perhaps"}).WantInvalid(t, "repair", "repair must be a boolean")
	e.Post(t, "/api/repair/check-fts", map[string]any{"jobId": "j1"}).WantInvalid(t, "jobId", "jobId only applies to requeue-dead")
	e.Post(t, "/api/repair/check-fts", "[1]").WantErr(t, http.StatusBadRequest, core.CodeInvalidJSON)
	e.Post(t, "/api/repair/frobnicate", nil).WantErr(t, http.StatusNotFound, ops.CodeUnknownRepair)
	e.Get(t, "/api/repair/deduplicate").Want(t, http.StatusMethodNotAllowed)

	// The gate: an agent caller is refused while autonomy is off.
	e.Do(t, "POST", "/api/repair/requeue-dead", nil, apitest.Hdr("X-Cairn-Actor-Type", "agent")).WantErr(t, http.StatusTooManyRequests, ops.CodeRepairDisabled)

	g := e.Get(t, "/api/repair/embedding-gaps").Want(t, http.StatusOK)
	if g.Num("total") != 1 || g.Num("unembedded") != 1 || g.Str("coverage") != "0.0%" {
		t.Fatalf("gaps = %s", g)
	}
	d := e.Get(t, "/api/repair/dedup-stats").Want(t, http.StatusOK)
	if d.Num("exactClusters") != 0 || d.Num("exactExcess") != 0 || d.Num("totalActive") != 1 {
		t.Fatalf("dedup stats = %s", d)
	}
}

func TestAPIRepairNeedsAdmin(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed, apitest.AuthMode("team"))
	for _, role := range []string{"operator", "agent", "readonly"} {
		tok := e.Token(t, role, "")
		e.Do(t, "POST", "/api/repair/check-fts", nil, apitest.Bearer(tok)).WantErr(t, http.StatusForbidden, auth.CodeForbidden)
		e.Do(t, "GET", "/api/repair/dedup-stats", nil, apitest.Bearer(tok)).WantErr(t, http.StatusForbidden, auth.CodeForbidden)
	}
	if apitest.OnPostgres() { // past the role check, FTS5 is SQLite's
		e.Do(t, "POST", "/api/repair/check-fts", nil, apitest.Bearer(e.Token(t, "admin", ""))).WantErr(t, http.StatusNotImplemented, core.CodeNotOnPostgres)
		return
	}
	e.Do(t, "POST", "/api/repair/check-fts", nil, apitest.Bearer(e.Token(t, "admin", ""))).Want(t, http.StatusOK)
}
