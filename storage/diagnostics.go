package storage

import (
	"context"
	"database/sql"
	"errors"
)

// Read-only measurements behind the health diagnostics and the repair
// checks. Each takes a Querier so a caller can read every domain from one
// snapshot.

// QueueHealth is the state of the job queue.
type QueueHealth struct {
	Pending        int64
	DeadSince      int64  // jobs that went dead since the given time
	CompletedSince int64  // jobs completed since the given time
	OldestPending  string // created_at of the oldest pending job, "" when none
	StaleLeases    int64  // leases taken before the given cutoff
}

const (
	countPendingJobsQuery   = `SELECT count(*) FROM memory_jobs WHERE status = 'pending'`
	countDeadJobsSinceQuery = `SELECT count(*) FROM memory_jobs WHERE status = 'dead' AND updated_at >= ?`
	countDoneJobsSinceQuery = `SELECT count(*) FROM memory_jobs WHERE status = 'completed' AND updated_at >= ?`
	oldestPendingJobQuery   = `SELECT min(created_at) FROM memory_jobs WHERE status = 'pending'`
	countStaleLeasesQuery   = `SELECT count(*) FROM memory_jobs WHERE status = 'leased' AND leased_at < ?`
)

// ReadQueueHealth counts pending jobs, jobs dead and completed since
// since, leases older than staleBefore, and finds the oldest pending job.
func ReadQueueHealth(ctx context.Context, q Querier, since, staleBefore string) (QueueHealth, error) {
	var h QueueHealth
	if err := q.QueryRowContext(ctx, countPendingJobsQuery).Scan(&h.Pending); err != nil {
		return h, err
	}
	if err := q.QueryRowContext(ctx, countDeadJobsSinceQuery, since).Scan(&h.DeadSince); err != nil {
		return h, err
	}
	if err := q.QueryRowContext(ctx, countDoneJobsSinceQuery, since).Scan(&h.CompletedSince); err != nil {
		return h, err
	}
	var oldest sql.NullString
	if err := q.QueryRowContext(ctx, oldestPendingJobQuery).Scan(&oldest); err != nil {
		return h, err
	}
	h.OldestPending = oldest.String
	n, err := CountStaleLeases(ctx, q, staleBefore)
	h.StaleLeases = int64(n)
	return h, err
}

// CountStaleLeases counts jobs leased before cutoff.
func CountStaleLeases(ctx context.Context, q Querier, cutoff string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, countStaleLeasesQuery, cutoff).Scan(&n)
	return n, err
}

const memoryCountsQuery = `SELECT total, deleted FROM memory_counts WHERE id = 1`

// MemoryCounts reads the rows and tombstones of memories from the
// trigger-maintained memory_counts row (migration 0008).
func MemoryCounts(ctx context.Context, q Querier) (total, deleted int64, err error) {
	err = q.QueryRowContext(ctx, memoryCountsQuery).Scan(&total, &deleted)
	return
}

const countMemoryRowsQuery = `SELECT count(*) FROM memories`

// CountMemoryRows counts the rows of memories, live and deleted.
func CountMemoryRows(ctx context.Context, q Querier) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, countMemoryRowsQuery).Scan(&n)
	return n, err
}

// CountHistoryEvents counts history events of kind event recorded since
// since.
func CountHistoryEvents(ctx context.Context, q Querier, event, since string) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM memory_history WHERE `+historyEventCond(event)+` AND created_at >= ?`,
		event, since).Scan(&n)
	return n, err
}

// DocumentFailures describes recent document ingestion failures.
type DocumentFailures struct {
	Any       bool   // any document exists at all
	Failed    int64  // documents failed since the given time
	LastError string // the error of the latest of them
}

const (
	anyDocumentQuery          = `SELECT count(*) FROM (SELECT 1 FROM documents LIMIT 1) d`
	countFailedDocumentsQuery = `SELECT count(*) FROM documents WHERE status = 'failed' AND updated_at >= ?`
	lastDocumentErrorQuery    = `SELECT error FROM documents WHERE status = 'failed' AND updated_at >= ? ORDER BY updated_at DESC LIMIT 1`
)

// ReadDocumentFailures counts documents that failed since since and
// reads the latest one's error. It reads nothing more when there is no
// document at all.
func ReadDocumentFailures(ctx context.Context, q Querier, since string) (DocumentFailures, error) {
	var d DocumentFailures
	var has int64
	if err := q.QueryRowContext(ctx, anyDocumentQuery).Scan(&has); err != nil {
		return d, err
	}
	if d.Any = has > 0; !d.Any {
		return d, nil
	}
	if err := q.QueryRowContext(ctx, countFailedDocumentsQuery, since).Scan(&d.Failed); err != nil {
		return d, err
	}
	if d.Failed == 0 {
		return d, nil
	}
	var last sql.NullString
	err := q.QueryRowContext(ctx, lastDocumentErrorQuery, since).Scan(&last)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return d, err
	}
	d.LastError = last.String
	return d, nil
}
