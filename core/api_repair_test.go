package core_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/auth"

	"github.com/cairnmem/cairn/core"
)

func TestAPIRepairRoutes(t *testing.T) {
	e := newEnv(t, noEmbed)
	e.mustID(t, "The cache layer evicts entries after ten minutes.")

	list := e.get(t, "/api/repair").want(t, http.StatusOK).list(t, "actions")
	if len(list) != len(core.RepairActions()) {
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

	// Body optional; the reason comes from the header.
	r := e.do(t, "POST", "/api/repair/check-fts", nil, hdr("X-Cairn-Reason", "nightly check")).want(t, http.StatusOK)
	if !r.boolean("success") || r.str("action") != "check-fts" || r.num("affected") != 0 || r.str("message") == "" {
		t.Fatalf("check-fts = %s", r)
	}
	if n := e.count(t, `SELECT count(*) FROM memory_history WHERE memory_id = 'system' AND reason = 'nightly check' AND changed_by = 'api'`); n != 1 {
		t.Fatal("header reason not audited")
	}
	r = e.post(t, "/api/repair/retention-sweep", map[string]any{"dryRun": true, "reason": "look"}).want(t, http.StatusOK)
	if !r.boolean("dryRun") || r.num("affected") != 0 {
		t.Fatalf("dry sweep = %s", r)
	}
	r = e.post(t, "/api/repair/re-embed", map[string]any{}).want(t, http.StatusOK)
	if r.boolean("success") || !strings.Contains(r.str("message"), "no embedding provider") {
		t.Fatalf("re-embed without embedder = %s", r)
	}

	// Bad input names its field.
	e.post(t, "/api/repair/re-embed", map[string]any{"batchSize": "many"}).wantInvalid(t, "batchSize", "batchSize must be an integer")
	e.post(t, "/api/repair/re-embed", map[string]any{"batchSize": 0}).wantInvalid(t, "batchSize", "batchSize must be between 1 and 10000")
	e.post(t, "/api/repair/check-fts", map[string]any{"repair": "perhaps"}).wantInvalid(t, "repair", "repair must be a boolean")
	e.post(t, "/api/repair/check-fts", map[string]any{"jobId": "j1"}).wantInvalid(t, "jobId", "jobId only applies to requeue-dead")
	e.post(t, "/api/repair/check-fts", "[1]").wantErr(t, http.StatusBadRequest, core.CodeInvalidJSON)
	e.post(t, "/api/repair/frobnicate", nil).wantErr(t, http.StatusNotFound, core.CodeUnknownRepair)
	e.get(t, "/api/repair/deduplicate").want(t, http.StatusMethodNotAllowed)

	// The gate: an agent caller is refused while autonomy is off.
	e.do(t, "POST", "/api/repair/requeue-dead", nil, hdr("X-Cairn-Actor-Type", "agent")).wantErr(t, http.StatusTooManyRequests, core.CodeRepairDisabled)

	g := e.get(t, "/api/repair/embedding-gaps").want(t, http.StatusOK)
	if g.num("total") != 1 || g.num("unembedded") != 1 || g.str("coverage") != "0.0%" {
		t.Fatalf("gaps = %s", g)
	}
	d := e.get(t, "/api/repair/dedup-stats").want(t, http.StatusOK)
	if d.num("exactClusters") != 0 || d.num("exactExcess") != 0 || d.num("totalActive") != 1 {
		t.Fatalf("dedup stats = %s", d)
	}
}

func TestAPIRepairNeedsAdmin(t *testing.T) {
	e := newEnv(t, noEmbed, authMode("team"))
	for _, role := range []string{"operator", "agent", "readonly"} {
		tok := e.token(t, role, "")
		e.do(t, "POST", "/api/repair/check-fts", nil, bearer(tok)).wantErr(t, http.StatusForbidden, auth.CodeForbidden)
		e.do(t, "GET", "/api/repair/dedup-stats", nil, bearer(tok)).wantErr(t, http.StatusForbidden, auth.CodeForbidden)
	}
	e.do(t, "POST", "/api/repair/check-fts", nil, bearer(e.token(t, "admin", ""))).want(t, http.StatusOK)
}
