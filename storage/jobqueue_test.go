package storage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
)

// killJob leases and fails a job until it is dead.
func killJob(t *testing.T, db *store, typ string, now time.Time) *storage.Job {
	t.Helper()
	ctx := context.Background()
	for i := 0; ; i++ {
		j := lease(t, db, "w", now.Add(time.Duration(i)*time.Hour), typ)
		if j == nil {
			t.Fatal("nothing to lease")
		}
		var dead bool
		err := db.WriteTx(ctx, func(tx storage.Querier) error {
			var err error
			dead, err = storage.FailJob(ctx, tx, j, "boom", now.Add(time.Duration(i)*time.Hour), time.Second)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if dead {
			return j
		}
	}
}

func TestListRequeueRetryJobs(t *testing.T) { testListRequeueRetryJobs(t, sqliteStore(t)) }

func testListRequeueRetryJobs(t *testing.T, db *store) {
	ctx := context.Background()
	enqueue(t, db, 3, "extract", t0)
	dead := killJob(t, db, "extract", t0)

	jobs, err := storage.ListJobs(ctx, db.Reader(), storage.JobFilter{Status: storage.JobDead}, 10)
	if err != nil || len(jobs) != 1 || jobs[0].ID != dead.ID || jobs[0].Error != "boom" {
		t.Fatalf("dead list = %+v, %v", jobs, err)
	}
	all, _ := storage.ListJobs(ctx, db.Reader(), storage.JobFilter{}, 10)
	if len(all) != 3 || all[len(all)-1].Status != storage.JobDead {
		t.Fatalf("live jobs should list before dead ones: %+v", all)
	}

	// A pending job waiting out its backoff: retry makes it due now.
	j := lease(t, db, "w", t0.Add(10*time.Hour), "extract")
	if err := db.WriteTx(ctx, func(tx storage.Querier) error {
		_, err := storage.FailJob(ctx, tx, j, "flaky", t0.Add(10*time.Hour), time.Hour)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	failing, _ := storage.ListJobs(ctx, db.Reader(), storage.JobFilter{Failing: true}, 10)
	if len(failing) != 1 || failing[0].ID != j.ID {
		t.Fatalf("failing = %+v", failing)
	}
	if lease(t, db, "w2", t0.Add(10*time.Hour+time.Minute), "extract") == nil {
		// the third job is still due; lease it out of the way
		t.Fatal("third job should be due")
	}
	if got := lease(t, db, "w2", t0.Add(10*time.Hour+time.Minute), "extract"); got != nil {
		t.Fatalf("backing-off job leased early: %+v", got)
	}
	var retried *storage.Job
	err = db.WriteTx(ctx, func(tx storage.Querier) error {
		var err error
		retried, err = storage.RetryJob(ctx, tx, j.ID, storage.FormatTime(t0.Add(10*time.Hour+time.Minute)))
		return err
	})
	if err != nil || retried.NextAttemptAt != "" {
		t.Fatalf("retry = %+v, %v", retried, err)
	}
	if got := lease(t, db, "w2", t0.Add(10*time.Hour+time.Minute), "extract"); got == nil || got.ID != j.ID {
		t.Fatalf("retried job not due: %+v", got)
	}
	// Leased jobs cannot be retried.
	err = db.WriteTx(ctx, func(tx storage.Querier) error {
		_, err := storage.RetryJob(ctx, tx, j.ID, storage.FormatTime(t0))
		return err
	})
	if !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("retry leased job: %v, want ErrConflict", err)
	}

	// Requeue all dead: attempts reset, due now.
	var n int64
	err = db.WriteTx(ctx, func(tx storage.Querier) error {
		var err error
		n, err = storage.RequeueDeadJobs(ctx, tx, "", 50, storage.FormatTime(t0.Add(20*time.Hour)))
		return err
	})
	if err != nil || n != 1 {
		t.Fatalf("requeue = %d, %v", n, err)
	}
	got, _ := storage.GetJob(ctx, db.Reader(), dead.ID)
	if got.Status != storage.JobPending || got.Attempts != 0 {
		t.Fatalf("requeued job = %+v", got)
	}
}

func TestRequeueDeadBatchLimit(t *testing.T) { testRequeueDeadBatchLimit(t, sqliteStore(t)) }

func testRequeueDeadBatchLimit(t *testing.T, db *store) {
	ctx := context.Background()
	enqueue(t, db, 5, "extract", t0)
	if err := db.WriteTx(ctx, func(tx storage.Querier) error {
		_, err := tx.ExecContext(ctx, `UPDATE memory_jobs SET status = 'dead', attempts = 3`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := db.WriteTx(ctx, func(tx storage.Querier) error {
		var err error
		n, err = storage.RequeueDeadJobs(ctx, tx, "", 2, storage.FormatTime(t0))
		return err
	}); err != nil || n != 2 {
		t.Fatalf("requeue batch = %d, %v", n, err)
	}
	dead, _ := storage.ListJobs(ctx, db.Reader(), storage.JobFilter{Status: storage.JobDead}, 10)
	if len(dead) != 3 {
		t.Fatalf("dead left = %d, want 3", len(dead))
	}
}

// Dead jobs of one memory and type are requeued one at a time, the oldest
// first: idx_jobs_live allows one live job of a type per memory, and the
// statement leaves the others dead instead of failing on them.
func TestRequeueDeadOneLivePerMemory(t *testing.T) {
	testRequeueDeadOneLivePerMemory(t, sqliteStore(t))
}

func testRequeueDeadOneLivePerMemory(t *testing.T, db *store) {
	ctx := context.Background()
	requeue := func(id string) int64 {
		t.Helper()
		var n int64
		if err := db.WriteTx(ctx, func(tx storage.Querier) (err error) {
			n, err = storage.RequeueDeadJobs(ctx, tx, id, 10, storage.FormatTime(t0.Add(time.Hour)))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := db.WriteTx(ctx, func(tx storage.Querier) error {
		for i, id := range []string{"old", "new", "other"} {
			memory := "m1"
			if id == "other" {
				memory = "m2"
			}
			at := storage.FormatTime(t0.Add(time.Duration(i) * time.Minute))
			if _, err := tx.ExecContext(ctx, `INSERT INTO memory_jobs (id, memory_id, job_type, status, attempts, max_attempts,
				created_at, updated_at) VALUES (?, ?, 'extract', 'dead', 3, 3, ?, ?)`, id, memory, at, at); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n := requeue(""); n != 2 {
		t.Fatalf("requeued %d, want 2 (old and other)", n)
	}
	for id, want := range map[string]string{"old": storage.JobPending, "new": storage.JobDead, "other": storage.JobPending} {
		if j, err := storage.GetJob(ctx, db.Reader(), id); err != nil || j.Status != want {
			t.Errorf("job %s = %+v, %v; want %s", id, j, err, want)
		}
	}
	// new stays dead while old is live, asked by id or not.
	if n := requeue("new"); n != 0 {
		t.Fatalf("requeued new beside a live job: %d", n)
	}
	if n := requeue(""); n != 0 {
		t.Fatalf("requeued %d beside live jobs", n)
	}
}
