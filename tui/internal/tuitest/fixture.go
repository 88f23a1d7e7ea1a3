package tuitest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/tui/pane"
	"github.com/cairnmem/cairn/workers/llm"
)

// FixedNow is the clock of every UI test, so ages and goldens are stable.
var FixedNow = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// Addr is the API address the UI under test says it serves.
const Addr = "127.0.0.1:3850"

// FixedStatus replaces the measured status (its health is a latency), so
// renders are stable.
var FixedStatus = pane.Status{Addr: Addr, AuthMode: "local", Pipeline: "disabled",
	Embedding: "builtin", Memories: 6, Queue: 0, QueueKnown: true, Health: "db 1ms"}

// Ids of seeded memories.
const (
	IDPostgres  = "0195a1b2-0000-7000-8000-00000000a001"
	IDSQLite    = "0195a1b2-0000-7000-8000-00000000a002"
	IDTabs      = "0195a1b2-0000-7000-8000-00000000a003"
	IDDeploy    = "0195a1b2-0000-7000-8000-00000000a004"
	IDFlakyTest = "0195a1b2-0000-7000-8000-00000000a005"
	IDAPI       = "0195a1b2-0000-7000-8000-00000000a006"
)

// Fixed ids of PipelineFixture's jobs and proposals.
const (
	JobDone    = "0195a1b2-0000-7000-8000-0000000b0001"
	JobDead    = "0195a1b2-0000-7000-8000-0000000b0002"
	JobBacking = "0195a1b2-0000-7000-8000-0000000b0003"
	JobStale   = "0195a1b2-0000-7000-8000-0000000b0004"
	JobPending = "0195a1b2-0000-7000-8000-0000000b0005"
	PropUpdate = "0195a1b2-0000-7000-8000-0000000c0001"
	PropDelete = "0195a1b2-0000-7000-8000-0000000c0002"
	PropAdd    = "0195a1b2-0000-7000-8000-0000000c0003"
)

// OpenApp opens a store in dir and builds its App (as the binary does)
// with a clock standing at FixedNow.
func OpenApp(t testing.TB, dir string) (*app.App, *storage.DB) {
	t.Helper()
	return OpenAppWith(t, dir, nil)
}

// OpenAppWith is OpenApp with set (when not nil) adjusting the
// configuration first.
func OpenAppWith(t testing.TB, dir string, set func(*config.Config)) (*app.App, *storage.DB) {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(dir, "memories.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := config.DefaultConfig()
	if set != nil {
		set(&cfg)
	}
	return app.New(db, cfg, app.Options{Now: func() time.Time { return FixedNow }}), db
}

// seedMemories are the test corpus: fixed ids and times, so renders are
// the same on every run.
var seedMemories = []struct {
	id, content, typ string
	tags             []string
	imp              float64
	pinned           bool
	age              time.Duration
}{
	{IDPostgres, "postgres runs on port 5433 in staging; production uses the default 5432", "fact", []string{"infra", "db"}, 0.8, false, 3 * time.Hour},
	{IDSQLite, "We decided to use SQLite in WAL mode for the local store instead of Postgres", "decision", []string{"architecture"}, 0.9, true, 26 * time.Hour},
	{IDTabs, "The operator prefers tabs over spaces in Go code, as gofmt does", "preference", []string{"style"}, 0.5, false, 5 * 24 * time.Hour},
	{IDDeploy, "Run the deploy with ops/deploy.sh --env staging; it needs VPN access", "procedural", []string{"infra", "deploy"}, 0.7, false, 20 * time.Minute},
	{IDFlakyTest, "Flaky test TestExportImportRoundTrip fails when TMPDIR is on tmpfs", "issue", []string{"tests"}, 0.6, false, 40 * 24 * time.Hour},
	{IDAPI, "The HTTP API binds to 127.0.0.1:3850 by default\nand refuses non-loopback binds without team auth", "fact", []string{"api", "security"}, 0.75, false, 2 * time.Minute},
}

// Seed imports the six test memories.
func Seed(t testing.TB, ap *app.App) {
	t.Helper()
	var lines []transfer.ImportLine
	for i, s := range seedMemories {
		at := storage.FormatTime(FixedNow.Add(-s.age))
		lines = append(lines, transfer.ImportLine{Line: i + 1, Memory: core.Memory{
			ID: s.id, Content: s.content, Type: s.typ, Tags: s.tags, Importance: s.imp, Pinned: s.pinned,
			Confidence: 1, Who: "claude-code", Project: "cairn", SourceType: "manual", Version: 1,
			CreatedAt: at, UpdatedAt: at, UpdatedBy: "claude-code", ExtractionStatus: "none",
		}})
	}
	if _, err := ap.Transfer.Import(context.Background(), lines, core.Actor{Name: "seed", Type: core.ActorOperator}); err != nil {
		t.Fatal(err)
	}
}

// PipelineFixture fills the queue and the proposals: one extract job run
// for real by the heuristic provider (a completed job; it proposes nothing,
// the memory's own sentences restate it), a dead, a backing-off, a stale leased and a pending job, and
// an UPDATE (contradiction, review needed) and a DELETE (blocked) proposal
// against seeded memories, and an ADD (as a model would extract it).
func PipelineFixture(t testing.TB, ap *app.App, db *storage.DB) {
	t.Helper()
	ctx := context.Background()
	at := func(d time.Duration) string { return storage.FormatTime(FixedNow.Add(-d)) }
	err := db.WriteTx(ctx, func(tx storage.Tx) error {
		_, err := storage.EnqueueJob(ctx, tx, JobDone, IDSQLite, jobs.Extract, "", 3, at(10*time.Minute))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	job, err := ap.Jobs.Lease(ctx, "fixture", jobs.Extract)
	if err != nil || job == nil || job.ID != JobDone {
		t.Fatalf("lease: %v %v", job, err)
	}
	if _, err := ap.Pipeline.ProcessExtractJob(ctx, job, llm.NewHeuristic()); err != nil {
		t.Fatal(err)
	}
	err = db.WriteTx(ctx, func(tx storage.Tx) error {
		for _, j := range []struct{ id, mem, status, payload, errMsg, failed, leased, created string }{
			{JobDead, IDDeploy, storage.JobDead, `{"reason":"reextract"}`, "provider: ollama: connection refused (3 attempts)", at(2 * time.Minute), "", at(3 * time.Hour)},
			{JobBacking, IDFlakyTest, storage.JobPending, "", "provider timed out after 90s", at(time.Minute), "", at(20 * time.Minute)},
			{JobStale, IDTabs, storage.JobLeased, "", "", "", at(9 * time.Minute), at(12 * time.Minute)},
			{JobPending, IDAPI, storage.JobPending, "", "", "", "", at(30 * time.Second)},
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
				j.id, j.mem, jobs.Extract, j.status, nullable(j.payload), attempts, nullable(j.leased), nullable(ownerIf(j.leased)),
				nullable(j.failed), nullable(j.errMsg), j.created, j.created); err != nil {
				return err
			}
		}
		for _, p := range []*storage.Proposal{
			{ID: PropAdd, JobID: JobDone, SourceMemoryID: IDSQLite, Action: extract.ActionAdd, FactType: "decision",
				Fact: "The local store is SQLite in WAL mode, not Postgres.", Confidence: 0.8, Reason: "no similar memory exists",
				Shadow: true, CreatedAt: at(4 * time.Minute)},
			{ID: PropUpdate, JobID: JobDone, SourceMemoryID: IDSQLite, Action: extract.ActionUpdate, FactType: "fact",
				Fact: "postgres runs on port 5434 in staging; production uses the default 5432", Confidence: 0.74,
				TargetMemoryID: IDPostgres, TargetVersion: 1, Reason: "newer port for staging", Shadow: true,
				ReviewNeeded: true, ContradictionRisk: true, CreatedAt: at(5 * time.Minute)},
			{ID: PropDelete, JobID: JobDone, SourceMemoryID: IDSQLite, Action: extract.ActionDelete, FactType: "issue",
				Fact: "the flaky export test was fixed", Confidence: 0.62, TargetMemoryID: IDFlakyTest, TargetVersion: 1,
				Shadow: true, Blocked: true, BlockedReason: "update/delete not allowed in shadow mode", CreatedAt: at(6 * time.Minute)},
		} {
			if err := storage.InsertProposal(ctx, tx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
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

// FailingClient is a client whose queue and proposal reads fail, for the
// error states.
type FailingClient struct {
	*client.InProcess
}

// Failing is a Local client over ap whose queue and proposal reads fail.
func Failing(ap *app.App) client.Client {
	return FailingClient{client.Local(ap, pane.LocalOptions)}
}

var errStoreGone = errors.New("database is locked (SQLITE_BUSY) after 5s")

// Jobs fails.
func (FailingClient) Jobs(context.Context, wire.JobFilter, int) (*wire.JobsPage, error) {
	return nil, fmt.Errorf("list jobs: %w", errStoreGone)
}

// Proposals fails.
func (FailingClient) Proposals(context.Context, wire.ProposalFilter, int) (*wire.ProposalsPage, error) {
	return nil, fmt.Errorf("list proposals: %w", errStoreGone)
}
