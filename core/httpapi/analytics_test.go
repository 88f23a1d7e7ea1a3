package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/analytics"
)

func TestAnalyticsUsageKeyedByPattern(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	a := e.MustID(t, "first memory for usage")
	b := e.MustID(t, "second memory for usage")
	e.Do(t, "GET", "/api/memory/"+a, nil, apitest.Hdr("X-Cairn-Actor", "alice")).Want(t, http.StatusOK)
	e.Do(t, "GET", "/api/memory/"+b, nil, apitest.Hdr("X-Cairn-Actor", "alice")).Want(t, http.StatusOK)
	e.Get(t, "/api/memory/missing-id").Want(t, http.StatusNotFound)
	e.Get(t, "/no/such/route").Want(t, http.StatusNotFound)
	e.Post(t, "/api/memory/recall", map[string]any{"query": "usage"}).Want(t, http.StatusOK)

	u := e.Get(t, "/api/analytics/usage").Want(t, http.StatusOK)
	eps := u.JSON["endpoints"].(map[string]any)
	get := eps["GET /api/memory/{id}"].(map[string]any)
	if get["count"] != 3.0 || get["errors"] != 1.0 {
		t.Fatalf("GET /api/memory/{id}: %v", get)
	}
	for k := range eps {
		if k == "GET /api/memory/"+a || k == "GET /api/memory/"+b {
			t.Fatalf("raw path used as a key: %s", k)
		}
	}
	if un := eps["unmatched"].(map[string]any); un["count"] != 1.0 || un["errors"] != 1.0 {
		t.Fatalf("unmatched %v", un)
	}
	if al := u.JSON["actors"].(map[string]any)["alice"].(map[string]any); al["count"] != 2.0 {
		t.Fatalf("alice %v", al)
	}
	lat := e.Get(t, "/api/analytics/latency").Want(t, http.StatusOK)
	for _, op := range []string{"remember", "recall", "mutate", "jobs"} {
		if _, ok := lat.JSON[op].(map[string]any); !ok {
			t.Fatalf("latency lacks %s: %s", op, lat)
		}
	}
	if rem := lat.JSON["remember"].(map[string]any); rem["count"] != 2.0 {
		t.Fatalf("remember latency %v", rem)
	}
	if rec := lat.JSON["recall"].(map[string]any); rec["count"] != 1.0 {
		t.Fatalf("recall latency %v", rec)
	}
	if sm := e.Get(t, "/api/analytics/latency/samples?op=recall").Want(t, http.StatusOK); len(sm.JSON["samples"].([]any)) != 1 {
		t.Fatalf("recall samples %s", sm)
	}
	e.Get(t, "/api/analytics/latency/samples?op=teleport").WantInvalid(t, "op", "op must be one of remember, recall, mutate, jobs")
	e.Del(t, a, map[string]any{"reason": "test"}).Want(t, http.StatusOK)
	if m := e.Svc.Analytics().Latency(analytics.LatencyMutate); m.Count != 1 {
		t.Fatalf("mutate latency %+v", m)
	}
}

func TestAnalyticsErrorsEndpoint(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	an := e.Svc.Analytics()
	an.RecordError(analytics.ErrorEvent{Stage: analytics.StageExtraction, Code: analytics.CodeExtractionParseFail, Message: "no JSON", MemoryID: "m1"})
	e.Clock.Advance(time.Hour)
	an.RecordError(analytics.ErrorEvent{Stage: analytics.StageEmbedding, Code: analytics.CodeEmbeddingTimeout, Message: "slow"})
	an.RecordError(analytics.ErrorEvent{Stage: analytics.StageEmbedding, Code: analytics.CodeEmbeddingTimeout, Message: "slow again"})

	r := e.Get(t, "/api/analytics/errors").Want(t, http.StatusOK)
	if errs := r.JSON["errors"].([]any); len(errs) != 3 || errs[0].(map[string]any)["message"] != "slow again" {
		t.Fatalf("errors %s", r)
	}
	if s := r.JSON["summary"].(map[string]any); s["EMBEDDING_TIMEOUT"] != 2.0 || s["EXTRACTION_PARSE_FAIL"] != 1.0 {
		t.Fatalf("summary %s", r)
	}
	r = e.Get(t, "/api/analytics/errors?stage=extraction").Want(t, http.StatusOK)
	if errs := r.JSON["errors"].([]any); len(errs) != 1 || errs[0].(map[string]any)["memoryId"] != "m1" {
		t.Fatalf("stage filter %s", r)
	}
	since := apitest.ClockStart.Add(30 * time.Minute).Format(time.RFC3339)
	r = e.Get(t, "/api/analytics/errors?since="+since+"&limit=1").Want(t, http.StatusOK)
	if errs := r.JSON["errors"].([]any); len(errs) != 1 || r.JSON["summary"].(map[string]any)["EMBEDDING_TIMEOUT"] != 2.0 {
		t.Fatalf("since+limit %s", r)
	}
	e.Get(t, "/api/analytics/errors?stage=predictor").WantInvalid(t, "stage", "stage must be one of")
	e.Get(t, "/api/analytics/errors?since=yesterday").WantInvalid(t, "since", "since must be")
	e.Get(t, "/api/analytics/errors?limit=0").WantInvalid(t, "limit", "from 1 to 500")
	e.Get(t, "/api/analytics/errors?limit=501").WantInvalid(t, "limit", "from 1 to 500")
	e.Get(t, "/api/analytics/errors?limit=ten").WantInvalid(t, "limit", "limit must be an integer")
}

func TestAnalyticsServerErrorsRecorded(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	e.DB.Close() // every query now fails: a 500
	r := e.Get(t, "/api/memories")
	if r.Status != http.StatusInternalServerError {
		t.Fatalf("want 500, got %s", r)
	}
	errs, _ := e.Svc.Analytics().Errors(analytics.ErrorFilter{Stage: analytics.StageAPI})
	if len(errs) != 1 || errs[0].Code != analytics.CodeAPIServerError || errs[0].RequestID == "" {
		t.Fatalf("api errors %+v", errs)
	}
}
