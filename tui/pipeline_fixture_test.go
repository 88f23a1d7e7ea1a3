package tui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cairnmem/cairn/core/pipeline"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/tui/backend"
	"github.com/cairnmem/cairn/workers/llm"
)

// Fixed ids of the pipeline fixture, so renders are the same on every run.
const (
	jobDone     = "0195a1b2-0000-7000-8000-0000000b0001"
	jobDead     = "0195a1b2-0000-7000-8000-0000000b0002"
	jobBacking  = "0195a1b2-0000-7000-8000-0000000b0003"
	jobStale    = "0195a1b2-0000-7000-8000-0000000b0004"
	jobPending  = "0195a1b2-0000-7000-8000-0000000b0005"
	propUpdate  = "0195a1b2-0000-7000-8000-0000000c0001"
	propDelete  = "0195a1b2-0000-7000-8000-0000000c0002"
	idDeploy    = "0195a1b2-0000-7000-8000-00000000a004"
	idFlakyTest = "0195a1b2-0000-7000-8000-00000000a005"
)

// pipelineFixture fills the queue and the proposals: one extract job run
// for real by the heuristic provider (a completed job with its shadow
// proposals), a dead, a backing-off, a stale leased and a pending job, and
// an UPDATE (contradiction, review needed) and a DELETE (blocked) proposal
// against seeded memories.
func pipelineFixture(h *harness) {
	h.t.Helper()
	ctx := context.Background()
	at := func(d time.Duration) string { return storage.FormatTime(fixedNow.Add(-d)) }
	err := h.db.WriteTx(ctx, func(tx *storage.Tx) error {
		_, err := storage.EnqueueJob(ctx, tx, jobDone, idSQLite, core.JobExtract, "", 3, at(10*time.Minute))
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	job, err := h.svc.LeaseJob(ctx, "fixture", core.JobExtract)
	if err != nil || job == nil || job.ID != jobDone {
		h.t.Fatalf("lease: %v %v", job, err)
	}
	if _, err := pipeline.For(h.svc).ProcessExtractJob(ctx, job, llm.NewHeuristic()); err != nil {
		h.t.Fatal(err)
	}
	err = h.db.WriteTx(ctx, func(tx *storage.Tx) error {
		for _, j := range []struct{ id, mem, status, payload, errMsg, failed, leased, created string }{
			{jobDead, idDeploy, storage.JobDead, `{"reason":"reextract"}`, "provider: ollama: connection refused (3 attempts)", at(2 * time.Minute), "", at(3 * time.Hour)},
			{jobBacking, idFlakyTest, storage.JobPending, "", "provider timed out after 90s", at(time.Minute), "", at(20 * time.Minute)},
			{jobStale, idTabs, storage.JobLeased, "", "", "", at(9 * time.Minute), at(12 * time.Minute)},
			{jobPending, idAPI, storage.JobPending, "", "", "", "", at(30 * time.Second)},
		} {
			attempts := 0
			switch j.status {
			case storage.JobDead:
				attempts = 3
			case storage.JobLeased:
				attempts = 1
			}
			if j.failed != "" && j.status == storage.JobPending {
				attempts = 1
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO memory_jobs (id, memory_id, job_type, status, payload, attempts, max_attempts,
				leased_at, lease_owner, failed_at, error, created_at, updated_at) VALUES (?,?,?,?,?,?,3,?,?,?,?,?,?)`,
				j.id, j.mem, core.JobExtract, j.status, nullable(j.payload), attempts, nullable(j.leased), nullable(ownerIf(j.leased)),
				nullable(j.failed), nullable(j.errMsg), j.created, j.created); err != nil {
				return err
			}
		}
		for _, p := range []*storage.Proposal{
			{ID: propUpdate, JobID: jobDone, SourceMemoryID: idSQLite, Action: extract.ActionUpdate, FactType: "fact",
				Fact: "postgres runs on port 5434 in staging; production uses the default 5432", Confidence: 0.74,
				TargetMemoryID: idPostgres, TargetVersion: 1, Reason: "newer port for staging", Shadow: true,
				ReviewNeeded: true, ContradictionRisk: true, CreatedAt: at(5 * time.Minute)},
			{ID: propDelete, JobID: jobDone, SourceMemoryID: idSQLite, Action: extract.ActionDelete, FactType: "issue",
				Fact: "the flaky export test was fixed", Confidence: 0.62, TargetMemoryID: idFlakyTest, TargetVersion: 1,
				Shadow: true, Blocked: true, BlockedReason: "update/delete not allowed in shadow mode", CreatedAt: at(6 * time.Minute)},
		} {
			if err := storage.InsertProposal(ctx, tx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		h.t.Fatal(err)
	}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func ownerIf(leased string) string {
	if leased == "" {
		return ""
	}
	return "pipeline-worker-1"
}

// failingBackend is a Local backend whose queue and proposal reads fail,
// for the error states.
type failingBackend struct {
	backend.Backend
}

var errStoreGone = errors.New("database is locked (SQLITE_BUSY) after 5s")

func (failingBackend) Jobs(context.Context, core.JobFilter, int) (*backend.JobsPage, error) {
	return nil, fmt.Errorf("list jobs: %w", errStoreGone)
}

func (failingBackend) Proposals(context.Context, pipeline.ProposalFilter, int) ([]*storage.Proposal, error) {
	return nil, fmt.Errorf("list proposals: %w", errStoreGone)
}
