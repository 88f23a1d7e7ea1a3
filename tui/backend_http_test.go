package tui

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	corejobs "github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/tui/jobs"
	"github.com/cairnmem/cairn/tui/pane"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/httpapi"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

// TestHTTPBackendQueueAndProposals checks client mode against the real
// API: the same answers as the Local backend, decisions recorded as the
// TUI, and API errors surfacing as *core.Error.
func TestHTTPBackendQueueAndProposals(t *testing.T) {
	var srv *httptest.Server
	h := newHarness(t, harnessOpts{width: 120, height: 40, client: func(ap *app.App) client.Client {
		srv = httptest.NewServer(httpapi.NewAPI(ap, "test", "127.0.0.1:0").Handler())
		t.Cleanup(srv.Close)
		return pane.Remote(strings.TrimPrefix(srv.URL, "http://"))
	}})
	pipelineFixture(h)
	ctx := context.Background()
	hb := pane.Remote(strings.TrimPrefix(srv.URL, "http://"))
	lb := client.Local(h.app, pane.LocalOptions)

	hp, err := hb.Jobs(ctx, wire.JobFilter{Status: storage.JobDead}, 10)
	if err != nil {
		t.Fatal(err)
	}
	lp, _ := lb.Jobs(ctx, wire.JobFilter{Status: storage.JobDead}, 10)
	if len(hp.Jobs) != 1 || hp.Jobs[0].ID != jobDead || hp.Counts[storage.JobDead] != lp.Counts[storage.JobDead] ||
		hp.ByType[corejobs.Extract][storage.JobPending] != 2 {
		t.Fatalf("jobs over HTTP: %+v", hp)
	}
	if j, err := hb.Job(ctx, jobDone); err != nil || j.Status != storage.JobCompleted || j.Result == "" {
		t.Fatalf("job over HTTP: %+v %v", j, err)
	}
	if j, err := hb.RetryJob(ctx, jobBacking); err != nil || j.NextAttemptAt != "" {
		t.Fatalf("retry over HTTP: %+v %v", j, err)
	}
	var ce *core.Error
	if _, err := hb.RetryJob(ctx, jobDone); !errors.As(err, &ce) || ce.Code != "job_not_retryable" {
		t.Fatalf("retrying a completed job over HTTP: %v", err)
	}

	st, err := pane.Snapshot(ctx, hb, "")
	if err != nil || st.DeadJobs != 1 || st.PendingProposals != 3 || !st.QueueKnown {
		t.Fatalf("status over HTTP: %+v %v", st, err)
	}

	ps, err := hb.Proposals(ctx, wire.ProposalFilter{State: storage.ProposalPending, Action: extract.ActionUpdate}, 10)
	if err != nil || len(ps.Proposals) != 1 || ps.Total != 1 || ps.Proposals[0].ID != propUpdate {
		t.Fatalf("proposals over HTTP: %v %v", ps, err)
	}
	if p, err := hb.Proposal(ctx, propDelete); err != nil || p.Action != extract.ActionDelete {
		t.Fatalf("proposal over HTTP: %+v %v", p, err)
	}
	if _, err := hb.RejectProposal(ctx, propDelete, ""); !errors.As(err, &ce) || ce.Code != core.CodeInvalidRequest {
		t.Fatalf("reject without a reason: %v", err)
	}
	if p, err := hb.RejectProposal(ctx, propDelete, "not fixed"); err != nil || p.State != storage.ProposalRejected || p.DecidedBy != "tui" {
		t.Fatalf("reject over HTTP: %+v %v", p, err)
	}
	c := "postgres moved"
	if _, err := h.svc.Modify(ctx, core.Patch{ID: idPostgres, Content: &c, Reason: "moved"}, core.Actor{Name: "agent"}); err != nil {
		t.Fatal(err)
	}
	if _, err := hb.ApproveProposal(ctx, propUpdate, ""); !errors.Is(err, core.ErrVersionConflict) {
		t.Fatalf("stale approve over HTTP: %v", err)
	}
}

// TestHTTPBackendRepairContract checks the repair calls against the
// contract of POST /api/repair/{action} (core.RepairOptions in,
// core.RepairResult out), which the API serves from another branch.
func TestHTTPBackendRepairContract(t *testing.T) {
	var got []string
	var bodies []ops.RepairOptions
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var o ops.RepairOptions
		if err := json.NewDecoder(r.Body).Decode(&o); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		got, bodies = append(got, r.Method+" "+r.URL.Path), append(bodies, o)
		action := strings.TrimPrefix(r.URL.Path, "/api/repair/")
		json.NewEncoder(w).Encode(ops.RepairResult{Action: action, Success: true, Affected: 2, Message: "did " + action})
	}))
	defer srv.Close()
	hb := pane.Remote(strings.TrimPrefix(srv.URL, "http://"))
	res, err := jobs.RequeueDead(context.Background(), hb, jobDead, 1)
	if err != nil || res.Message != "did requeue-dead" || res.Affected != 2 {
		t.Fatalf("requeue: %+v %v", res, err)
	}
	if res, err := jobs.ReleaseLeases(context.Background(), hb); err != nil || res.Action != ops.RepairReleaseLeases {
		t.Fatalf("release: %+v %v", res, err)
	}
	want := []string{"POST /api/repair/requeue-dead", "POST /api/repair/release-leases"}
	if strings.Join(got, ",") != strings.Join(want, ",") || bodies[0].JobID != jobDead || bodies[0].BatchSize != 1 || bodies[1].Reason == "" {
		t.Fatalf("requests %v bodies %+v", got, bodies)
	}
}
