package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/jobs"
)

// The job routes answer the queue's refusals with the API's codes: an
// unknown status or job, and a job that may not be retried.
func TestJobRoutesRefusals(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed)
	ctx := context.Background()
	e.MustID(t, "The deploy window is Tuesday at noon.")
	j, err := e.App.Jobs.Lease(ctx, "test", jobs.Extract)
	if err != nil || j == nil {
		t.Fatalf("lease: %v %v", j, err)
	}
	if err := e.App.Jobs.Complete(ctx, j, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	e.Get(t, "/api/jobs?status=sleeping").WantInvalid(t, "status", "status must be one of pending, leased, completed, failed, dead")
	if r := e.Get(t, "/api/jobs/no-such-job").WantErr(t, http.StatusNotFound, core.CodeNotFound); r.Str("error") != "not found" {
		t.Fatalf("unknown job: %s", r)
	}
	e.Post(t, "/api/jobs/no-such-job/retry", nil).WantErr(t, http.StatusNotFound, core.CodeNotFound)
	if r := e.Post(t, "/api/jobs/"+j.ID+"/retry", nil).WantErr(t, http.StatusConflict, core.CodeJobNotRetryable); r.Str("error") != "conflict: job is completed" {
		t.Fatalf("retry of a completed job: %s", r)
	}
	if r := e.Get(t, "/api/jobs/"+j.ID).Want(t, http.StatusOK); r.Str("status") != "completed" {
		t.Fatalf("job: %s", r)
	}
}
