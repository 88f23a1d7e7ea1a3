package wire

// Proposal states (storage.Proposal*).
const (
	ProposalPending  = "pending"
	ProposalApproved = "approved"
	ProposalRejected = "rejected"
	ProposalApplied  = "applied"
	ProposalSkipped  = "skipped"
)

// Proposal is one change the pipeline proposed, as the API answers it
// (storage.Proposal).
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
	// target memory id contains it (q in the API).
	Text string
	// Sort orders the list: "" newest first, "oldest", or "confidence"
	// (highest first).
	Sort string
	// Offset skips that many rows of the list (the next page).
	Offset int
}

// ProposalsPage is one page of proposals and how many the filter selects
// in all.
type ProposalsPage struct {
	Proposals []*Proposal `json:"proposals"`
	Total     int         `json:"total"`
}
