package wire

// Job statuses (storage.Job*).
const (
	JobPending   = "pending"
	JobLeased    = "leased"
	JobCompleted = "completed"
	JobFailed    = "failed"
	JobDead      = "dead"
)

// Job is one row of the job queue as the API answers it (storage.Job).
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

// JobFilter selects jobs; empty fields match everything.
type JobFilter struct {
	Status   string // pending, leased, completed, failed, dead
	JobType  string
	MemoryID string
	// Failing restricts to pending jobs that have failed at least once
	// (waiting out their retry backoff): failing=true in the API.
	Failing bool
	// Text keeps the jobs whose id, type, status, memory or document id,
	// or error contains it (q in the API).
	Text string
	// Sort orders the list: "" live first, then newest; "newest" or
	// "oldest" by last update.
	Sort string
	// Offset skips that many rows of the list (the next page).
	Offset int
}

// JobsPage is the answer of GET /api/jobs: the rows asked for and the
// counts of the whole queue.
type JobsPage struct {
	Jobs []*Job `json:"jobs"`
	// Counts counts jobs by status; ByType by job type, then status.
	Counts map[string]int            `json:"counts"`
	ByType map[string]map[string]int `json:"byType"`
	// Total counts the rows the filter selects, on every page.
	Total int `json:"total"`
}
