package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairnmem/cairn/storage/dialect"
)

// Job statuses.
const (
	JobPending   = "pending"
	JobLeased    = "leased"
	JobCompleted = "completed"
	JobFailed    = "failed"
	JobDead      = "dead"
)

// ErrLeaseLost is returned when a job is completed or failed by a worker
// that no longer holds its lease (the reaper returned it, another worker
// leased it again).
var ErrLeaseLost = errors.New("job lease lost")

// Job is one row of memory_jobs.
type Job struct {
	ID            string `json:"id"`
	MemoryID      string `json:"memoryId,omitempty"`
	DocumentID    string `json:"documentId,omitempty"`
	JobType       string `json:"jobType"`
	Status        string `json:"status"`
	Payload       string `json:"payload,omitempty"`
	Result        string `json:"result,omitempty"`
	Attempts      int    `json:"attempts"`
	MaxAttempts   int    `json:"maxAttempts"`
	NextAttemptAt string `json:"nextAttemptAt,omitempty"`
	LeasedAt      string `json:"leasedAt,omitempty"`
	LeaseOwner    string `json:"leaseOwner,omitempty"`
	CompletedAt   string `json:"completedAt,omitempty"`
	FailedAt      string `json:"failedAt,omitempty"`
	Error         string `json:"error,omitempty"`
	CreatedAt     string `json:"createdAt"`
	UpdatedAt     string `json:"updatedAt"`
}

const jobColumns = `id, memory_id, document_id, job_type, status, payload, result, attempts, max_attempts,
	next_attempt_at, leased_at, lease_owner, completed_at, failed_at, error, created_at, updated_at`

func scanJob(r rowScanner) (*Job, error) {
	var j Job
	var mem, doc, payload, result, next, leased, owner, completed, failed, errMsg sql.NullString
	err := r.Scan(&j.ID, &mem, &doc, &j.JobType, &j.Status, &payload, &result, &j.Attempts, &j.MaxAttempts,
		&next, &leased, &owner, &completed, &failed, &errMsg, &j.CreatedAt, &j.UpdatedAt)
	if err != nil {
		return nil, err
	}
	j.MemoryID, j.DocumentID, j.Payload, j.Result = mem.String, doc.String, payload.String, result.String
	j.NextAttemptAt, j.LeasedAt, j.LeaseOwner = next.String, leased.String, owner.String
	j.CompletedAt, j.FailedAt, j.Error = completed.String, failed.String, errMsg.String
	return &j, nil
}

// EnqueueJob inserts a pending job unless a live (pending or leased) job of
// the same type already exists for the memory. It reports whether a row
// was inserted.
func EnqueueJob(ctx context.Context, q Querier, id, memoryID, jobType, payload string, maxAttempts int, now string) (bool, error) {
	if maxAttempts < 1 {
		maxAttempts = 3
	}
	res, err := q.ExecContext(ctx, `INSERT INTO memory_jobs
		(id, memory_id, job_type, status, payload, attempts, max_attempts, created_at, updated_at)
		VALUES (?, ?, ?, 'pending', ?, 0, ?, ?, ?) ON CONFLICT DO NOTHING`, id, nullable(memoryID), jobType, nullable(payload), maxAttempts, now, now)
	if err != nil {
		return false, fmt.Errorf("enqueue %s job: %w", jobType, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// GetJob returns one job.
func GetJob(ctx context.Context, q Querier, id string) (*Job, error) {
	j, err := scanJob(q.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM memory_jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return j, err
}

// LeaseJob leases one due job, to be called inside a write transaction so
// that no two workers lease the same job. A job is due when it is pending,
// has attempts left and its next_attempt_at (the retry backoff) has passed.
// Among the types with due jobs (restricted to types when given), the type
// served least recently (oldest latest leased_at; never-leased first) is
// chosen, then its oldest due job: a burst of one type cannot starve
// another. The job becomes leased by owner with attempts incremented. It
// returns ErrNotFound when nothing is due.
func LeaseJob(ctx context.Context, tx Tx, owner string, types []string, now string) (*Job, error) {
	cond := `status = 'pending' AND attempts < max_attempts AND (next_attempt_at IS NULL OR next_attempt_at <= ?)`
	args := []any{now}
	if len(types) > 0 {
		cond += ` AND job_type IN (` + placeholders(len(types)) + `)`
		for _, t := range types {
			args = append(args, t)
		}
	}
	var jobType string
	err := tx.QueryRowContext(ctx, `SELECT t.job_type FROM (SELECT DISTINCT job_type FROM memory_jobs WHERE `+cond+`) t
		ORDER BY (SELECT max(leased_at) FROM memory_jobs l WHERE l.job_type = t.job_type) ASC NULLS FIRST, t.job_type
		LIMIT 1`, args...).Scan(&jobType)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	} else if err != nil {
		return nil, fmt.Errorf("lease: pick type: %w", err)
	}
	var id string
	err = tx.QueryRowContext(ctx, `SELECT id FROM memory_jobs WHERE `+cond+` AND job_type = ?
		ORDER BY created_at, id LIMIT 1`, append(args, jobType)...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	} else if err != nil {
		return nil, fmt.Errorf("lease: pick job: %w", err)
	}
	res, err := tx.ExecContext(ctx, `UPDATE memory_jobs SET status = 'leased', attempts = attempts + 1,
		leased_at = ?, lease_owner = ?, updated_at = ? WHERE id = ? AND status = 'pending'`, now, owner, now, id)
	if err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return nil, ErrNotFound
	}
	return GetJob(ctx, tx, id)
}

// CheckLease returns ErrLeaseLost unless job is still leased by its owner
// on the same attempt.
func CheckLease(ctx context.Context, q Querier, j *Job) error {
	var status string
	var owner sql.NullString
	var attempts int
	err := q.QueryRowContext(ctx, `SELECT status, lease_owner, attempts FROM memory_jobs WHERE id = ?`, j.ID).Scan(&status, &owner, &attempts)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrLeaseLost
	} else if err != nil {
		return err
	}
	if status != JobLeased || owner.String != j.LeaseOwner || attempts != j.Attempts {
		return ErrLeaseLost
	}
	return nil
}

// CompleteJob marks a leased job completed with its result (JSON). The
// caller must hold the lease.
func CompleteJob(ctx context.Context, q Querier, j *Job, result, now string) error {
	if err := CheckLease(ctx, q, j); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, `UPDATE memory_jobs SET status = 'completed', result = ?, completed_at = ?,
		error = NULL, updated_at = ? WHERE id = ?`, nullable(result), now, now, j.ID)
	return err
}

// RetryDelay is the backoff before a failed job's next attempt:
// min(2^attempts · 5 s, 120 s).
func RetryDelay(attempts int) time.Duration {
	if attempts < 0 {
		attempts = 0
	}
	if attempts > 5 {
		return 120 * time.Second
	}
	return min(time.Duration(1<<attempts)*5*time.Second, 120*time.Second)
}

// FailJob records a failed attempt of a leased job: back to pending with
// next_attempt_at = now + delay, or dead once attempts reach max_attempts
// (the memory's extraction_status is then "failed" for extract jobs). It
// reports whether the job is dead.
func FailJob(ctx context.Context, q Querier, j *Job, msg string, now time.Time, delay time.Duration) (bool, error) {
	if err := CheckLease(ctx, q, j); err != nil {
		return false, err
	}
	ts := FormatTime(now)
	if len(msg) > 2000 {
		msg = msg[:2000]
	}
	if j.Attempts >= j.MaxAttempts {
		if _, err := q.ExecContext(ctx, `UPDATE memory_jobs SET status = 'dead', failed_at = ?, error = ?,
			lease_owner = NULL, updated_at = ? WHERE id = ?`, ts, msg, ts, j.ID); err != nil {
			return false, err
		}
		if j.JobType == "extract" && j.MemoryID != "" {
			if _, err := q.ExecContext(ctx, `UPDATE memories SET extraction_status = 'failed' WHERE id = ?`, j.MemoryID); err != nil {
				return true, err
			}
		}
		return true, nil
	}
	_, err := q.ExecContext(ctx, `UPDATE memory_jobs SET status = 'pending', failed_at = ?, error = ?, lease_owner = NULL,
		next_attempt_at = ?, updated_at = ? WHERE id = ?`, ts, msg, FormatTime(now.Add(delay)), ts, j.ID)
	return false, err
}

// ReapStaleLeases returns jobs leased before cutoff to pending (or to dead
// when they have no attempts left). It returns how many were returned and
// how many died.
func ReapStaleLeases(ctx context.Context, q Querier, cutoff, now string) (reaped, dead int64, err error) {
	res, err := q.ExecContext(ctx, `UPDATE memory_jobs SET status = 'dead', failed_at = ?, lease_owner = NULL,
		error = 'lease expired on the last attempt', updated_at = ?
		WHERE status = 'leased' AND leased_at < ? AND attempts >= max_attempts`, now, now, cutoff)
	if err != nil {
		return 0, 0, err
	}
	dead, _ = res.RowsAffected()
	if dead > 0 {
		if _, err := q.ExecContext(ctx, `UPDATE memories SET extraction_status = 'failed' WHERE id IN
			(SELECT memory_id FROM memory_jobs WHERE status = 'dead' AND job_type = 'extract' AND failed_at = ? AND memory_id IS NOT NULL)`, now); err != nil {
			return 0, dead, err
		}
	}
	res, err = q.ExecContext(ctx, `UPDATE memory_jobs SET status = 'pending', lease_owner = NULL, updated_at = ?
		WHERE status = 'leased' AND leased_at < ?`, now, cutoff)
	if err != nil {
		return 0, dead, err
	}
	reaped, _ = res.RowsAffected()
	return reaped, dead, nil
}

// JobCounts counts jobs by status and by type and status.
func JobCounts(ctx context.Context, q Querier) (byStatus map[string]int, byType map[string]map[string]int, err error) {
	byStatus = map[string]int{JobPending: 0, JobLeased: 0, JobCompleted: 0, JobFailed: 0, JobDead: 0}
	byType = map[string]map[string]int{}
	rows, err := q.QueryContext(ctx, `SELECT job_type, status, count(*) FROM memory_jobs GROUP BY job_type, status`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var t, st string
		var n int
		if err := rows.Scan(&t, &st, &n); err != nil {
			return nil, nil, err
		}
		byStatus[st] += n
		if byType[t] == nil {
			byType[t] = map[string]int{}
		}
		byType[t][st] = n
	}
	return byStatus, byType, rows.Err()
}

// CountJobsByStatus counts jobs by status; statuses without jobs are
// absent.
func CountJobsByStatus(ctx context.Context, q Querier) (map[string]int, error) {
	rows, err := q.QueryContext(ctx, `SELECT status, count(*) FROM memory_jobs GROUP BY status`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, rows.Err()
}

// SetJobResult replaces the result of job id.
func SetJobResult(ctx context.Context, q Querier, id, result string) error {
	_, err := q.ExecContext(ctx, `UPDATE memory_jobs SET result = ? WHERE id = ?`, result, id)
	return err
}

// EnqueueJobOnce inserts a pending job of jobType with payload and id,
// unless a live (pending or leased) job of that type with the same payload
// exists. It returns the id of the live job: id, or the existing job's.
func EnqueueJobOnce(ctx context.Context, q Querier, id, jobType, payload string, maxAttempts int, now string) (string, error) {
	var existing string
	err := q.QueryRowContext(ctx, `SELECT id FROM memory_jobs WHERE job_type = ? AND payload = ?
		AND status IN ('pending', 'leased')`, jobType, payload).Scan(&existing)
	if err == nil {
		return existing, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO memory_jobs (id, job_type, status, payload, attempts, max_attempts, created_at, updated_at)
		VALUES (?, ?, 'pending', ?, 0, ?, ?, ?)`, id, jobType, payload, maxAttempts, now, now)
	return id, err
}

// --- proposals --------------------------------------------------------------

// Proposal states.
const (
	ProposalPending  = "pending"
	ProposalApproved = "approved"
	ProposalRejected = "rejected"
	ProposalApplied  = "applied"
	ProposalSkipped  = "skipped"
)

// Proposal is one row of pipeline_proposals: what the pipeline proposed for
// one extracted fact, and what became of it.
type Proposal struct {
	ID                string  `json:"id"`
	JobID             string  `json:"jobId,omitempty"`
	SourceMemoryID    string  `json:"sourceMemoryId"`
	Action            string  `json:"action"`
	Fact              string  `json:"fact"`
	FactType          string  `json:"factType"`
	Confidence        float64 `json:"confidence"`
	TargetMemoryID    string  `json:"targetMemoryId,omitempty"`
	TargetVersion     int64   `json:"targetVersion,omitempty"`
	Reason            string  `json:"reason,omitempty"`
	State             string  `json:"state"`
	Shadow            bool    `json:"shadow"`
	Blocked           bool    `json:"blocked"`
	BlockedReason     string  `json:"blockedReason,omitempty"`
	SkippedReason     string  `json:"skippedReason,omitempty"`
	ReviewNeeded      bool    `json:"reviewNeeded"`
	ContradictionRisk bool    `json:"contradictionRisk"`
	AppliedMemoryID   string  `json:"appliedMemoryId,omitempty"`
	DecidedBy         string  `json:"decidedBy,omitempty"`
	DecidedAt         string  `json:"decidedAt,omitempty"`
	DecisionReason    string  `json:"decisionReason,omitempty"`
	CreatedAt         string  `json:"createdAt"`
	UpdatedAt         string  `json:"updatedAt"`
}

const proposalColumns = `id, job_id, source_memory_id, action, fact, fact_type, confidence, target_memory_id,
	target_version, reason, state, shadow, blocked, blocked_reason, skipped_reason, review_needed,
	contradiction_risk, applied_memory_id, decided_by, decided_at, decision_reason, created_at, updated_at`

func scanProposal(r rowScanner) (*Proposal, error) {
	var p Proposal
	var job, target, reason, blocked, skipped, applied, by, at, why sql.NullString
	var ver sql.NullInt64
	err := r.Scan(&p.ID, &job, &p.SourceMemoryID, &p.Action, &p.Fact, &p.FactType, &p.Confidence, &target,
		&ver, &reason, &p.State, &p.Shadow, &p.Blocked, &blocked, &skipped, &p.ReviewNeeded,
		&p.ContradictionRisk, &applied, &by, &at, &why, &p.CreatedAt, &p.UpdatedAt)
	if err != nil {
		return nil, err
	}
	p.JobID, p.TargetMemoryID, p.TargetVersion, p.Reason = job.String, target.String, ver.Int64, reason.String
	p.BlockedReason, p.SkippedReason, p.AppliedMemoryID = blocked.String, skipped.String, applied.String
	p.DecidedBy, p.DecidedAt, p.DecisionReason = by.String, at.String, why.String
	return &p, nil
}

// InsertProposal stores p.
func InsertProposal(ctx context.Context, q Querier, p *Proposal) error {
	var ver any
	if p.TargetVersion > 0 {
		ver = p.TargetVersion
	}
	_, err := q.ExecContext(ctx, `INSERT INTO pipeline_proposals (`+proposalColumns+`)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		p.ID, nullable(p.JobID), p.SourceMemoryID, p.Action, p.Fact, orDefault(p.FactType, "fact"), p.Confidence,
		nullable(p.TargetMemoryID), ver, nullable(p.Reason), orDefault(p.State, ProposalPending), p.Shadow, p.Blocked,
		nullable(p.BlockedReason), nullable(p.SkippedReason), p.ReviewNeeded, p.ContradictionRisk,
		nullable(p.AppliedMemoryID), nullable(p.DecidedBy), nullable(p.DecidedAt), nullable(p.DecisionReason),
		p.CreatedAt, orDefault(p.UpdatedAt, p.CreatedAt))
	if err != nil {
		return fmt.Errorf("insert proposal: %w", err)
	}
	return nil
}

// GetProposal returns one proposal.
func GetProposal(ctx context.Context, q Querier, id string) (*Proposal, error) {
	p, err := scanProposal(q.QueryRowContext(ctx, `SELECT `+proposalColumns+` FROM pipeline_proposals WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return p, err
}

// DecideProposal moves a proposal from expectState to state, recording who
// decided, when and why. It returns ErrNotFound when the proposal is not in
// expectState.
func DecideProposal(ctx context.Context, q Querier, id, expectState, state, appliedID, by, reason, now string) error {
	res, err := q.ExecContext(ctx, `UPDATE pipeline_proposals SET state = ?, applied_memory_id = COALESCE(?, applied_memory_id),
		decided_by = ?, decided_at = ?, decision_reason = ?, updated_at = ? WHERE id = ? AND state = ?`,
		state, nullable(appliedID), nullable(by), now, nullable(reason), now, id, expectState)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrNotFound
	}
	return nil
}

// ReopenProposal puts a decided proposal (in expectState) back to
// pending, without its decision: the undo of a decision whose effect the
// caller has reverted. ErrNotFound when it is not in expectState.
func ReopenProposal(ctx context.Context, q Querier, id, expectState, now string) error {
	res, err := q.ExecContext(ctx, `UPDATE pipeline_proposals SET state = 'pending', applied_memory_id = NULL,
		decided_by = NULL, decided_at = NULL, decision_reason = NULL, updated_at = ? WHERE id = ? AND state = ?`,
		now, id, expectState)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrNotFound
	}
	return nil
}

// ProposalFilter selects proposals; zero values mean no constraint.
type ProposalFilter struct {
	State          string
	Action         string
	SourceMemoryID string
	JobID          string
	// Decided selects every decided proposal (any state but pending),
	// newest decision first.
	Decided bool
	// Text keeps the proposals whose fact, reason, type, or source or
	// target memory id contains it (case-insensitive for ASCII).
	Text string
	// Sort orders the list: "" newest first (decided ones: newest
	// decision first), ProposalsOldest, or ProposalsConfidence (highest
	// first).
	Sort string
	// Offset skips that many rows of the list (the next page).
	Offset int
}

// Orders of the proposal list (ProposalFilter.Sort).
const (
	ProposalsOldest     = "oldest"
	ProposalsConfidence = "confidence"
)

// where is f as a condition on pipeline_proposals, with its arguments.
func (f ProposalFilter) where(d dialect.Dialect) (string, []any) {
	conds := []string{"TRUE"}
	var args []any
	for _, c := range []struct{ col, v string }{{"state", f.State}, {"action", f.Action},
		{"source_memory_id", f.SourceMemoryID}, {"job_id", f.JobID}} {
		if c.v != "" {
			conds = append(conds, c.col+" = ?")
			args = append(args, c.v)
		}
	}
	if f.Decided {
		conds = append(conds, "state <> 'pending'")
	}
	if f.Text != "" {
		p := "%" + likeEscape(f.Text) + "%"
		l := " " + dialect.Like.In(d) + ` ? ESCAPE '\'`
		conds = append(conds, `(fact`+l+` OR COALESCE(reason, '')`+l+` OR COALESCE(fact_type, '')`+l+`
			OR source_memory_id`+l+` OR COALESCE(target_memory_id, '')`+l+`)`)
		args = append(args, p, p, p, p, p)
	}
	return strings.Join(conds, " AND "), args
}

// ListProposals returns proposals matching f, newest first (decided ones:
// newest decision first).
func ListProposals(ctx context.Context, q Querier, f ProposalFilter, limit int) ([]*Proposal, error) {
	where, args := f.where(dialect.Of(q))
	order := "created_at DESC, rowid DESC"
	switch {
	case f.Sort == ProposalsOldest:
		order = "created_at ASC, rowid ASC"
	case f.Sort == ProposalsConfidence:
		order = "confidence DESC, created_at DESC, rowid DESC"
	case f.Decided:
		order = "COALESCE(decided_at, updated_at) DESC, rowid DESC"
	}
	args = append(args, limit, max(0, f.Offset))
	rows, err := q.QueryContext(ctx, `SELECT `+proposalColumns+` FROM pipeline_proposals WHERE `+where+`
		ORDER BY `+order+` LIMIT ? OFFSET ?`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Proposal{}
	for rows.Next() {
		p, err := scanProposal(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// CountProposalsMatching counts the proposals matching f (its Offset
// aside).
func CountProposalsMatching(ctx context.Context, q Querier, f ProposalFilter) (int, error) {
	where, args := f.where(dialect.Of(q))
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM pipeline_proposals WHERE `+where, args...).Scan(&n)
	return n, err
}

// CountProposals counts proposals in state (one indexed query).
func CountProposals(ctx context.Context, q Querier, state string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM pipeline_proposals WHERE state = ?`, state).Scan(&n)
	return n, err
}

const proposedBeforeQuery = `SELECT EXISTS (SELECT 1 FROM pipeline_proposals
	WHERE fact = ? AND action = ? AND (state = 'pending' OR source_memory_id = ?))`

// ProposedBefore reports whether fact was already proposed with action:
// by a proposal still pending, or by any proposal of the same source.
func ProposedBefore(ctx context.Context, q Querier, fact, action, sourceID string) (bool, error) {
	var ok bool
	err := q.QueryRowContext(ctx, proposedBeforeQuery, fact, action, sourceID).Scan(&ok)
	return ok, err
}

// KillJob marks a leased job dead at once, for failures no retry can fix
// (the caller must hold the lease).
func KillJob(ctx context.Context, q Querier, j *Job, msg string, now time.Time) error {
	if err := CheckLease(ctx, q, j); err != nil {
		return err
	}
	if len(msg) > 2000 {
		msg = msg[:2000]
	}
	ts := FormatTime(now)
	_, err := q.ExecContext(ctx, `UPDATE memory_jobs SET status = 'dead', failed_at = ?, error = ?,
		lease_owner = NULL, updated_at = ? WHERE id = ?`, ts, msg, ts, j.ID)
	return err
}
