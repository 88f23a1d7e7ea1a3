package wire

import "time"

// Health statuses and their bands (core/ops.HealthStatus).
const (
	StatusHealthy   = "healthy"   // score ≥ 0.8
	StatusDegraded  = "degraded"  // score ≥ 0.5
	StatusUnhealthy = "unhealthy" // below
)

// DiagnosticsTTL is how long the service shares one diagnostics report
// between callers: a report asked for that long after a change measures
// it.
const DiagnosticsTTL = time.Second

// Signal is one measured input of a domain. A triggered signal cost its
// Domain Penalty points; an informational one never costs anything.
type Signal struct {
	Name          string  `json:"name"`
	Domain        string  `json:"domain"`
	Value         float64 `json:"value"`
	Threshold     float64 `json:"threshold"`
	Unit          string  `json:"unit"` // count, ratio, seconds or bytes
	Penalty       float64 `json:"penalty"`
	Triggered     bool    `json:"triggered"`
	Informational bool    `json:"informational,omitempty"`
	Message       string  `json:"message"`
}

// DomainReport is one domain's score (0..1), weight and signals.
type DomainReport struct {
	Name    string   `json:"name"`
	Score   float64  `json:"score"`
	Weight  float64  `json:"weight"`
	Status  string   `json:"status"`
	Signals []Signal `json:"signals"`
	Note    string   `json:"note,omitempty"`
}

// HealthScore is a score with its band.
type HealthScore struct {
	Score  float64 `json:"score"`
	Status string  `json:"status"`
}

// DiagnosticsReport is the whole health report. It is shared between
// callers for DiagnosticsTTL: treat it as read-only.
type DiagnosticsReport struct {
	Timestamp string      `json:"timestamp"`
	Composite HealthScore `json:"composite"`
	// Domains are in report order (core/ops.DiagnosticsDomains).
	Domains []DomainReport `json:"domains"`
	// SilentFailures repeats the signals that catch a pipeline quietly
	// doing nothing (empty extractions in a row, embedding coverage, FTS
	// and memory rows disagreeing, secrets redacted), whichever domain
	// scores them.
	SilentFailures []Signal `json:"silentFailures"`
	ComputeMs      float64  `json:"computeMs"`
}

// Domain returns the named domain of the report, or nil.
func (r *DiagnosticsReport) Domain(name string) *DomainReport {
	for i := range r.Domains {
		if r.Domains[i].Name == name {
			return &r.Domains[i]
		}
	}
	return nil
}

// Repair action names, as used in POST /api/repair/{action}.
const (
	RepairRequeueDead    = "requeue-dead"
	RepairReleaseLeases  = "release-leases"
	RepairCheckFTS       = "check-fts"
	RepairRetentionSweep = "retention-sweep"
	RepairReEmbed        = "re-embed"
	RepairCleanOrphans   = "clean-orphans"
	RepairDeduplicate    = "deduplicate"
)

// RepairActions lists every repair for menus and help, in the order a
// menu shows them. check-fts appears twice: the check alone is harmless,
// the check with Repair rebuilds the index.
func RepairActions() []RepairInfo {
	return []RepairInfo{
		{Action: RepairRequeueDead, Title: "Requeue dead jobs (back to pending, attempts reset)"},
		{Action: RepairReleaseLeases, Title: "Release stale job leases"},
		{Action: RepairCheckFTS, Title: "Check the full-text index"},
		{Action: RepairCheckFTS, Title: "Check and rebuild the full-text index", Destructive: true, Options: &RepairOptions{Repair: true}},
		{Action: RepairReEmbed, Title: "Embed memories with missing or stale vectors"},
		{Action: RepairCleanOrphans, Title: "Delete vectors of deleted or missing memories", Destructive: true},
		{Action: RepairDeduplicate, Title: "Merge exact duplicate memories", Destructive: true},
		{Action: RepairRetentionSweep, Title: "Purge expired tombstones, old history and finished jobs", Destructive: true},
	}
}

// RepairOptions tune one repair run. Zero values take each action's
// defaults.
type RepairOptions struct {
	// BatchSize caps the rows one run touches.
	BatchSize int `json:"batchSize,omitempty"`
	// DryRun reports what would change without writing.
	DryRun bool `json:"dryRun,omitempty"`
	// Repair applies a fix where the action is a check (check-fts).
	Repair bool `json:"repair,omitempty"`
	// FullSweep makes re-embed loop batch after batch until nothing is
	// left.
	FullSweep bool `json:"fullSweep,omitempty"`
	// JobID restricts requeue-dead to one job.
	JobID string `json:"jobId,omitempty"`
	// Reason is recorded in the audit event; default "manual repair".
	Reason string `json:"reason,omitempty"`
}

// RepairResult is what every repair returns.
type RepairResult struct {
	Action   string `json:"action"`
	Success  bool   `json:"success"`
	Affected int    `json:"affected"`
	Message  string `json:"message"`
	DryRun   bool   `json:"dryRun,omitempty"`
}

// RepairInfo describes one repair action for menus and help.
type RepairInfo struct {
	Action      string `json:"action"`
	Title       string `json:"title"`
	Destructive bool   `json:"destructive"` // deletes or rewrites rows: ask before running
	// Options, when set, are what this menu entry runs the action with.
	Options *RepairOptions `json:"options,omitempty"`
}

// Recommendation is one repair the diagnostics call for.
type Recommendation struct {
	Action  string        `json:"action"`
	Options RepairOptions `json:"options"`
	Domain  string        `json:"domain"`
	Signal  string        `json:"signal"`
	Reason  string        `json:"reason"`
	// Halted is set when the halt tracker stopped executing the action.
	Halted bool `json:"halted,omitempty"`
}
